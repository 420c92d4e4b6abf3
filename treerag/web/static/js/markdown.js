// Answers as markdown: parsed by marked, sanitized by DOMPurify (both vendored), with raw
// HTML in the text shown as text. Answers quote documents, and document text is never
// trusted as markup: the renderer escapes every HTML token and drops images before the
// sanitizer sees the result, and the sanitizer keeps only the tags below.
import { Marked } from "../vendor/marked.esm.js";
import DOMPurify from "../vendor/purify.es.js";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHTML = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const markdown = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHTML(text),
    image: ({ text }) => escapeHTML(text || ""),
  },
});

const ALLOWED_TAGS = [
  "p", "br", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li",
  "h1", "h2", "h3", "h4", "h5", "h6", "hr", "a", "table", "thead", "tbody", "tr", "th", "td",
];
const ALLOWED_ATTR = ["href", "title", "start", "align"];

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

export const CITATION = /\[(\d+)\]/g;
const HAS_CITATION = /\[\d+\]/;

// `text` as a sanitized DOM fragment; `[n]` outside code becomes `makeCite(n, match)`.
export function renderMarkdown(text, makeCite) {
  const html = markdown.parse(String(text || ""));
  const fragment = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ADD_ATTR: ["target", "rel"],
    RETURN_DOM_FRAGMENT: true,
  });
  if (makeCite) linkCitations(fragment, makeCite);
  return fragment;
}

function linkCitations(root, makeCite) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement && node.parentElement.closest("code, pre")
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  const texts = [];
  while (walker.nextNode()) if (HAS_CITATION.test(walker.currentNode.data)) texts.push(walker.currentNode);
  for (const node of texts) {
    const parts = document.createDocumentFragment();
    let last = 0;
    for (const match of node.data.matchAll(CITATION)) {
      if (match.index > last) parts.appendChild(document.createTextNode(node.data.slice(last, match.index)));
      parts.appendChild(makeCite(Number(match[1]), match[0]));
      last = match.index + match[0].length;
    }
    if (last < node.data.length) parts.appendChild(document.createTextNode(node.data.slice(last)));
    node.replaceWith(parts);
  }
}
