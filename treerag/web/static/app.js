// treerag chat page: streams runs of the `chat` graph from the LangGraph API (same origin)
// and draws each turn's search tree as its events arrive.
//
// Document text is untrusted: every piece of data reaches the page through textContent or
// text nodes, never through HTML parsing.
"use strict";

(() => {
  const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
  const CITATION = /\[(\d+)\]/g;
  const SUBRUN_TOGGLE_KEY = "treerag.showSubruns";

  // ---------------------------------------------------------------- DOM helpers
  function el(tag, opts = {}, children = []) {
    const node = document.createElement(tag);
    if (opts.cls) node.className = opts.cls;
    if (opts.text !== undefined && opts.text !== null) node.textContent = String(opts.text);
    if (opts.title) node.title = String(opts.title);
    for (const [key, value] of Object.entries(opts.attrs || {})) {
      node.setAttribute(key, String(value));
    }
    for (const child of children) if (child) node.appendChild(child);
    return node;
  }

  function langOf(text) {
    return CJK.test(text || "") ? "zh" : "en";
  }

  function textEl(tag, cls, text) {
    const node = el(tag, { cls, text: text || "" });
    node.lang = langOf(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function basename(path) {
    const parts = String(path || "").split(/[\\/]/);
    return parts[parts.length - 1] || String(path || "");
  }

  function textOf(message) {
    const content = message && message.content;
    if (Array.isArray(content)) {
      return content.map((p) => (typeof p === "string" ? p : (p && p.text) || "")).join(" ");
    }
    return String(content || "");
  }

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- HTTP and SSE
  // A server with a users file wants `Authorization: Bearer <token>` on every request; the
  // token is asked for on the first 401 and kept for this tab only (sessionStorage).
  const TOKEN_KEY = "treerag.token";

  function authHeaders() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  function askToken() {
    const token = (window.prompt("This server needs your treerag token:") || "").trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
    return Boolean(token);
  }

  async function authedFetch(url, init) {
    let response = await fetch(url, { ...init, headers: { ...init.headers, ...authHeaders() } });
    if (response.status === 401 && askToken()) {
      response = await fetch(url, { ...init, headers: { ...init.headers, ...authHeaders() } });
    }
    return response;
  }

  async function fetchJSON(url, { method = "GET", body } = {}) {
    const init = { method, headers: { accept: "application/json" } };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await authedFetch(url, init);
    if (!response.ok) {
      let detail = "";
      try {
        const data = await response.json();
        detail = data.error || data.detail || data.message || "";
      } catch (_) {
        detail = response.statusText;
      }
      throw new Error(`${method} ${url}: HTTP ${response.status} ${detail}`);
    }
    return response.json();
  }

  // A Server-Sent Events parser (lines end in \n, \r or \r\n; events end at a blank line).
  class SSEParser {
    constructor(onEvent) {
      this.onEvent = onEvent;
      this.buffer = "";
      this.pendingCR = false;
      this.event = "";
      this.data = [];
    }

    feed(text) {
      if (this.pendingCR && text.startsWith("\n")) text = text.slice(1);
      this.pendingCR = text.endsWith("\r");
      const lines = (this.buffer + text).split(/\r\n|\r|\n/);
      this.buffer = lines.pop();
      for (const line of lines) this.line(line);
    }

    line(line) {
      if (line === "") return this.dispatch();
      if (line.startsWith(":")) return undefined;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") this.event = value;
      else if (field === "data") this.data.push(value);
      return undefined;
    }

    dispatch() {
      if (this.data.length) {
        const raw = this.data.join("\n");
        let data = raw;
        try {
          data = JSON.parse(raw);
        } catch (_) {
          // not JSON: hand the raw text on
        }
        this.onEvent(this.event || "message", data);
      }
      this.event = "";
      this.data = [];
    }

    end() {
      if (this.buffer) this.line(this.buffer);
      this.buffer = "";
      this.dispatch();
    }
  }

  async function streamRun(threadId, question, onEvent) {
    const url = `/threads/${encodeURIComponent(threadId)}/runs/stream`;
    const response = await authedFetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        assistant_id: "chat",
        input: { messages: [{ type: "human", content: question }] },
        stream_mode: ["custom", "values"],
      }),
    });
    if (!response.ok || !response.body) {
      throw new Error(`the run could not start: HTTP ${response.status} ${await response.text()}`);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder("utf-8");
    const parser = new SSEParser(onEvent);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    parser.end();
  }

  // ---------------------------------------------------------------- chunk text
  const chunkCache = new Map();

  function getChunk(chunkId) {
    if (!chunkCache.has(chunkId)) {
      const promise = fetchJSON(`/ui/api/chunk/${encodeURIComponent(chunkId)}`);
      promise.catch(() => chunkCache.delete(chunkId));
      chunkCache.set(chunkId, promise);
    }
    return chunkCache.get(chunkId);
  }

  // ---------------------------------------------------------------- the search tree
  // One TreeView per chat turn. It folds the custom stream events exactly like
  // treerag.search_tree.TreeFold, and loads the same structure rebuilt by the server.
  class TreeView {
    constructor(turnNo, question) {
      this.runs = new Map();
      this.root = null;
      this.body = el("div", { cls: "tree-body" });
      this.section = el("section", { cls: "tree-turn", attrs: { "data-turn": turnNo } }, [
        el("h3", { cls: "tree-title" }, [
          el("span", { cls: "turn-no", text: `Turn ${turnNo}` }),
          textEl("span", "turn-question", question),
        ]),
        this.body,
      ]);
    }

    setId(treeId) {
      this.treeId = treeId;
      this.section.dataset.treeId = treeId;
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
        case "chunk_judged":
        case "subrun_started":
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
        default:
          break;
      }
    }

    startRun(ev) {
      const node = { thread_id: ev.thread_id, question: ev.question, depth: ev.depth || 0 };
      const parent = this.runs.get(ev.parent_thread_id || "");
      if (!parent && this.root) return; // not part of this tree
      const holder = parent && parent.chunks.get(ev.parent_chunk_id);
      const run = this.addRun(node, holder ? holder.childEl : this.body);
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
    }

    loadRun(node, container) {
      const run = this.addRun(node, container);
      this.setChunks(run, node.chunks || []);
      for (const chunk of node.chunks || []) {
        const ref = run.chunks.get(chunk.chunk_id);
        this.updateChunk(ref, chunk);
        if (chunk.child) {
          ref.li.classList.add("child-done");
          this.loadRun(chunk.child, ref.childEl);
        }
      }
      if (node.graph_paths && node.graph_paths.length) this.setNotes(run, { graphPaths: node.graph_paths });
      if (node.keyword) this.setNotes(run, { keyword: node.keyword });
      if (node.answer) this.finishRun(run, node.answer);
      return run;
    }

    addRun(node, container) {
      const depth = node.depth || 0;
      const chunksEl = el("ul", { cls: "chunks" });
      const answerEl = el("div", { cls: "run-answer" });
      answerEl.hidden = true;
      const notesEl = el("div", { cls: "run-notes" });
      notesEl.hidden = true;
      const runEl = el("div", { cls: `run depth-${Math.min(depth, 4)}`, attrs: { "data-thread-id": node.thread_id } }, [
        el("div", { cls: "run-question" }, [
          el("span", { cls: "run-depth", text: depth === 0 ? "Q" : `depth ${depth}` }),
          textEl("span", "run-text", node.question),
          el("span", { cls: "run-id", text: node.thread_id }),
        ]),
        chunksEl,
        notesEl,
        answerEl,
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

    // Structured context of a run: the keyword-tree descent and the knowledge-graph paths.
    setNotes(run, notes) {
      Object.assign(run.notes, notes);
      clear(run.notesEl);
      const keyword = run.notes.keyword;
      if (keyword) {
        const trail = (keyword.path || []).map(String).join(" › ");
        const text = [keyword.status, trail].filter(Boolean).join(": ");
        run.notesEl.appendChild(el("div", { cls: "note keyword" }, [
          el("span", { cls: "note-label", text: "keyword tree " }),
          textEl("span", "note-text", text),
          keyword.reason ? textEl("div", "note-reason", keyword.reason) : null,
        ]));
      }
      const paths = run.notes.graphPaths || [];
      if (paths.length) {
        const list = el("ul", { cls: "graph-paths" });
        for (const p of paths) {
          list.appendChild(el("li", {}, [
            textEl("span", "graph-path", p.path),
            el("span", { cls: "graph-score", text: p.score != null ? ` ${Number(p.score).toFixed(2)}` : "" }),
          ]));
        }
        run.notesEl.appendChild(el("div", { cls: "note graph" }, [
          el("span", { cls: "note-label", text: "knowledge graph paths" }),
          list,
        ]));
      }
      run.notesEl.hidden = !run.notesEl.firstChild;
    }

    setChunks(run, chunks) {
      clear(run.chunksEl);
      run.chunks.clear();
      for (const chunk of chunks) run.chunks.set(chunk.chunk_id, this.chunkItem(run, chunk));
    }

    chunkItem(run, chunk) {
      const badge = el("span", { cls: "badge score-pending", text: "…", title: "waiting for the judge" });
      const head = el("div", { cls: "chunk-head", attrs: { role: "button", tabindex: "0", "aria-expanded": "false" } }, [
        badge,
        el("span", { cls: "rank", text: `#${chunk.rank || "?"}` }),
        textEl("span", "chunk-title", chunk.title || basename(chunk.source) || chunk.chunk_id),
        el("span", { cls: "retrieval", text: chunk.retrieval_score != null ? Number(chunk.retrieval_score).toFixed(4) : "", title: "retrieval score" }),
      ]);
      const ref = {
        chunkId: chunk.chunk_id,
        source: chunk.source || "",
        badge,
        head,
        reason: el("div", { cls: "reason" }),
        quote: el("blockquote", { cls: "quote" }),
        followup: el("div", { cls: "followup" }),
        text: el("div", { cls: "chunk-text" }),
        childEl: el("div", { cls: "child" }),
        loaded: false,
      };
      for (const part of [ref.reason, ref.quote, ref.followup, ref.text]) part.hidden = true;
      ref.li = el("li", { cls: "chunk score-pending", attrs: { "data-chunk-id": chunk.chunk_id, "data-thread-id": run.node.thread_id } }, [
        head, ref.reason, ref.quote, ref.followup, ref.text, ref.childEl,
      ]);
      head.addEventListener("click", () => this.toggleText(ref));
      head.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          this.toggleText(ref);
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
        ref.badge.title = ["irrelevant", "partial", "sufficient"][score] || "";
      }
      if (fields.error) {
        ref.li.classList.add("judge-error");
        this.show(ref.reason, `error: ${fields.error}`);
      } else if (fields.reason) {
        this.show(ref.reason, fields.reason);
      }
      if (fields.quote) this.show(ref.quote, fields.quote);
      if (fields.cached) ref.li.classList.add("cached");
      if (fields.followup) this.show(ref.followup, `↳ ${fields.followup}`);
      if (fields.child_thread_id) {
        ref.li.classList.add("has-child");
        ref.followup.classList.add("asked");
      }
    }

    show(node, text) {
      node.textContent = text;
      node.lang = langOf(text);
      node.hidden = false;
    }

    async toggleText(ref, open) {
      const willOpen = open === undefined ? ref.text.hidden : open;
      ref.text.hidden = !willOpen;
      ref.head.setAttribute("aria-expanded", String(willOpen));
      ref.li.classList.toggle("expanded", willOpen);
      if (!willOpen || ref.loaded) return;
      ref.text.textContent = "loading…";
      try {
        const chunk = await getChunk(ref.chunkId);
        clear(ref.text);
        ref.text.appendChild(el("div", { cls: "chunk-source", text: `${chunk.source}  ·  chunk ${chunk.chunk_index}` }));
        ref.text.appendChild(textEl("div", "chunk-body", chunk.text));
        ref.loaded = true;
        ref.li.classList.add("text-loaded");
      } catch (err) {
        ref.text.textContent = `could not load the chunk: ${err.message}`;
      }
    }

    // The chunk a citation points at: the root run's chunk first, else any run's.
    findChunk(chunkId) {
      if (this.root && this.root.chunks.has(chunkId)) return this.root.chunks.get(chunkId);
      for (const run of this.runs.values()) if (run.chunks.has(chunkId)) return run.chunks.get(chunkId);
      return null;
    }
  }

  // ---------------------------------------------------------------- chat turns
  const app = { threadId: null, busy: false, turns: [], messageCount: 0 };

  function scrollMessages() {
    const box = $("messages");
    box.scrollTop = box.scrollHeight;
  }

  function hideHint() {
    const hint = $("empty-hint");
    if (hint) hint.hidden = true;
  }

  function addHuman(text) {
    hideHint();
    $("messages").appendChild(el("div", { cls: "msg human" }, [
      el("div", { cls: "who", text: "You" }),
      textEl("div", "body", text),
    ]));
    scrollMessages();
  }

  function newTurn(question) {
    hideHint();
    const turnNo = app.turns.length + 1;
    const turn = {
      no: turnNo,
      tokens: 0,
      finalized: false,
      answerEl: el("div", { cls: "answer", attrs: { "data-tokens": "0" } }),
      subrunsEl: el("div", { cls: "subruns" }),
      subruns: new Map(),
      sourcesEl: el("ol", { cls: "sources" }),
      metaEl: el("div", { cls: "meta" }),
      tree: new TreeView(turnNo, question),
    };
    turn.subrunsEl.appendChild(el("div", { cls: "subruns-title", text: "Sub-run answers" }));
    turn.subrunsEl.hidden = true;
    turn.msgEl = el("div", { cls: "msg ai streaming", attrs: { "data-turn": turnNo } }, [
      el("div", { cls: "who", text: "treerag" }),
      turn.answerEl,
      turn.sourcesEl,
      turn.subrunsEl,
      turn.metaEl,
    ]);
    $("messages").appendChild(turn.msgEl);
    $("trees").appendChild(turn.tree.section);
    app.turns.push(turn);
    scrollMessages();
    return turn;
  }

  function citeButton(turn, citation) {
    const button = el("button", {
      cls: "cite",
      text: `[${citation.n}]`,
      title: citation.title || citation.source || citation.chunk_id,
      attrs: { type: "button", "data-chunk-id": citation.chunk_id, "data-n": citation.n },
    });
    button.addEventListener("click", () => focusChunk(turn, citation.chunk_id));
    return button;
  }

  function renderAnswer(turn, text, citations) {
    const byN = new Map((citations || []).map((c) => [Number(c.n), c]));
    const box = turn.answerEl;
    clear(box);
    box.lang = langOf(text);
    let last = 0;
    for (const match of text.matchAll(CITATION)) {
      if (match.index > last) box.appendChild(document.createTextNode(text.slice(last, match.index)));
      const citation = byN.get(Number(match[1]));
      box.appendChild(citation ? citeButton(turn, citation) : document.createTextNode(match[0]));
      last = match.index + match[0].length;
    }
    if (last < text.length) box.appendChild(document.createTextNode(text.slice(last)));
    clear(turn.sourcesEl);
    for (const citation of citations || []) {
      turn.sourcesEl.appendChild(el("li", {}, [
        citeButton(turn, citation),
        textEl("span", "source-title", ` ${citation.title || ""}`),
        el("span", { cls: "source-path", text: ` ${basename(citation.source)}`, title: citation.source }),
      ]));
    }
  }

  function finalizeTurn(turn, text, meta) {
    turn.finalized = true;
    turn.msgEl.classList.remove("streaming");
    renderAnswer(turn, text, meta.citations || []);
    const parts = [];
    if (meta.reasoner) parts.push(meta.reasoner);
    if (meta.llm_calls !== undefined) parts.push(`${meta.llm_calls} LLM calls`);
    if (meta.tree_thread_id) parts.push(`tree ${meta.tree_thread_id}`);
    turn.metaEl.textContent = parts.join(" · ");
    if (meta.tree_thread_id && !turn.tree.treeId) turn.tree.setId(meta.tree_thread_id);
  }

  function showError(turn, message) {
    turn.msgEl.classList.remove("streaming");
    turn.msgEl.classList.add("failed");
    turn.msgEl.appendChild(el("div", { cls: "error", text: message }));
  }

  function onToken(turn, ev) {
    if ((ev.depth || 0) === 0) {
      turn.answerEl.appendChild(document.createTextNode(ev.text));
      turn.tokens += 1;
      turn.answerEl.dataset.tokens = String(turn.tokens);
      scrollMessages();
      return;
    }
    let block = turn.subruns.get(ev.thread_id);
    if (!block) {
      const run = turn.tree.runs.get(ev.thread_id);
      const label = `depth ${ev.depth} · ${run ? run.node.question : ev.thread_id}`;
      block = { text: el("div", { cls: "subrun-text" }) };
      turn.subrunsEl.appendChild(el("div", { cls: "subrun", attrs: { "data-thread-id": ev.thread_id } }, [
        textEl("div", "subrun-head", label),
        block.text,
      ]));
      turn.subrunsEl.hidden = false;
      turn.subruns.set(ev.thread_id, block);
    }
    block.text.appendChild(document.createTextNode(ev.text));
  }

  function onCustom(turn, ev) {
    if (!ev || typeof ev !== "object") return;
    if (ev.event === "token") {
      onToken(turn, ev);
      return;
    }
    turn.tree.apply(ev);
    if (ev.event === "answer_finished" && (ev.depth || 0) === 0) {
      renderAnswer(turn, ev.answer || "", ev.citations || []);
    }
    setStatus(`running · ${turn.tree.runs.size} run(s)`);
  }

  function onValues(turn, values) {
    const messages = (values && values.messages) || [];
    const last = messages[messages.length - 1];
    if (!last || last.type !== "ai" || messages.length < turn.expectedMessages) return;
    app.messageCount = messages.length;
    finalizeTurn(turn, textOf(last), (last.additional_kwargs && last.additional_kwargs.treerag) || {});
  }

  function handleStreamEvent(turn, event, data) {
    if (event === "custom") onCustom(turn, data);
    else if (event === "values") onValues(turn, data);
    else if (event === "error") showError(turn, `run failed: ${(data && (data.message || data.error)) || data} (details are in the server log)`);
  }

  // The cited chunk: scroll the tree to it, highlight it and show its text.
  function focusChunk(turn, chunkId) {
    const ref = turn.tree.findChunk(chunkId);
    if (!ref) {
      setStatus(`chunk ${chunkId} is not in this turn's tree`);
      return;
    }
    for (const node of document.querySelectorAll(".chunk.highlight")) node.classList.remove("highlight");
    ref.li.classList.add("highlight");
    ref.head.scrollIntoView({ block: "center" });
    turn.tree.toggleText(ref, true);
  }

  // ---------------------------------------------------------------- status and busy state
  function setStatus(text) {
    $("status").textContent = text;
  }

  function setBusy(busy) {
    app.busy = busy;
    document.body.dataset.busy = busy ? "1" : "0";
    $("send").disabled = busy;
    $("new-chat").disabled = busy;
  }

  // ---------------------------------------------------------------- asking
  async function ask(question) {
    if (app.busy || !question.trim()) return;
    setBusy(true);
    setStatus("starting…");
    let turn = null;
    try {
      if (!app.threadId) {
        const thread = await fetchJSON("/threads", { method: "POST", body: {} });
        setThread(thread.thread_id);
      }
      addHuman(question);
      turn = newTurn(question);
      turn.expectedMessages = app.messageCount + 2;
      await streamRun(app.threadId, question, (event, data) => handleStreamEvent(turn, event, data));
      if (!turn.finalized && !turn.msgEl.classList.contains("failed")) {
        showError(turn, "the run ended without an answer");
      }
      setStatus(turn.finalized ? "ready" : "failed");
    } catch (err) {
      if (turn) showError(turn, err.message);
      setStatus(`error: ${err.message}`);
    } finally {
      setBusy(false);
      loadThreads();
    }
  }

  // ---------------------------------------------------------------- threads
  function setThread(threadId) {
    app.threadId = threadId;
    if (threadId) history.replaceState(null, "", `#thread=${encodeURIComponent(threadId)}`);
    else history.replaceState(null, "", location.pathname);
    for (const item of document.querySelectorAll(".thread-item")) {
      item.classList.toggle("active", item.dataset.threadId === threadId);
    }
  }

  function resetView() {
    for (const id of ["messages", "trees"]) {
      for (const node of Array.from($(id).children)) if (node.id !== "empty-hint") node.remove();
    }
    const hint = $("empty-hint");
    if (hint) hint.hidden = false;
    app.turns = [];
    app.messageCount = 0;
  }

  function threadTitle(thread) {
    const messages = (thread.values && thread.values.messages) || [];
    const first = messages.find((m) => m.type === "human");
    return first ? textOf(first) : "(empty conversation)";
  }

  async function loadThreads() {
    const list = $("thread-list");
    let threads;
    try {
      threads = await fetchJSON("/threads/search", {
        method: "POST",
        body: {
          metadata: { graph_id: "chat" },
          limit: 50,
          sort_by: "updated_at",
          sort_order: "desc",
          select: ["thread_id", "updated_at", "values"],
        },
      });
    } catch (err) {
      clear(list);
      list.appendChild(el("li", { cls: "error", text: `cannot list conversations: ${err.message}` }));
      return;
    }
    clear(list);
    for (const thread of threads) {
      const title = threadTitle(thread);
      const turns = ((thread.values && thread.values.messages) || []).filter((m) => m.type === "human").length;
      const when = thread.updated_at ? new Date(thread.updated_at).toLocaleString() : "";
      const item = el("button", {
        cls: "thread-item",
        attrs: { type: "button", "data-thread-id": thread.thread_id },
        title: thread.thread_id,
      }, [
        textEl("span", "thread-title", title),
        el("span", { cls: "thread-when", text: `${when} · ${turns} turn(s)` }),
      ]);
      item.classList.toggle("active", thread.thread_id === app.threadId);
      item.addEventListener("click", () => openThread(thread.thread_id));
      list.appendChild(el("li", {}, [item]));
    }
    if (!threads.length) list.appendChild(el("li", { cls: "hint", text: "No conversations yet." }));
  }

  async function loadTree(turn, treeId) {
    turn.tree.setId(treeId);
    turn.tree.notice("rebuilding the search tree…");
    try {
      turn.tree.load(await fetchJSON(`/ui/api/tree/${treeId.split("/").map(encodeURIComponent).join("/")}`));
    } catch (err) {
      turn.tree.notice(`the search tree could not be rebuilt: ${err.message}`, "tree-notice error");
    }
  }

  async function openThread(threadId) {
    if (app.busy) return;
    setBusy(true);
    setStatus("opening the conversation…");
    try {
      const snapshot = await fetchJSON(`/threads/${encodeURIComponent(threadId)}/state`);
      resetView();
      setThread(threadId);
      const messages = (snapshot.values && snapshot.values.messages) || [];
      const loads = [];
      let lastQuestion = "";
      for (const message of messages) {
        if (message.type === "human") {
          lastQuestion = textOf(message);
          addHuman(lastQuestion);
        } else if (message.type === "ai") {
          const meta = (message.additional_kwargs && message.additional_kwargs.treerag) || {};
          const turn = newTurn(meta.question || lastQuestion);
          finalizeTurn(turn, textOf(message), meta);
          if (meta.tree_thread_id) loads.push(loadTree(turn, meta.tree_thread_id));
        }
      }
      app.messageCount = messages.length;
      await Promise.all(loads);
      setStatus("ready");
    } catch (err) {
      setStatus(`error: ${err.message}`);
    } finally {
      setBusy(false);
    }
  }

  // ---------------------------------------------------------------- wiring
  function applySubrunToggle(on) {
    document.body.classList.toggle("show-subruns", on);
    $("show-subruns").checked = on;
  }

  function init() {
    let stored = null;
    try {
      stored = localStorage.getItem(SUBRUN_TOGGLE_KEY);
    } catch (_) {
      stored = null;
    }
    applySubrunToggle(stored === "1");
    $("show-subruns").addEventListener("change", (e) => {
      applySubrunToggle(e.target.checked);
      try {
        localStorage.setItem(SUBRUN_TOGGLE_KEY, e.target.checked ? "1" : "0");
      } catch (_) {
        // storage unavailable: the toggle still works for this page
      }
    });
    $("ask-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const box = $("question");
      const question = box.value;
      if (!question.trim() || app.busy) return;
      box.value = "";
      ask(question);
    });
    $("question").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        $("ask-form").requestSubmit();
      }
    });
    $("new-chat").addEventListener("click", () => {
      if (app.busy) return;
      resetView();
      setThread(null);
      setStatus("ready");
      $("question").focus();
    });
    $("refresh-threads").addEventListener("click", loadThreads);
    loadThreads();
    const match = /thread=([^&]+)/.exec(location.hash);
    if (match) openThread(decodeURIComponent(match[1]));
  }

  document.addEventListener("DOMContentLoaded", init);
})();
