// The document viewer: the document a citation comes from, as ingested, chunk by chunk, with
// the cited chunk highlighted and scrolled into view, the sentences the answer quoted from it
// marked, and the other questions of the conversation that cite the same document.
import { fetchJSON } from "./api.js";
import { $, basename, clear, el, langOf } from "./dom.js";

const squash = (text) => String(text || "").replace(/\s+/g, " ").trim();

// The sentences of an answer that carry citation `n` ("… in 1777. [1]").
export function citedSentences(answer, n) {
  const out = [];
  for (const match of String(answer || "").matchAll(/([^[\]]+?)\s*((?:\[\d+\]\s*)+)/g)) {
    const marks = [...match[2].matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (marks.includes(Number(n))) out.push(squash(match[1]));
  }
  return out.filter((s) => s.length > 3);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// A chunk's text as nodes, each quoted sentence found in it (across line breaks: a quote is
// whitespace-normalised) wrapped in <mark>.
function marked(text, quotes) {
  const spans = [];
  for (const quote of quotes) {
    const words = quote.split(" ").filter(Boolean).map(escapeRe);
    if (!words.length) continue;
    const found = new RegExp(words.join("\\s+")).exec(text);
    if (found) spans.push([found.index, found.index + found[0].length]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const nodes = [];
  let pos = 0;
  for (const [start, end] of spans) {
    if (start < pos) continue;
    nodes.push(document.createTextNode(text.slice(pos, start)));
    nodes.push(el("mark", { text: text.slice(start, end) }));
    pos = end;
  }
  nodes.push(document.createTextNode(text.slice(pos)));
  return nodes;
}

export class DocViewer {
  constructor() {
    this.dialog = $("doc-viewer");
    $("close-viewer").addEventListener("click", () => this.dialog.close());
  }

  // Open the document of `chunkId`; `quotes` are the answer's sentences cited from it, and
  // `citing(source)` the conversation's other questions that cite the same document.
  async open(chunkId, quotes = [], citing = () => []) {
    const body = $("viewer-body");
    clear(body);
    $("viewer-title").textContent = "loading…";
    $("viewer-source").textContent = "";
    clear($("viewer-citing"));
    if (!this.dialog.open) this.dialog.showModal();
    let doc;
    try {
      doc = await fetchJSON(`/ui/api/chunk/${encodeURIComponent(chunkId)}/document`);
    } catch (err) {
      $("viewer-title").textContent = "could not open the document";
      body.appendChild(el("p", { cls: "error", text: err.message }));
      return;
    }
    $("viewer-title").textContent = doc.title || basename(doc.source);
    $("viewer-source").textContent = doc.source;
    const wanted = quotes.map(squash);
    let cited = null;
    for (const chunk of doc.chunks) {
      const text = String(chunk.text || "");
      const isCited = chunk.chunk_id === chunkId;
      const section = el("section", {
        cls: `doc-chunk${isCited ? " cited" : ""}`,
        attrs: { "data-chunk-id": chunk.chunk_id, "data-chunk-index": chunk.chunk_index },
      }, marked(text, isCited ? wanted : []));
      section.lang = langOf(text);
      body.appendChild(section);
      if (isCited) cited = section;
    }
    const others = citing(doc.source);
    if (others.length) {
      $("viewer-citing").appendChild(el("span", { text: "Also cited by: " }));
      for (const question of others) $("viewer-citing").appendChild(el("span", { cls: "citing-question", text: question }));
    }
    if (cited) cited.scrollIntoView({ block: "center" });
  }
}
