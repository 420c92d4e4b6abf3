// Small inline SVG diagrams: the keyword-tree path and the knowledge-graph paths, entities
// as boxes and relations as labelled arrows. All text goes in through textContent.
import { el, shorten } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const CJK = /[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/;
const NODE_H = 24;
const ROW_H = 40;
const PAD = 8;
let markerSeq = 0;

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// Rendered width of a label at 12px, estimated (CJK glyphs are about twice as wide).
function textWidth(text, size = 12) {
  let units = 0;
  for (const ch of text) units += CJK.test(ch) ? 1.0 : 0.58;
  return Math.ceil(units * size);
}

// "A —member of→ B ←located in— C" → nodes [A, B, C], edges [{label, forward}, …].
export function parseGraphPath(text) {
  const parts = String(text || "").split(/ —(.+?)→ | ←(.+?)— /);
  const nodes = [];
  const edges = [];
  for (let i = 0; i < parts.length; i += 3) {
    nodes.push(parts[i].trim());
    if (i + 1 < parts.length) {
      const forward = parts[i + 1] !== undefined;
      edges.push({ label: (forward ? parts[i + 1] : parts[i + 2]) || "", forward });
    }
  }
  return { nodes, edges };
}

function arrowMarker(defs) {
  const id = `arrow-${++markerSeq}`;
  const marker = svgEl("marker", {
    id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse",
  });
  marker.appendChild(svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "diagram-arrowhead" }));
  defs.appendChild(marker);
  return id;
}

// Draw rows of nodes joined by (optionally labelled) arrows; returns the <svg>.
function drawRows(rows, { title, cls }) {
  const svg = svgEl("svg", { class: `diagram ${cls}`, role: "img" });
  svg.appendChild(svgEl("title", {}, title));
  const defs = svgEl("defs");
  svg.appendChild(defs);
  const marker = arrowMarker(defs);
  let width = 0;
  rows.forEach((row, r) => {
    const y = PAD + r * ROW_H + 10;
    let x = PAD;
    row.nodes.forEach((name, i) => {
      const label = shorten(name, 32);
      const w = textWidth(label) + 16;
      const g = svgEl("g", { class: `diagram-node${i === row.nodes.length - 1 && row.lastCls ? ` ${row.lastCls}` : ""}` });
      g.appendChild(svgEl("title", {}, name));
      g.appendChild(svgEl("rect", { x, y, width: w, height: NODE_H, rx: 5 }));
      g.appendChild(svgEl("text", { x: x + w / 2, y: y + NODE_H / 2 + 4, "text-anchor": "middle" }, label));
      svg.appendChild(g);
      x += w;
      const edge = row.edges[i];
      if (!edge) return;
      const text = shorten(edge.label || "", 28);
      const gap = Math.max(36, textWidth(text, 11) + 20);
      const [x1, x2] = edge.forward === false ? [x + gap - 2, x + 2] : [x + 2, x + gap - 2];
      const line = svgEl("line", { x1, y1: y + NODE_H / 2, x2, y2: y + NODE_H / 2, class: "diagram-edge", "marker-end": `url(#${marker})` });
      svg.appendChild(line);
      if (text) {
        const g = svgEl("g");
        g.appendChild(svgEl("title", {}, edge.label));
        g.appendChild(svgEl("text", { x: x + gap / 2, y: y - 3, "text-anchor": "middle", class: "diagram-edge-label" }, text));
        svg.appendChild(g);
      }
      x += gap;
    });
    if (row.score != null) {
      svg.appendChild(svgEl("text", { x: x + 8, y: y + NODE_H / 2 + 4, class: "diagram-score" }, Number(row.score).toFixed(2)));
      x += 44;
    }
    width = Math.max(width, x + PAD);
  });
  const height = PAD * 2 + rows.length * ROW_H;
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  return svg;
}

// The knowledge-graph paths of a run: one row per path, entities as nodes.
// `onExplore(names)`, when given, opens the paths' entities in the graph explorer.
export function graphDiagram(paths, onExplore) {
  const rows = paths.map((p) => ({ ...parseGraphPath(p.path), score: p.score }));
  const label = el("div", { cls: "note-label", text: `knowledge graph · ${paths.length} path${paths.length === 1 ? "" : "s"}` });
  if (onExplore) {
    const names = [...new Set(rows.flatMap((r) => r.nodes))].slice(0, 8);
    const explore = el("button", { cls: "link-button explore-graph", text: "explore", attrs: { type: "button" } });
    explore.addEventListener("click", () => onExplore(names));
    label.append(" · ", explore);
  }
  const box = el("div", { cls: "note graph" }, [
    label,
    el("div", { cls: "diagram-scroll" }, [drawRows(rows, { title: "knowledge graph paths", cls: "graph-diagram" })]),
  ]);
  // The paths as text too: for copying, searching and screen readers.
  const list = el("ul", { cls: "graph-paths", attrs: { "aria-label": "paths as text" } });
  for (const p of paths) list.appendChild(el("li", { cls: "graph-path", text: p.path }));
  box.appendChild(el("details", { cls: "as-text" }, [el("summary", { text: "as text" }), list]));
  return box;
}

// The keyword-tree descent: root › … › matched keyword, with how it was found.
export function keywordDiagram(keyword) {
  const path = (keyword.path || []).map(String);
  const summary = [keyword.status, keyword.via].filter(Boolean).join(" · ");
  const box = el("div", { cls: "note keyword" }, [
    el("div", { cls: "note-label" }, [
      document.createTextNode("keyword tree "),
      el("span", { cls: "note-text", text: summary }),
    ]),
  ]);
  if (path.length) {
    const row = { nodes: ["root", ...path], edges: path.map(() => ({ label: "", forward: true })), lastCls: "matched" };
    box.appendChild(el("div", { cls: "diagram-scroll" }, [drawRows([row], { title: `keyword path: ${path.join(" › ")}`, cls: "keyword-diagram" })]));
  }
  if (keyword.reason) box.appendChild(el("div", { cls: "note-reason", text: keyword.reason }));
  return box;
}
