// The graph explorer: search an entity (either script), see its neighbours and what links
// them (the passages that name both, or a relation of the entity graph), expand a neighbour,
// and open a passage in the document viewer. Drawn with cytoscape.js (vendored, MIT).
import cytoscape from "../vendor/cytoscape.esm.min.js";
import { fetchJSON } from "./api.js";
import { $, clear, el, langOf, shorten, textEl } from "./dom.js";

const STYLE = [
  {
    selector: "node",
    style: {
      label: "data(label)", "font-size": 11, "text-valign": "bottom", "text-margin-y": 3,
      "background-color": "#7a8db3", width: 14, height: 14, color: "#1f2a44",
      "text-wrap": "ellipsis", "text-max-width": 120,
    },
  },
  { selector: "node.expanded", style: { "background-color": "#2f5bd3", width: 18, height: 18 } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#f0a500" } },
  {
    selector: "edge",
    style: {
      width: 1.5, "line-color": "#b9c3d9", "curve-style": "bezier", label: "data(label)",
      "font-size": 9, color: "#5b6785", "text-rotation": "autorotate", "text-background-color": "#fff",
      "text-background-opacity": 0.85, "text-background-padding": 1, "text-wrap": "ellipsis", "text-max-width": 110,
    },
  },
  {
    selector: "edge.relation",
    style: { "line-color": "#d08a3a", "target-arrow-shape": "triangle", "target-arrow-color": "#d08a3a", width: 2 },
  },
  // A passage link's label ("named together in …") shows on hover or selection only: around a
  // busy entity two dozen of them overlap; a relation's short phrase is always shown.
  { selector: "edge.passage", style: { "text-opacity": 0 } },
  { selector: "edge.hover, edge:selected", style: { "text-opacity": 1, "z-index": 10 } },
  { selector: "edge:selected", style: { "line-color": "#f0a500", width: 3 } },
];

export class GraphExplorer {
  // `openPassage(chunkId)` opens a passage in the document viewer.
  constructor({ openPassage }) {
    this.dialog = $("graph-explorer");
    this.openPassage = openPassage;
    this.cy = null;
    this.expanded = new Set();
    $("close-graph").addEventListener("click", () => this.dialog.close());
    $("graph-search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.search($("graph-query").value);
    });
  }

  show() {
    if (!this.dialog.open) this.dialog.showModal();
    if (!this.cy) {
      this.cy = cytoscape({ container: $("graph-canvas"), style: STYLE, wheelSensitivity: 0.3, minZoom: 0.2, maxZoom: 3 });
      this.cy.on("tap", "node", (event) => this.expand(event.target.id()));
      this.cy.on("tap", "edge", (event) => this.showLink(event.target.data()));
      this.cy.on("mouseover", "edge", (event) => event.target.addClass("hover"));
      this.cy.on("mouseout", "edge", (event) => event.target.removeClass("hover"));
    }
    this.cy.resize();
  }

  // Open with a search box focused (the header's Graph button).
  open() {
    this.show();
    $("graph-query").focus();
  }

  // Open at the entities of a path the answer's graph expansion took ("A → B → C").
  async openPath(names) {
    this.show();
    this.reset();
    for (const name of names) {
      const found = await this.find(name);
      const exact = found.find((e) => e.names.some((n) => n.toLowerCase() === name.toLowerCase())) || found[0];
      if (exact) await this.expand(exact.id);
    }
  }

  reset() {
    if (this.cy) this.cy.elements().remove();
    this.expanded.clear();
    clear($("graph-details"));
  }

  async find(text) {
    const query = String(text || "").trim();
    if (!query) return [];
    const result = await fetchJSON(`/ui/api/graph/search?q=${encodeURIComponent(query)}`);
    return result.entities || [];
  }

  async search(text) {
    const list = $("graph-results");
    clear(list);
    let found;
    try {
      found = await this.find(text);
    } catch (err) {
      list.appendChild(el("li", { cls: "error", text: err.message }));
      return;
    }
    if (!found.length) {
      list.appendChild(el("li", { cls: "hint", text: `No entity named like “${text}”. Names come from the ingested documents.` }));
      return;
    }
    for (const entity of found) {
      const button = el("button", { cls: "graph-hit", attrs: { type: "button", "data-entity-id": entity.id } }, [
        textEl("span", "graph-hit-name", entity.names.join(" · ")),
        el("span", { cls: "graph-hit-count", text: `${entity.passages} passage${entity.passages === 1 ? "" : "s"}` }),
      ]);
      button.addEventListener("click", () => {
        this.reset();
        this.expand(entity.id);
      });
      list.appendChild(el("li", {}, [button]));
    }
  }

  addNode(id, label, cls = "") {
    const node = this.cy.getElementById(id);
    if (node.nonempty()) return node;
    return this.cy.add({ group: "nodes", data: { id, label: shorten(label, 40) }, classes: cls });
  }

  // Show an entity's neighbourhood around it, and its details beside the drawing.
  async expand(id) {
    let entity;
    try {
      entity = await fetchJSON(`/ui/api/graph/entity?id=${encodeURIComponent(id)}`);
    } catch (err) {
      this.say(err.message);
      return;
    }
    this.showEntity(entity);
    const centre = this.addNode(entity.id, entity.label);
    centre.addClass("expanded");
    if (!this.expanded.has(entity.id)) {
      this.expanded.add(entity.id);
      for (const n of entity.neighbours) {
        this.addNode(n.id, n.label);
        const [source, target] = n.link === "relation" && !n.outgoing ? [n.id, entity.id] : [entity.id, n.id];
        const edgeId = `${n.link}:${[source, target].sort().join("|")}:${n.relation}`;
        if (this.cy.getElementById(edgeId).nonempty()) continue;
        this.cy.add({
          group: "edges",
          data: { id: edgeId, source, target, label: n.relation, link: n, ends: [entity.label, n.label] },
          classes: n.link,
        });
      }
      this.cy.layout({ name: "cose", animate: false, nodeDimensionsIncludeLabels: true, randomize: false }).run();
    }
    this.cy.elements().unselect();
    centre.select();
    this.cy.animate({ center: { eles: centre } }, { duration: 200 });
  }

  say(text) {
    const box = $("graph-details");
    clear(box);
    box.appendChild(el("p", { cls: "error", text }));
  }

  passageList(passages, total) {
    const list = el("ul", { cls: "graph-passages" });
    for (const p of passages) {
      const open = el("button", { cls: "link-button graph-passage", text: p.title || p.id, attrs: { type: "button", "data-chunk-id": p.id } });
      open.lang = langOf(p.title);
      open.addEventListener("click", () => this.openPassage(p.id));
      list.appendChild(el("li", {}, [open]));
    }
    if (total > passages.length) list.appendChild(el("li", { cls: "hint", text: `and ${total - passages.length} more` }));
    return list;
  }

  showEntity(entity) {
    const box = $("graph-details");
    clear(box);
    box.appendChild(textEl("h3", "graph-entity-name", entity.names.join(" · ")));
    if (entity.type) box.appendChild(el("p", { cls: "graph-type", text: entity.type }));
    if (entity.description) box.appendChild(textEl("p", "graph-description", entity.description));
    box.appendChild(el("h4", { text: `Named in ${entity.passage_count} passage${entity.passage_count === 1 ? "" : "s"}` }));
    box.appendChild(this.passageList(entity.passages, entity.passage_count));
    if (entity.hub) box.appendChild(el("p", { cls: "hint", text: "Named almost everywhere: its neighbours say little, so they are not drawn." }));
    if (entity.neighbours.length) {
      box.appendChild(el("h4", { text: "Linked to" }));
      const list = el("ul", { cls: "graph-neighbours" });
      for (const n of entity.neighbours) {
        const go = el("button", { cls: "link-button graph-neighbour", text: n.label, attrs: { type: "button", "data-entity-id": n.id } });
        go.lang = langOf(n.label);
        go.addEventListener("click", () => this.expand(n.id));
        list.appendChild(el("li", {}, [go, textEl("span", "graph-relation", ` ${n.relation}`)]));
      }
      box.appendChild(list);
    }
  }

  showLink(data) {
    const box = $("graph-details");
    clear(box);
    const link = data.link;
    box.appendChild(textEl("h3", "graph-entity-name", `${data.ends[0]} — ${data.ends[1]}`));
    box.appendChild(textEl("p", "graph-relation", link.relation));
    box.appendChild(el("h4", { text: link.link === "relation" ? "Read from" : "Passages that name both" }));
    box.appendChild(this.passageList(link.passages, link.passage_count));
  }
}
