// treerag chat page: streams runs of the `chat` graph from the LangGraph API (same origin),
// draws each turn's search tree as its events arrive, and manages the documents.
//
// Modules by concern: api (stream client), conversations (the list), answer-view (chat
// pane), tree-view + diagrams (search tree), documents, settings; this one wires them.
import { fetchJSON, streamRun } from "./api.js";
import { addHuman, scrollMessages, TurnView } from "./answer-view.js";
import { Conversations } from "./conversations.js";
import { citedSentences, DocViewer } from "./doc-viewer.js";
import { Documents } from "./documents.js";
import { GraphExplorer } from "./graph-explorer.js";
import { $, el, langOf, setStatus, textOf } from "./dom.js";
import { RunSettings } from "./settings.js";
import { TreeView } from "./tree-view.js";

const SUBRUN_TOGGLE_KEY = "treerag.showSubruns";
const app = { threadId: null, busy: false, turns: [], messageCount: 0 };

const settings = new RunSettings();
const documents = new Documents();
let viewer = null; // made in init(), once the page is there

// The questions of this conversation whose answers cite `source`, but turn `except`'s.
function citingQuestions(source, except) {
  return app.turns
    .filter((t) => t.no !== except && ((t.view.meta && t.view.meta.citations) || []).some((c) => c.source === source))
    .map((t) => t.question);
}
const conversations = new Conversations({
  onOpen: (threadId) => openThread(threadId),
  onDeleted: () => newChat(),
  isBusy: () => app.busy,
});

function setBusy(busy) {
  app.busy = busy;
  document.body.dataset.busy = busy ? "1" : "0";
  $("send").disabled = busy;
  $("new-chat").disabled = busy;
}

// In one column (narrow screens) the answer, not the tree below it, is what a question
// leads to; the tree is one tap away (the header's Tree button).
const ONE_COLUMN = window.matchMedia("(max-width: 900px)");

// A question asked before any document is in: said on the page, with the way to add some.
const NO_DOCUMENTS = {
  en: ["No documents yet: add some with ", "Documents", " (or drop files on the page), then ask again."],
  zh: ["还没有文档：先用 ", "Documents", " 添加（或把文件拖到页面上），再提问。"],
};

function sayNoDocuments(question) {
  const [before, button, after] = NO_DOCUMENTS[langOf(question)];
  const open = el("button", { cls: "link-button", text: button, attrs: { type: "button" } });
  open.addEventListener("click", () => documents.open());
  $("empty-hint").hidden = true;
  $("messages").appendChild(el("div", { cls: "msg ai notice", attrs: { role: "note" } }, [
    el("span", { text: before }), open, el("span", { text: after }),
  ]));
  scrollMessages();
}

function keepAnswerInView() {
  if (ONE_COLUMN.matches) document.querySelector(".chat-pane").scrollIntoView({ block: "start" });
}

// ---------------------------------------------------------------- turns
function newTurn(question) {
  const no = app.turns.length + 1;
  const turn = { no, question, tree: new TreeView(no, question) };
  turn.view = new TurnView(no, {
    onCite: (chunkId) => focusChunk(turn, chunkId),
    onOpenDoc: (chunkId, n) => viewer.open(chunkId, citedSentences(turn.view.raw, n), (source) => citingQuestions(source, no)),
  });
  $("trees").appendChild(turn.tree.section);
  app.turns.push(turn);
  turn.tree.reveal(); // the new turn's tree, not the first one's, is what the pane shows
  return turn;
}

function finalizeTurn(turn, text, meta) {
  if (meta.error) {
    // A failed turn's reply: its text only restates the error, shown as such.
    turn.view.fail(`run failed: ${meta.error}`);
    if (meta.tree_thread_id && !turn.tree.treeId) turn.tree.setId(meta.tree_thread_id);
    return;
  }
  turn.view.finalize(text, meta);
  if (meta.tree_thread_id && !turn.tree.treeId) turn.tree.setId(meta.tree_thread_id);
  turn.citations = (meta.citations || []).map((c) => c.chunk_id);
  turn.tree.markCited(turn.citations);
  turn.view.showCost(turn.tree.cachedCount());
}

// The cited chunk: scroll the tree to it, highlight it and show its text.
function focusChunk(turn, chunkId) {
  const ref = turn.tree.findChunk(chunkId);
  if (!ref) {
    setStatus(`that chunk is not in this turn's tree`);
    return;
  }
  for (const node of document.querySelectorAll(".chunk.highlight")) node.classList.remove("highlight");
  turn.tree.openPath(ref.li);
  ref.li.classList.add("highlight");
  ref.head.scrollIntoView({ block: "center" });
  turn.tree.toggle(ref, true);
}

function onCustom(turn, ev) {
  if (!ev || typeof ev !== "object") return;
  if (ev.event === "token") {
    if ((ev.depth || 0) === 0) {
      turn.view.token(ev.text);
    } else {
      const run = turn.tree.runs.get(ev.thread_id);
      turn.view.subrunToken(ev, `depth ${ev.depth} · ${run ? run.node.question : ""}`);
    }
    return;
  }
  turn.tree.apply(ev);
  if (ev.event === "answer_finished" && (ev.depth || 0) === 0) {
    turn.view.render(ev.answer || "", ev.citations || []);
    turn.tree.markCited((ev.citations || []).map((c) => c.chunk_id));
  }
  setStatus(`running · ${turn.tree.runs.size} run(s)`);
}

function onValues(turn, values) {
  const messages = (values && values.messages) || [];
  const last = messages[messages.length - 1];
  if (!last || last.type !== "ai" || messages.length < turn.expectedMessages || turn.view.failed) return;
  app.messageCount = messages.length;
  finalizeTurn(turn, textOf(last), (last.additional_kwargs && last.additional_kwargs.treerag) || {});
}

function onStreamEvent(turn, event, data) {
  if (event === "custom") onCustom(turn, data);
  else if (event === "values") onValues(turn, data);
  else if (event === "error") turn.view.fail(`run failed: ${(data && (data.message || data.error)) || data}`);
}

// ---------------------------------------------------------------- asking
async function ask(question) {
  if (app.busy || !question.trim()) return;
  setBusy(true);
  setStatus("starting…");
  let turn = null;
  let created = null;
  try {
    if (app.threadId && conversations.sharedBy(app.threadId)) {
      // A teammate's shared thread is read-only: the question starts a chat of one's own.
      resetView();
      setThread(null);
    }
    if (!app.threadId && (await documents.count()) === 0) {
      sayNoDocuments(question); // nothing to search: no thread, no run
      setStatus("ready");
      return;
    }
    if (!app.threadId) {
      const thread = await fetchJSON("/threads", {
        method: "POST",
        body: { metadata: { graph_id: "chat", first_question: question } },
      });
      created = thread.thread_id;
      setThread(created);
      conversations.addPending(created, question);
    }
    addHuman(question);
    turn = newTurn(question);
    keepAnswerInView();
    turn.expectedMessages = app.messageCount + 2;
    await streamRun(app.threadId, question, settings.context(), (event, data) => onStreamEvent(turn, event, data));
    if (!turn.view.finalized && !turn.view.failed) turn.view.fail("the run ended without an answer");
    setStatus(turn.view.finalized ? "ready" : "failed");
  } catch (err) {
    if (turn) turn.view.fail(err.message);
    if (err.refused) await forgetRefusedTurn(turn, created);
    setStatus(`error: ${err.message}`);
  } finally {
    setBusy(false);
    conversations.load();
  }
}

// A run the server refused left nothing on the thread: the turn keeps its message but has
// no search tree, and a conversation created for it alone is deleted again.
async function forgetRefusedTurn(turn, created) {
  if (turn) {
    turn.tree.section.remove();
    app.turns.splice(app.turns.indexOf(turn), 1);
  }
  if (!created) return;
  conversations.pending.delete(created);
  setThread(null);
  try {
    await fetchJSON(`/threads/${encodeURIComponent(created)}`, { method: "DELETE" });
  } catch (_) {
    // an empty conversation left in the list is harmless
  }
}

// ---------------------------------------------------------------- threads
function setThread(threadId) {
  app.threadId = threadId;
  if (threadId) history.replaceState(null, "", `#thread=${encodeURIComponent(threadId)}`);
  else history.replaceState(null, "", location.pathname);
  conversations.setActive(threadId);
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

function newChat() {
  if (app.busy) return;
  resetView();
  setThread(null);
  setStatus("ready");
  $("question").focus();
}

async function loadTree(turn, treeId, { partial = false } = {}) {
  turn.tree.setId(treeId);
  turn.tree.notice("rebuilding the search tree…");
  try {
    turn.tree.load(await fetchJSON(`/ui/api/tree/${treeId.split("/").map(encodeURIComponent).join("/")}`));
    if (turn.citations) turn.tree.markCited(turn.citations);
    if (turn.view.finalized) turn.view.showCost(turn.tree.cachedCount());
  } catch (err) {
    const text = partial ? "no search tree was saved before the turn failed" : `the search tree could not be rebuilt: ${err.message}`;
    turn.tree.notice(text, partial ? "tree-notice" : "tree-notice error");
  }
}

// The errors of failed turns, by turn number: read from the checkpoints, where a node that
// raised left its error on its task.
async function turnErrors(threadId, snapshot) {
  const errors = new Map();
  const humansIn = (values) => ((values && values.messages) || []).filter((m) => m.type === "human").length;
  const note = (state) => {
    for (const task of state.tasks || []) {
      if (task.error && !errors.has(humansIn(state.values))) errors.set(humansIn(state.values), String(task.error));
    }
  };
  note(snapshot);
  try {
    for (const state of await fetchJSON(`/threads/${encodeURIComponent(threadId)}/history`, { method: "POST", body: { limit: 100 } })) note(state);
  } catch (_) {
    // the history is a nicety: the turn is still shown as failed
  }
  return errors;
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
    const failed = messages.filter((m, i) => m.type === "human" && !(messages[i + 1] && messages[i + 1].type === "ai"));
    const errors = failed.length ? await turnErrors(threadId, snapshot) : new Map();
    const loads = [];
    let humans = 0;
    messages.forEach((message, i) => {
      if (message.type === "human") {
        humans += 1;
        const question = textOf(message);
        addHuman(question);
        const turn = newTurn(question);
        const answer = messages[i + 1] && messages[i + 1].type === "ai" ? messages[i + 1] : null;
        if (answer) {
          const meta = (answer.additional_kwargs && answer.additional_kwargs.treerag) || {};
          finalizeTurn(turn, textOf(answer), meta);
          if (meta.tree_thread_id) loads.push(loadTree(turn, meta.tree_thread_id, { partial: Boolean(meta.error) }));
        } else {
          const error = errors.get(humans) || "no answer was saved for this question";
          turn.view.fail(`run failed: ${error}`);
          // A failed turn's partial tree sits under the id the turn would have had.
          loads.push(loadTree(turn, `${threadId}-t${humans}`, { partial: true }));
        }
      }
    });
    app.messageCount = messages.length;
    scrollMessages();
    await Promise.all(loads);
    if (app.turns.length) app.turns[app.turns.length - 1].tree.reveal();
    const owner = conversations.sharedBy(threadId);
    setStatus(owner ? `shared by ${owner} · read-only: a question starts a new chat` : "ready");
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
  $("new-chat").addEventListener("click", newChat);
  $("jump-tree").addEventListener("click", () => $("tree-pane").scrollIntoView({ block: "start" }));
  $("refresh-threads").addEventListener("click", () => conversations.load());
  documents.init();
  viewer = new DocViewer();
  const explorer = new GraphExplorer({ openPassage: (chunkId) => viewer.open(chunkId) });
  $("open-graph").addEventListener("click", () => explorer.open());
  TreeView.onExplore = (names) => explorer.openPath(names);
  document.addEventListener("open-document", (e) => viewer.open(e.detail.chunkId, e.detail.quotes));
  settings.load().then(() => documents.setFormats(settings.defaults.formats));
  conversations.load();
  const match = /thread=([^&]+)/.exec(location.hash);
  if (match) openThread(decodeURIComponent(match[1]));
  document.body.dataset.ready = "1";
}

init();
