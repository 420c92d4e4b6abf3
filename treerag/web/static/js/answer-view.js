// The chat pane: the question as asked, the answer streaming in as plain text and then
// rendered as sanitized markdown with citations that preview their chunk and lead to it.
import { getChunk } from "./api.js";
import { renderMarkdown } from "./markdown.js";
import { $, basename, clear, copyButton, el, langOf, textEl } from "./dom.js";

// Scroll the chat to its end once per frame at most: reading scrollHeight forces a layout,
// and tokens can arrive many times a frame.
let scrollQueued = false;
export function scrollMessages() {
  if (scrollQueued) return;
  scrollQueued = true;
  requestAnimationFrame(() => {
    scrollQueued = false;
    const box = $("messages");
    box.scrollTop = box.scrollHeight;
  });
}

function hideHint() {
  const hint = $("empty-hint");
  if (hint) hint.hidden = true;
}

export function addHuman(text) {
  hideHint();
  $("messages").appendChild(el("div", { cls: "msg human" }, [
    el("div", { cls: "who", text: "You" }),
    textEl("div", "body", text),
  ]));
  scrollMessages();
}

// The preview shown while a citation is hovered or focused: its chunk's title and text.
const preview = {
  box: null,
  token: 0,
  show(button, chunkId) {
    if (!this.box) {
      this.box = el("div", { cls: "cite-preview", attrs: { role: "tooltip", id: "cite-preview" } });
      document.body.appendChild(this.box);
    }
    const token = ++this.token;
    const box = this.box;
    clear(box);
    box.appendChild(el("div", { cls: "preview-title", text: button.title || chunkId }));
    const body = el("div", { cls: "preview-body", text: "loading…" });
    box.appendChild(body);
    box.hidden = false;
    this.place(button);
    button.setAttribute("aria-describedby", "cite-preview");
    getChunk(chunkId).then(
      (chunk) => {
        if (token !== this.token) return;
        body.textContent = chunk.text.length > 700 ? `${chunk.text.slice(0, 700)}…` : chunk.text;
        body.lang = langOf(chunk.text);
        box.appendChild(el("div", { cls: "preview-source", text: `${basename(chunk.source)} · chunk ${chunk.chunk_index}` }));
        this.place(button);
      },
      (err) => {
        if (token === this.token) body.textContent = `could not load the chunk: ${err.message}`;
      },
    );
  },
  place(button) {
    const r = button.getBoundingClientRect();
    const w = Math.min(420, window.innerWidth - 16);
    this.box.style.width = `${w}px`;
    this.box.style.left = `${Math.max(8, Math.min(r.left, window.innerWidth - w - 8))}px`;
    const below = r.bottom + 6;
    const h = this.box.offsetHeight;
    this.box.style.top = `${below + h > window.innerHeight && r.top > h + 6 ? r.top - h - 6 : below}px`;
  },
  hide() {
    this.token += 1;
    if (this.box) this.box.hidden = true;
  },
};

export class TurnView {
  constructor(turnNo, { onCite, onOpenDoc }) {
    hideHint();
    this.no = turnNo;
    this.tokens = 0;
    this.finalized = false;
    this.failed = false;
    this.raw = "";
    this.onCite = onCite;
    this.onOpenDoc = onOpenDoc;
    this.answerEl = el("div", { cls: "answer", attrs: { "data-tokens": "0" } });
    this.subrunsEl = el("div", { cls: "subruns" }, [el("div", { cls: "subruns-title", text: "Sub-run answers" })]);
    this.subrunsEl.hidden = true;
    this.subruns = new Map();
    this.sourcesEl = el("ol", { cls: "sources" });
    this.metaEl = el("div", { cls: "meta" });
    // What the run had to work around (a failed model, a store it could not read).
    this.noticeEl = el("div", { cls: "answer-notice", attrs: { role: "note" } });
    this.noticeEl.hidden = true;
    this.copy = copyButton("copy", () => this.raw, "Copy the answer as markdown");
    this.copy.hidden = true;
    this.el = el("div", { cls: "msg ai streaming", attrs: { "data-turn": turnNo, "aria-busy": "true" } }, [
      el("div", { cls: "who" }, [document.createTextNode("treerag"), this.copy]),
      this.answerEl,
      this.noticeEl,
      this.sourcesEl,
      this.subrunsEl,
      this.metaEl,
    ]);
    $("messages").appendChild(this.el);
    scrollMessages();
  }

  // One streamed token of the root answer: appended as text, so it shows as it comes.
  token(text) {
    this.answerEl.appendChild(document.createTextNode(text));
    this.tokens += 1;
    this.answerEl.dataset.tokens = String(this.tokens);
    scrollMessages();
  }

  subrunToken(ev, label) {
    let block = this.subruns.get(ev.thread_id);
    if (!block) {
      block = el("div", { cls: "subrun-text" });
      this.subrunsEl.appendChild(el("div", { cls: "subrun", attrs: { "data-thread-id": ev.thread_id } }, [
        textEl("div", "subrun-head", label),
        block,
      ]));
      this.subrunsEl.hidden = false;
      this.subruns.set(ev.thread_id, block);
    }
    block.appendChild(document.createTextNode(ev.text));
  }

  citeButton(citation) {
    const button = el("button", {
      cls: "cite",
      text: `[${citation.n}]`,
      title: citation.title || basename(citation.source) || citation.chunk_id,
      attrs: { type: "button", "data-chunk-id": citation.chunk_id, "data-n": citation.n },
    });
    // A citation leads to its chunk twice: marked in the search tree (where the judge's
    // reason is), and open in the document viewer at that chunk, its quoted sentences marked.
    button.addEventListener("click", () => {
      preview.hide();
      this.onCite(citation.chunk_id);
      if (this.onOpenDoc) this.onOpenDoc(citation.chunk_id, citation.n);
    });
    button.addEventListener("mouseenter", () => preview.show(button, citation.chunk_id));
    button.addEventListener("focus", () => preview.show(button, citation.chunk_id));
    button.addEventListener("mouseleave", () => preview.hide());
    button.addEventListener("blur", () => preview.hide());
    return button;
  }

  // The cited file's name: opens the document viewer at the cited chunk.
  openButton(citation) {
    const button = el("button", {
      cls: "source-path source-open",
      text: basename(citation.source),
      title: `Open ${citation.source} at the cited passage`,
      attrs: { type: "button", "data-chunk-id": citation.chunk_id },
    });
    button.addEventListener("click", () => this.onOpenDoc && this.onOpenDoc(citation.chunk_id, citation.n));
    return button;
  }

  // The finished answer as sanitized markdown, `[n]` linked to its chunk.
  render(text, citations) {
    this.raw = text;
    const byN = new Map((citations || []).map((c) => [Number(c.n), c]));
    clear(this.answerEl);
    this.answerEl.classList.add("markdown");
    this.answerEl.lang = langOf(text);
    this.answerEl.appendChild(renderMarkdown(text, (n, raw) => {
      const citation = byN.get(n);
      return citation ? this.citeButton(citation) : document.createTextNode(raw);
    }));
    clear(this.sourcesEl);
    for (const citation of citations || []) {
      this.sourcesEl.appendChild(el("li", {}, [
        this.citeButton(citation),
        textEl("span", "source-title", ` ${citation.title || ""}`),
        this.openButton(citation),
      ]));
    }
    this.copy.hidden = !text;
  }

  finalize(text, meta) {
    this.finalized = true;
    this.el.classList.remove("streaming");
    this.el.setAttribute("aria-busy", "false");
    this.render(text, meta.citations || []);
    this.meta = meta;
    this.noticeEl.textContent = meta.notice || "";
    this.noticeEl.hidden = !meta.notice;
    if (meta.notice) this.noticeEl.lang = langOf(meta.notice);
    this.showCost();
  }

  // What the turn cost: LLM calls over the whole search tree, or the offline reasoner's
  // steps (no LLM at all), and the verdicts the judge cache gave for free (a question asked
  // again costs only its answer).
  showCost(cached = 0) {
    const meta = this.meta || {};
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const offline = String(meta.reasoner || "").startsWith("offline");
    const parts = [];
    if (offline) parts.push("offline reasoner, no LLM");
    else if (meta.reasoner) parts.push(meta.reasoner);
    if (meta.llm_calls !== undefined) parts.push(plural(meta.llm_calls, offline ? "reasoner step" : "LLM call"));
    if (cached) parts.push(`${plural(cached, "verdict")} from the judge cache`);
    this.metaEl.textContent = parts.join(" · ");
  }

  fail(message) {
    this.failed = true;
    this.el.classList.remove("streaming");
    this.el.setAttribute("aria-busy", "false");
    this.el.classList.add("failed");
    this.el.appendChild(el("div", { cls: "error", text: message, attrs: { role: "alert" } }));
  }
}
