// Small DOM helpers. Every piece of data reaches the page as text (textContent, text
// nodes); the one place that parses markup is markdown.js, behind the sanitizer.

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

export const $ = (id) => document.getElementById(id);

export function el(tag, opts = {}, children = []) {
  const node = document.createElement(tag);
  if (opts.cls) node.className = opts.cls;
  if (opts.text !== undefined && opts.text !== null) node.textContent = String(opts.text);
  if (opts.title) node.title = String(opts.title);
  for (const [key, value] of Object.entries(opts.attrs || {})) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

export function langOf(text) {
  return CJK.test(text || "") ? "zh" : "en";
}

export function textEl(tag, cls, text) {
  const node = el(tag, { cls, text: text || "" });
  node.lang = langOf(text);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function basename(path) {
  const parts = String(path || "").split(/[\\/]/);
  return parts[parts.length - 1] || String(path || "");
}

export function textOf(message) {
  const content = message && message.content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === "string" ? p : (p && p.text) || "")).join(" ");
  }
  return String(content || "");
}

// Shorten to at most `max` characters at a word boundary (CJK text has none: cut anywhere).
export function shorten(text, max) {
  const flat = String(text || "").replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.!?，。；：]+$/, "")}…`;
}

export function setStatus(text) {
  $("status").textContent = text;
}

// Copy text to the clipboard; fall back to a selected textarea where the API is refused.
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    const area = el("textarea", { cls: "offscreen" });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

// A small button that copies `text()` and says so for a moment.
export function copyButton(label, text, title) {
  const button = el("button", { cls: "copy", text: label, title, attrs: { type: "button" } });
  button.addEventListener("click", async (e) => {
    e.stopPropagation();
    const ok = await copyText(text());
    button.textContent = ok ? "copied" : "copy failed";
    button.dataset.copied = ok ? "1" : "0";
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
  return button;
}

export function humanSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// A destructive button asks once more in place: it shows `asking` for a few seconds, then
// goes back to `idle`; a second click while it asks is the confirmation.
export function armConfirm(button, asking, idle, ms = 4000) {
  button.classList.add("confirm");
  button.textContent = asking;
  setTimeout(() => {
    button.classList.remove("confirm");
    button.textContent = idle;
  }, ms);
}
