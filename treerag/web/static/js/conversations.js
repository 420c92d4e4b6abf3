// The conversation list: the chat threads of the LangGraph API, newest first; open, rename
// (the thread's `title` metadata), delete; failed turns marked; a new chat listed at once.
// In a tenant that shares threads, teammates' chats are listed too, marked and read-only.
import { fetchJSON } from "./api.js";
import { $, armConfirm, clear, el, shorten, textEl } from "./dom.js";

const TITLE_CHARS = 48;

function humans(thread) {
  return ((thread.values && thread.values.messages) || []).filter((m) => m.type === "human");
}

function firstQuestion(thread) {
  const first = humans(thread)[0];
  const text = first ? first.content : (thread.metadata || {}).first_question;
  return Array.isArray(text) ? text.map((p) => p.text || "").join(" ") : String(text || "");
}

// A turn failed when its question has no answer after it (and the thread is not running).
export function failedTurns(thread) {
  if (thread.status === "busy") return 0;
  const messages = (thread.values && thread.values.messages) || [];
  let failed = 0;
  messages.forEach((m, i) => {
    const reply = messages[i + 1];
    if (m.type !== "human") return;
    if (!reply || reply.type !== "ai") failed += 1;
    else if (((reply.additional_kwargs || {}).treerag || {}).error) failed += 1;
  });
  return thread.status === "error" ? Math.max(failed, 1) : failed;
}

// Titles: the renamed title, else the first question shortened; where two shortened
// questions read the same, each keeps its start and shows where it differs from the others
// ("What did the harbour … who signed it?"); identical questions are numbered.
export function titles(threads) {
  const out = new Map();
  const byTitle = new Map();
  for (const t of threads) {
    const named = (t.metadata || {}).title;
    const question = firstQuestion(t).replace(/\s+/g, " ").trim();
    const title = named ? String(named) : question ? shorten(question, TITLE_CHARS) : "(empty conversation)";
    out.set(t.thread_id, title);
    if (!named && question) byTitle.set(title, [...(byTitle.get(title) || []), [t, question]]);
  }
  for (const [title, same] of byTitle) {
    if (same.length < 2) continue;
    const told = same.map(([, q]) => tellApart(q, same.map(([, other]) => other).filter((o) => o !== q)));
    same.forEach(([t], i) => {
      const twins = told.filter((x) => x === told[i]).length;
      const n = told.slice(0, i).filter((x) => x === told[i]).length;
      out.set(t.thread_id, twins > 1 ? `${told[i] === title ? title : told[i]} (${twins - n})` : told[i]);
    });
  }
  return out;
}

function commonPrefix(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

// The question's start, then its words from where it first differs from `others`.
function tellApart(question, others) {
  if (!others.length) return shorten(question, TITLE_CHARS);
  const at = Math.max(...others.map((o) => commonPrefix(question, o)));
  if (at >= question.length) return shorten(question, TITLE_CHARS);
  const wordStart = question.lastIndexOf(" ", at) + 1;
  const head = shorten(question.slice(0, wordStart), 26).replace(/…$/, "").trim();
  const tail = shorten(question.slice(wordStart), 24);
  return wordStart <= 26 ? shorten(question, TITLE_CHARS) : `${head} … ${tail}`;
}

export class Conversations {
  constructor({ onOpen, onDeleted, isBusy }) {
    this.list = $("thread-list");
    this.onOpen = onOpen;
    this.onDeleted = onDeleted;
    this.isBusy = isBusy;
    this.active = null;
    this.pending = new Map();
    this.me = null; // the signed-in user's name ("" in single-user local mode)
    this.owners = new Map();
  }

  // The owner of a listed thread when it is someone else's (a tenant's shared thread), else "".
  sharedBy(threadId) {
    const owner = this.owners.get(threadId) || "";
    return this.me && owner && owner !== this.me ? owner : "";
  }

  async whoami() {
    try {
      this.me = (await fetchJSON("/ui/api/me")).user || "";
    } catch (_) {
      this.me = ""; // an older server: every listed thread is the caller's own
    }
  }

  setActive(threadId) {
    this.active = threadId;
    for (const item of this.list.querySelectorAll(".thread")) {
      item.classList.toggle("active", item.dataset.threadId === threadId);
    }
  }

  // A chat just started: list it now, before its first checkpoint exists.
  addPending(threadId, question) {
    const thread = { thread_id: threadId, status: "busy", metadata: { first_question: question }, values: {} };
    this.pending.set(threadId, thread);
    const hint = this.list.querySelector(".hint");
    if (hint) hint.remove();
    this.list.prepend(this.item(thread, shorten(question, TITLE_CHARS)));
    this.setActive(threadId);
  }

  async load() {
    if (this.me === null) await this.whoami();
    let threads;
    try {
      threads = await fetchJSON("/threads/search", {
        method: "POST",
        body: {
          metadata: { graph_id: "chat" },
          limit: 100,
          sort_by: "created_at",
          sort_order: "desc",
          select: ["thread_id", "created_at", "updated_at", "values", "metadata", "status"],
        },
      });
    } catch (err) {
      clear(this.list);
      this.list.appendChild(el("li", { cls: "error", text: `cannot list conversations: ${err.message}` }));
      return;
    }
    const known = new Set(threads.map((t) => t.thread_id));
    for (const id of [...this.pending.keys()]) if (known.has(id)) this.pending.delete(id);
    const all = [...this.pending.values(), ...threads];
    for (const t of all) this.owners.set(t.thread_id, String((t.metadata || {}).owner || ""));
    const names = titles(all);
    clear(this.list);
    for (const thread of all) this.list.appendChild(this.item(thread, names.get(thread.thread_id)));
    if (!all.length) this.list.appendChild(el("li", { cls: "hint", text: "No conversations yet." }));
    this.setActive(this.active);
  }

  item(thread, title) {
    const turns = humans(thread).length;
    const failed = failedTurns(thread);
    const when = thread.updated_at ? new Date(thread.updated_at).toLocaleString() : "now";
    const open = el("button", { cls: "thread-item", attrs: { type: "button" }, title: firstQuestion(thread) || title }, [
      textEl("span", "thread-title", title),
      el("span", { cls: "thread-when" }, [
        document.createTextNode(thread.status === "busy" ? "running…" : `${when} · ${turns} turn${turns === 1 ? "" : "s"}`),
        failed ? el("span", { cls: "failed-mark", text: ` · ⚠ ${failed} failed`, title: "turns that ended in an error" }) : null,
      ]),
    ]);
    open.addEventListener("click", () => this.onOpen(thread.thread_id));
    const owner = this.sharedBy(thread.thread_id);
    if (owner) {
      // A teammate's thread: readable, not ours to rename or delete.
      open.appendChild(el("span", { cls: "shared-mark", text: `shared by ${owner} · read-only` }));
      return el("li", { cls: "thread shared", attrs: { "data-thread-id": thread.thread_id } }, [open]);
    }
    const rename = el("button", { cls: "icon rename", text: "✎", title: "Rename", attrs: { type: "button", "aria-label": `Rename ${title}` } });
    const remove = el("button", { cls: "icon delete", text: "✕", title: "Delete", attrs: { type: "button", "aria-label": `Delete ${title}` } });
    const li = el("li", { cls: `thread${failed ? " has-failed" : ""}`, attrs: { "data-thread-id": thread.thread_id } }, [open, rename, remove]);
    rename.addEventListener("click", () => this.rename(li, thread, title));
    remove.addEventListener("click", () => this.confirmDelete(li, remove, thread.thread_id));
    return li;
  }

  rename(li, thread, title) {
    const input = el("input", { cls: "rename-input", attrs: { type: "text", "aria-label": "New title", maxlength: 200 } });
    input.value = title;
    const form = el("form", { cls: "rename-form" }, [input]);
    li.replaceChildren(form);
    input.focus();
    input.select();
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      const value = input.value.trim();
      if (save && value && value !== title) {
        try {
          await fetchJSON(`/threads/${encodeURIComponent(thread.thread_id)}`, { method: "PATCH", body: { metadata: { title: value } } });
        } catch (err) {
          window.alert(`could not rename: ${err.message}`);
        }
      }
      await this.load();
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      finish(true);
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Escape") finish(false);
    });
    input.addEventListener("blur", () => finish(true));
  }

  // Delete asks once more in place: the button turns into a confirmation for a few seconds.
  async confirmDelete(li, button, threadId) {
    if (!button.classList.contains("confirm")) {
      armConfirm(button, "delete?", "✕");
      return;
    }
    if (this.isBusy() && threadId === this.active) return;
    try {
      await fetchJSON(`/threads/${encodeURIComponent(threadId)}`, { method: "DELETE" });
    } catch (err) {
      window.alert(`could not delete: ${err.message}`);
      return;
    }
    this.pending.delete(threadId);
    li.remove();
    if (threadId === this.active) this.onDeleted(threadId);
    await this.load();
  }
}
