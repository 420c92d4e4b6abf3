// The search tree of one chat turn, folded from the stream's events exactly like
// treerag.search_tree.TreeFold, or loaded from the tree the server rebuilt from checkpoints.
//
// Read by a person: each run shows its own question once; a chunk is one line (score,
// title, reason) that opens to its quote, follow-up and text; sub-trees below depth 1 are
// collapsed with a count; the chunks the answer cites are marked along their path; thread
// ids stay out of sight behind copy buttons.
import { getChunk } from "./api.js";
import { graphDiagram, keywordDiagram } from "./diagrams.js";
import { basename, clear, copyButton, el, shorten, textEl } from "./dom.js";

const VERDICT = ["irrelevant", "partial", "sufficient"];
const FOUND_BY = {
  graph: { label: "via graph", sep: " → " },
  keyword: { label: "via keyword", sep: " › " },
  paths: { label: "via knowledge graph", sep: " " },
};

// A chunk the knowledge graph or the keyword tree found (not hybrid search): a small badge
// with the path that led to it, e.g. "via graph: Aldous Brennick → Port Veyra".
function foundBy(found) {
  if (!found || !FOUND_BY[found.kind]) return null;
  const { label, sep } = FOUND_BY[found.kind];
  const path = (Array.isArray(found.path) ? found.path : []).map(String).join(sep);
  const text = path ? `${label}: ${path}` : label;
  const badge = textEl("span", `found-by found-by-${found.kind}`, text);
  badge.title = text;
  badge.dataset.kind = found.kind;
  return badge;
}

export class TreeView {
  constructor(turnNo, question) {
    this.question = question;
    this.runs = new Map();
    this.root = null;
    this.body = el("div", { cls: "tree-body" });
    this.size = el("span", { cls: "tree-size" });
    this.copyId = copyButton("copy id", () => this.treeId || "", "Copy the tree's thread id");
    this.copyId.hidden = true;
    this.section = el("section", { cls: "tree-turn", attrs: { "data-turn": turnNo } }, [
      el("h3", { cls: "tree-title" }, [
        el("span", { cls: "turn-no", text: `Turn ${turnNo}` }),
        textEl("span", "turn-question", question),
        this.size,
        this.copyId,
      ]),
      this.body,
    ]);
    this.countsQueued = false;
  }

  setId(treeId) {
    this.treeId = treeId;
    this.section.dataset.treeId = treeId;
    this.copyId.hidden = !treeId;
  }

  notice(text, cls = "tree-notice") {
    clear(this.body);
    this.body.appendChild(el("p", { cls, text }));
  }

  apply(ev) {
    const run = this.runs.get(ev.thread_id || "");
    switch (ev.event) {
      case "run_started":
        this.startRun(ev);
        break;
      case "chunks_retrieved":
        if (run) this.setChunks(run, ev.chunks || []);
        break;
      case "chunks_added":
        if (run) this.addChunks(run, ev.chunks || []);
        break;
      case "chunk_judged":
      case "subrun_started":
      case "followup_not_asked":
        if (run && run.chunks.has(ev.chunk_id)) this.updateChunk(run.chunks.get(ev.chunk_id), ev);
        break;
      case "subrun_finished":
        if (run && run.chunks.has(ev.chunk_id)) run.chunks.get(ev.chunk_id).li.classList.add("child-done");
        break;
      case "graph_expanded":
        if (run) this.setNotes(run, { graphPaths: ev.paths || [] });
        break;
      case "keyword_descended":
        if (run) this.setNotes(run, { keyword: ev });
        break;
      case "answer_started":
        if (run) run.el.classList.add("answering");
        break;
      case "answer_finished":
        if (run) this.finishRun(run, ev.answer || "");
        break;
      case "run_failed":
        if (run) this.failRun(run, ev.error || "failed");
        break;
      default:
        break;
    }
    this.queueCounts();
  }

  startRun(ev) {
    const node = { thread_id: ev.thread_id, question: ev.question, depth: ev.depth || 0 };
    const parent = this.runs.get(ev.parent_thread_id || "");
    if (!parent && this.root) return; // not part of this tree
    const holder = parent && parent.chunks.get(ev.parent_chunk_id);
    const run = this.addRun(node, holder ? holder.childEl : this.body, parent);
    if (!parent) {
      this.root = run;
      this.setId(ev.thread_id);
    }
  }

  load(tree) {
    clear(this.body);
    this.runs.clear();
    this.setId(tree.thread_id);
    this.root = this.loadRun(tree, this.body);
    this.updateCounts();
  }

  loadRun(node, container, parent = null) {
    const run = this.addRun(node, container, parent);
    this.setChunks(run, node.chunks || []);
    for (const chunk of node.chunks || []) {
      const ref = run.chunks.get(chunk.chunk_id);
      this.updateChunk(ref, chunk);
      if (chunk.child) {
        ref.li.classList.add("child-done");
        this.loadRun(chunk.child, ref.childEl, run);
      }
    }
    if (node.graph_paths && node.graph_paths.length) this.setNotes(run, { graphPaths: node.graph_paths });
    if (node.keyword) this.setNotes(run, { keyword: node.keyword });
    if (node.answer) this.finishRun(run, node.answer);
    if (node.error) this.failRun(run, node.error);
    return run;
  }

  // A follow-up as written, without the question it continues when it starts with it
  // (the offline reasoner writes "<question> <missing terms>").
  ownQuestion(question, parent) {
    const text = String(question || "").trim();
    const before = [parent && parent.node.question, this.root && this.root.node.question, this.question]
      .map((q) => String(q || "").trim())
      .filter((q) => q && text.length > q.length && text.startsWith(q))
      .sort((a, b) => b.length - a.length)[0];
    return before ? `… ${text.slice(before.length).trim()}` : text;
  }

  addRun(node, container, parent = null) {
    const depth = node.depth || 0;
    const chunksEl = el("ul", { cls: "chunks" });
    const answerEl = el("div", { cls: "run-answer" });
    answerEl.hidden = true;
    const notesEl = el("div", { cls: "run-notes" });
    notesEl.hidden = true;
    // The root run's question is the turn's own: shown again only when the conversation
    // rewrote it into a standalone question. A sub-run shows its follow-up as asked.
    const rewritten = depth === 0 && node.question && node.question.trim() !== (this.question || "").trim();
    const head = el("div", { cls: "run-question" }, [
      el("span", { cls: "run-depth", text: depth === 0 ? (rewritten ? "searched as" : "Q") : `↳ depth ${depth}` }),
      textEl("span", "run-text", depth === 0 ? node.question : this.ownQuestion(node.question, parent)),
      copyButton("id", () => node.thread_id, "Copy this run's thread id"),
    ]);
    head.hidden = depth === 0 && !rewritten;
    head.title = node.question || "";
    const runEl = el("div", { cls: `run depth-${Math.min(depth, 4)}`, attrs: { "data-thread-id": node.thread_id } }, [
      head, notesEl, chunksEl, answerEl,
    ]);
    container.appendChild(runEl);
    const run = { node, el: runEl, chunksEl, notesEl, answerEl, chunks: new Map(), notes: {} };
    this.runs.set(node.thread_id, run);
    return run;
  }

  finishRun(run, answer) {
    run.el.classList.remove("answering");
    run.el.classList.add("answered");
    if (run.node.depth > 0 && answer) {
      clear(run.answerEl);
      run.answerEl.appendChild(el("span", { cls: "label", text: "sub-answer " }));
      run.answerEl.appendChild(textEl("span", "sub-answer", answer));
      run.answerEl.hidden = false;
    }
  }

  failRun(run, error) {
    run.el.classList.remove("answering");
    run.el.classList.add("failed");
    run.el.appendChild(el("div", { cls: "run-error", text: `failed: ${error}` }));
  }

  // Structured context of a run: the keyword-tree descent and the knowledge-graph paths.
  setNotes(run, notes) {
    Object.assign(run.notes, notes);
    clear(run.notesEl);
    if (run.notes.keyword) run.notesEl.appendChild(keywordDiagram(run.notes.keyword));
    const paths = run.notes.graphPaths || [];
    if (paths.length) run.notesEl.appendChild(graphDiagram(paths, TreeView.onExplore));
    run.notesEl.hidden = !run.notesEl.firstChild;
  }

  setChunks(run, chunks) {
    clear(run.chunksEl);
    run.chunks.clear();
    this.addChunks(run, chunks);
  }

  // Structured finds judged after the hybrid hits join the run's list at its end.
  addChunks(run, chunks) {
    for (const chunk of chunks) {
      if (!run.chunks.has(chunk.chunk_id)) run.chunks.set(chunk.chunk_id, this.chunkItem(run, chunk));
    }
  }

  // A sub-tree below a run deeper than the root starts collapsed, with a count.
  childHolder(run) {
    if ((run.node.depth || 0) < 1) return { holder: el("div", { cls: "child" }), childEl: null };
    const summary = el("summary", { cls: "subtree-count", text: "sub-tree" });
    const details = el("details", { cls: "child subtree" }, [summary]);
    details.hidden = true;
    return { holder: details, childEl: details };
  }

  chunkItem(run, chunk) {
    const badge = el("span", { cls: "badge score-pending", text: "…", title: "waiting for the judge" });
    const reasonLine = el("span", { cls: "reason-line" });
    const title = chunk.title || basename(chunk.source) || chunk.chunk_id;
    const head = el("div", { cls: "chunk-head", attrs: { role: "button", tabindex: "0", "aria-expanded": "false" } }, [
      badge,
      textEl("span", "chunk-title", title),
      foundBy(chunk.found_by),
      reasonLine,
      el("span", {
        cls: "retrieval",
        text: chunk.retrieval_score != null ? Number(chunk.retrieval_score).toFixed(3) : "",
        title: `retrieval rank #${chunk.rank || "?"}, score`,
      }),
    ]);
    const { holder } = this.childHolder(run);
    const ref = {
      chunkId: chunk.chunk_id,
      source: chunk.source || "",
      badge,
      head,
      reasonLine,
      detail: el("div", { cls: "chunk-detail" }),
      reason: el("div", { cls: "reason" }),
      quote: el("blockquote", { cls: "quote" }),
      followup: el("div", { cls: "followup" }),
      text: el("div", { cls: "chunk-text" }),
      childEl: holder,
      loaded: false,
    };
    for (const part of [ref.reason, ref.quote, ref.followup, ref.text]) {
      part.hidden = true;
      ref.detail.appendChild(part);
    }
    ref.detail.hidden = true;
    ref.li = el("li", { cls: "chunk score-pending", attrs: { "data-chunk-id": chunk.chunk_id, "data-thread-id": run.node.thread_id } }, [
      head, ref.detail, holder,
    ]);
    head.addEventListener("click", () => this.toggle(ref));
    head.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.toggle(ref);
      }
    });
    run.chunksEl.appendChild(ref.li);
    return ref;
  }

  updateChunk(ref, fields) {
    if (fields.score !== undefined && fields.score !== null) {
      const score = Number(fields.score);
      for (const node of [ref.li, ref.badge]) {
        node.classList.remove("score-pending", "score-0", "score-1", "score-2");
        node.classList.add(`score-${score}`);
      }
      ref.badge.textContent = String(score);
      ref.badge.title = VERDICT[score] || "";
    }
    if (fields.error) {
      ref.li.classList.add("judge-error");
      this.show(ref.reason, `error: ${fields.error}`);
      ref.reasonLine.textContent = `error: ${shorten(fields.error, 90)}`;
    } else if (fields.reason) {
      this.show(ref.reason, fields.reason);
      ref.reasonLine.textContent = shorten(fields.reason, 90);
    }
    if (fields.quote) {
      this.show(ref.quote, fields.quote);
      ref.quoteText = fields.quote;
    }
    if (fields.cached) ref.li.classList.add("cached");
    if (fields.followup) this.show(ref.followup, `↳ ${fields.followup}`);
    if (fields.child_thread_id) {
      ref.li.classList.add("has-child");
      ref.followup.classList.add("asked");
    }
    // Why the follow-up got no sub-run (depth limit, budget, a duplicate…): style.css shows it.
    if (fields.not_asked) ref.followup.dataset.why = `: ${fields.not_asked}`;
  }

  show(node, text) {
    node.textContent = text;
    node.lang = /[\u3400-\u9fff]/.test(text) ? "zh" : "en";
    node.hidden = false;
  }

  async toggle(ref, open) {
    const willOpen = open === undefined ? ref.detail.hidden : open;
    ref.detail.hidden = !willOpen;
    ref.text.hidden = !willOpen;
    ref.head.setAttribute("aria-expanded", String(willOpen));
    ref.li.classList.toggle("expanded", willOpen);
    if (!willOpen || ref.loaded) return;
    ref.text.textContent = "loading…";
    try {
      const chunk = await getChunk(ref.chunkId);
      clear(ref.text);
      const open = el("button", { cls: "open-doc", text: "open document", attrs: { type: "button" } });
      // The page's document viewer (app.js) opens at this chunk, the judge's quote marked.
      open.addEventListener("click", () => document.dispatchEvent(new CustomEvent("open-document", {
        detail: { chunkId: ref.chunkId, quotes: ref.quoteText ? [ref.quoteText] : [] },
      })));
      ref.text.appendChild(el("div", { cls: "chunk-source" }, [
        document.createTextNode(`${chunk.source}  ·  chunk ${chunk.chunk_index}  `),
        open,
      ]));
      ref.text.appendChild(textEl("div", "chunk-body", chunk.text));
      ref.loaded = true;
      ref.li.classList.add("text-loaded");
    } catch (err) {
      ref.text.textContent = `could not load the chunk: ${err.message}`;
    }
  }

  // Verdicts that came from the judge cache (they cost no call).
  cachedCount() {
    return this.section.querySelectorAll(".chunk.cached").length;
  }

  // Scroll the tree pane (only it) to this turn's tree.
  reveal() {
    const pane = this.section.parentElement;
    if (!pane) return;
    pane.scrollTop += this.section.getBoundingClientRect().top - pane.getBoundingClientRect().top;
  }

  // The chunk a citation points at: the root run's chunk first, else any run's.
  findChunk(chunkId) {
    if (this.root && this.root.chunks.has(chunkId)) return this.root.chunks.get(chunkId);
    for (const run of this.runs.values()) if (run.chunks.has(chunkId)) return run.chunks.get(chunkId);
    return null;
  }

  // Mark the cited chunks and every run and chunk on the way to them from the root.
  markCited(chunkIds) {
    for (const node of this.section.querySelectorAll(".cited, .on-path")) node.classList.remove("cited", "on-path");
    for (const chunkId of chunkIds) {
      const ref = this.findChunk(chunkId);
      if (!ref) continue;
      ref.li.classList.add("cited");
      this.openPath(ref.li);
    }
  }

  openPath(node) {
    for (let up = node.parentElement; up && up !== this.body; up = up.parentElement) {
      if (up.matches(".chunk, .run")) up.classList.add("on-path");
      if (up.tagName === "DETAILS") up.open = true;
    }
  }

  queueCounts() {
    if (this.countsQueued) return;
    this.countsQueued = true;
    requestAnimationFrame(() => {
      this.countsQueued = false;
      this.updateCounts();
    });
  }

  updateCounts() {
    for (const details of this.section.querySelectorAll("details.subtree")) {
      const runs = details.querySelectorAll(".run").length;
      const chunks = details.querySelectorAll(".chunk").length;
      details.hidden = runs === 0;
      details.firstElementChild.textContent = `sub-tree: ${runs} run${runs === 1 ? "" : "s"}, ${chunks} chunk${chunks === 1 ? "" : "s"}`;
    }
    const runs = this.runs.size;
    const chunks = this.section.querySelectorAll(".chunk").length;
    this.size.textContent = runs ? `${runs} run${runs === 1 ? "" : "s"} · ${chunks} chunks` : "";
  }
}
