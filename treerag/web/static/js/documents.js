// The documents panel: the ingested documents (source, chunks, when), uploads with live
// progress per file and per chunk batch (the server's NDJSON stream), skipped files with
// their reason, delete, and a rebuild of stores a delete left stale.
import { authedFetch, errorDetail, fetchJSON, forgetChunks, readNDJSON } from "./api.js";
import { $, armConfirm, basename, clear, el, humanSize, setStatus } from "./dom.js";

const STORE_NAMES = { keyword_tree: "keyword tree", knowledge_graph: "knowledge graph" };

const ARMED_MS = 4000; // how long a first click on Delete waits for the second

export class Documents {
  constructor() {
    this.dialog = $("docs-dialog");
    this.input = $("docs-file");
    this.drop = $("docs-drop");
    this.table = $("docs-list");
    this.progress = $("upload-progress");
    this.skipped = $("docs-skipped");
    this.stale = $("docs-stale");
    this.message = $("docs-message");
    this.rows = new Map();
    this.uploading = false;
    // Sources whose delete is armed, until when: kept here, not on a button, so that a list
    // reloaded between the two clicks (or a click on a row just replaced) keeps the arming.
    this.armedUntil = new Map();
  }

  // The file types an upload may have, as the server's loader lists them (GET /ui/api/settings).
  setFormats(formats) {
    if (!formats || !formats.length) return;
    this.input.accept = formats.join(",");
    $("docs-formats").textContent = formats.join(", ");
  }

  init() {
    $("open-docs").addEventListener("click", () => this.open());
    $("close-docs").addEventListener("click", () => this.dialog.close());
    $("docs-choose").addEventListener("click", () => this.input.click());
    this.input.addEventListener("change", () => {
      if (this.input.files.length) this.upload([...this.input.files]);
      this.input.value = "";
    });
    $("docs-rebuild").addEventListener("click", () => this.rebuild());
    // Files dropped anywhere on the page go to the panel.
    let depth = 0;
    const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
    document.addEventListener("dragenter", (e) => {
      if (!hasFiles(e)) return;
      depth += 1;
      document.body.classList.add("dragging");
    });
    document.addEventListener("dragleave", () => {
      depth = Math.max(0, depth - 1);
      if (!depth) document.body.classList.remove("dragging");
    });
    document.addEventListener("dragover", (e) => {
      if (hasFiles(e)) e.preventDefault();
    });
    document.addEventListener("drop", (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      document.body.classList.remove("dragging");
      if (!this.dialog.open) this.open();
      this.upload([...e.dataTransfer.files]);
    });
  }

  open() {
    if (!this.dialog.open) this.dialog.showModal();
    this.load();
  }

  // How many chunks are in (null when the store cannot be read: the run then says why). One
  // count query: the full listing also measures what the derived stores miss.
  async count() {
    try {
      return (await fetchJSON("/ui/api/docs/count")).chunks;
    } catch (_) {
      return null;
    }
  }

  say(text, cls = "") {
    this.message.textContent = text;
    this.message.className = `docs-message ${cls}`;
  }

  async load() {
    let data;
    try {
      data = await fetchJSON("/ui/api/docs");
    } catch (err) {
      this.say(`cannot list the documents: ${err.message}`, "error");
      return;
    }
    clear(this.table);
    const docs = data.documents || [];
    for (const doc of docs) {
      const row = this.row(doc);
      this.table.appendChild(row);
      this.showArmed(doc.source); // a delete armed on the row it replaces stays armed
    }
    if (!docs.length) this.table.appendChild(el("tr", { cls: "hint" }, [el("td", { text: "No documents yet: upload some.", attrs: { colspan: 4 } })]));
    $("docs-count").textContent = `${docs.length} document${docs.length === 1 ? "" : "s"}, ${docs.reduce((n, d) => n + (d.chunks || 0), 0)} chunks`;
    this.showStale(data.stale || {}, data.behind || {});
    // Files refused by earlier uploads and ingests, most recent first.
    clear(this.skipped);
    const skipped = [...(data.skipped || [])].reverse();
    for (const s of skipped) this.addSkipped(s.name, s.reason, s.at);
    $("docs-skipped-box").hidden = !skipped.length;
  }

  // A derived store out of step with the chunks: what it misses or still holds (the next
  // upload or delete repairs it too; the button does it now).
  showStale(stale, behind) {
    const said = Object.entries(stale).filter(([, v]) => v).map(([k]) => {
      const lag = behind[k] || {};
      const parts = [
        lag.missing ? `misses ${lag.missing} chunk${lag.missing === 1 ? "" : "s"}` : "",
        lag.extra ? `still holds ${lag.extra} deleted one${lag.extra === 1 ? "" : "s"}` : "",
        lag.old_rules ? "was built by an older release's rules" : "",
        lag.unreadable ? `cannot be read (${lag.unreadable})` : "",
      ].filter(Boolean);
      return `the ${STORE_NAMES[k] || k} ${parts.join(" and ") || "could not follow the last change"}`;
    });
    this.stale.hidden = !said.length;
    const text = said.join("; ");
    $("docs-stale-text").textContent = text ? `${text[0].toUpperCase()}${text.slice(1)}.` : "";
  }

  row(doc) {
    const when = doc.ingested_at ? new Date(doc.ingested_at).toLocaleString() : "—";
    const remove = el("button", { cls: "delete", text: "Delete", attrs: { type: "button", "aria-label": `Delete ${basename(doc.source)}` } });
    remove.addEventListener("click", () => this.confirmDelete(doc.source));
    return el("tr", { attrs: { "data-source": doc.source } }, [
      el("td", { cls: "doc-source", title: doc.source }, [el("span", { text: basename(doc.source) })]),
      el("td", { cls: "doc-chunks", text: String(doc.chunks) }),
      el("td", { cls: "doc-when", text: when }),
      el("td", {}, [remove]),
    ]);
  }

  // The delete button of `source`'s row in the list now, if any.
  deleteButton(source) {
    return [...this.table.querySelectorAll("tr")].find((tr) => tr.dataset.source === source)?.querySelector(".delete") || null;
  }

  showArmed(source) {
    const left = (this.armedUntil.get(source) || 0) - Date.now();
    const button = this.deleteButton(source);
    if (left > 0 && button) armConfirm(button, "Really delete?", "Delete", left);
  }

  async confirmDelete(source) {
    if ((this.armedUntil.get(source) || 0) <= Date.now()) {
      this.armedUntil.set(source, Date.now() + ARMED_MS);
      this.showArmed(source);
      return;
    }
    this.armedUntil.delete(source);
    const button = this.deleteButton(source);
    if (button) button.disabled = true;
    try {
      const out = await fetchJSON(`/ui/api/docs?source=${encodeURIComponent(source)}`, { method: "DELETE" });
      const stores = Object.keys(STORE_NAMES).map((k) => `${STORE_NAMES[k]} ${out[k]}`).join(", ");
      this.say(`Deleted ${basename(source)}: ${out.deleted_chunks} chunk${out.deleted_chunks === 1 ? "" : "s"} (${stores}).`, "ok");
      forgetChunks();
    } catch (err) {
      this.say(`could not delete ${basename(source)}: ${err.message}`, "error");
    }
    await this.load();
  }

  async rebuild() {
    const button = $("docs-rebuild");
    button.disabled = true;
    this.say("Rebuilding the stale stores…");
    try {
      const out = await fetchJSON("/ui/api/docs/rebuild", { method: "POST" });
      this.say(`Rebuilt: ${Object.entries(out).map(([k, v]) => `${STORE_NAMES[k] || k} ${v}`).join(", ")}.`, "ok");
    } catch (err) {
      this.say(`the rebuild failed: ${err.message}`, "error");
    } finally {
      button.disabled = false;
    }
    await this.load();
  }

  progressRow(file) {
    const bar = el("progress", { attrs: { max: 1, "aria-label": `progress of ${file.name}` } });
    bar.removeAttribute("value"); // indeterminate until the first batch
    const status = el("span", { cls: "upload-status", text: "waiting…" });
    const li = el("li", { cls: "upload waiting", attrs: { "data-name": file.name } }, [
      el("span", { cls: "upload-name", text: file.name }),
      el("span", { cls: "upload-size", text: humanSize(file.size) }),
      bar,
      status,
    ]);
    this.progress.appendChild(li);
    return { li, bar, status };
  }

  setRow(name, state, text) {
    let row = this.rows.get(name);
    if (!row) {
      row = this.progressRow({ name, size: 0 });
      this.rows.set(name, row);
    }
    row.li.className = `upload ${state}`;
    row.status.textContent = text;
    return row;
  }

  onEvent(ev) {
    switch (ev.event) {
      case "file_started":
        this.setRow(ev.name, "running", "reading…");
        break;
      case "batch": {
        const row = this.setRow(ev.name, "running", `chunks ${ev.done} / ${ev.total}`);
        row.bar.max = Math.max(1, ev.total);
        row.bar.value = ev.done;
        break;
      }
      case "file_done": {
        const chunks = `${ev.chunks_added} chunk${ev.chunks_added === 1 ? "" : "s"}`;
        const text = ev.status === "unchanged" ? "unchanged: already ingested" : `${ev.status === "updated" ? "updated" : "added"} ${chunks}`;
        const row = this.setRow(ev.name, "done", text);
        row.bar.max = 1;
        row.bar.value = 1;
        break;
      }
      case "file_skipped":
        this.setRow(ev.name, "skipped", `skipped: ${ev.reason}`).bar.hidden = true;
        if (!this.skipped.querySelector(`[data-name="${CSS.escape(ev.name)}"]`)) this.addSkipped(ev.name, ev.reason);
        break;
      case "file_duplicate":
        // Its text is already stored under another name: the list shows that one.
        this.setRow(ev.name, "duplicate", ev.reason).bar.hidden = true;
        break;
      case "finished": {
        for (const s of ev.skipped || []) if (!this.skipped.querySelector(`[data-name="${CSS.escape(s.name)}"]`)) this.addSkipped(s.name, s.reason);
        const duplicates = (ev.duplicates || []).length;
        const parts = [`Added ${(ev.added || []).length}`];
        if (duplicates) parts.push(`${duplicates} duplicate${duplicates === 1 ? "" : "s"} of stored files`);
        parts.push(`skipped ${(ev.skipped || []).length}`);
        this.say(`${parts.join(", ")}.`, (ev.skipped || []).length || duplicates ? "warn" : "ok");
        break;
      }
      case "error":
        this.say(`the upload failed: ${ev.message}`, "error");
        break;
      default:
        break;
    }
  }

  addSkipped(name, reason, at) {
    $("docs-skipped-box").hidden = false;
    this.skipped.appendChild(el("li", { attrs: { "data-name": name } }, [
      el("span", { cls: "skipped-name", text: name }),
      el("span", { cls: "skipped-reason", text: ` — ${reason}` }),
      at ? el("span", { cls: "skipped-when", text: ` · ${new Date(at).toLocaleString()}` }) : null,
    ]));
  }

  async upload(files) {
    if (this.uploading || !files.length) return;
    this.uploading = true;
    this.dialog.dataset.uploading = "1";
    $("docs-choose").disabled = true;
    clear(this.progress);
    this.rows.clear();
    for (const file of files) this.rows.set(file.name, this.progressRow(file));
    this.say(`Uploading ${files.length} file${files.length === 1 ? "" : "s"}…`);
    setStatus("ingesting documents…");
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    try {
      const response = await authedFetch("/ui/api/docs/upload", { method: "POST", body: form });
      if (response.status === 413) throw new Error(`too large: ${await errorDetail(response)}`);
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status} ${await errorDetail(response)}`);
      await readNDJSON(response, (ev) => this.onEvent(ev));
      forgetChunks();
    } catch (err) {
      this.say(`the upload failed: ${err.message}`, "error");
      for (const row of this.rows.values()) if (/waiting|running/.test(row.li.className)) row.li.className = "upload failed";
    } finally {
      await this.load();
      this.uploading = false;
      this.dialog.dataset.uploading = "0"; // after the list is reloaded: the upload is over
      $("docs-choose").disabled = false;
      setStatus("ready");
    }
  }
}
