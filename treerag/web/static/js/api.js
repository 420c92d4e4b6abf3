// The stream client: JSON calls, the LangGraph run stream (SSE), NDJSON progress streams.

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

// fetch() with the bearer token, asking for one when the server answers 401.
export async function authedFetch(url, init = {}) {
  const send = () => fetch(url, { ...init, headers: { ...(init.headers || {}), ...authHeaders() } });
  let response = await send();
  if (response.status === 401 && askToken()) response = await send();
  return response;
}

export async function fetchJSON(url, { method = "GET", body } = {}) {
  const init = { method, headers: { accept: "application/json" } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await authedFetch(url, init);
  if (!response.ok) throw new Error(`${method} ${url}: HTTP ${response.status} ${await errorDetail(response)}`);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export async function errorDetail(response) {
  try {
    const data = await response.json();
    return data.error || data.detail || data.message || JSON.stringify(data);
  } catch (_) {
    return response.statusText;
  }
}

// A Server-Sent Events parser (lines end in \n, \r or \r\n; events end at a blank line).
export class SSEParser {
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

async function readChunks(response, onText) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    onText(decoder.decode(value, { stream: true }));
  }
  onText(decoder.decode());
}

// One run of the `chat` graph on a thread, its events handed to `onEvent(kind, data)`.
// `context` carries the run settings (top_k, max_depth, …) as the run's runtime context.
export async function streamRun(threadId, question, context, onEvent) {
  const response = await authedFetch(`/threads/${encodeURIComponent(threadId)}/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      assistant_id: "chat",
      input: { messages: [{ type: "human", content: question }] },
      context: context || {},
      stream_mode: ["custom", "values"],
    }),
  });
  if (!response.ok || !response.body) {
    // 422: the server refused the run's settings before recording anything; its message
    // says which setting and what is wrong with it.
    const detail = await errorDetail(response);
    const error = new Error(response.status === 422 ? detail : `the run could not start: HTTP ${response.status} ${detail}`);
    error.refused = response.status === 422;
    throw error;
  }
  const parser = new SSEParser(onEvent);
  await readChunks(response, (text) => parser.feed(text));
  parser.end();
}

// A newline-delimited JSON stream: one object per line, handed to `onEvent` as it arrives.
export async function readNDJSON(response, onEvent) {
  let buffer = "";
  const flush = (final) => {
    const lines = buffer.split("\n");
    buffer = final ? "" : lines.pop();
    for (const line of lines) if (line.trim()) onEvent(JSON.parse(line));
  };
  await readChunks(response, (text) => {
    buffer += text;
    flush(false);
  });
  flush(true);
}

const chunkCache = new Map();

// A chunk's text, title and source (cached; a failed fetch is forgotten).
export function getChunk(chunkId) {
  if (!chunkCache.has(chunkId)) {
    const promise = fetchJSON(`/ui/api/chunk/${encodeURIComponent(chunkId)}`);
    promise.catch(() => chunkCache.delete(chunkId));
    chunkCache.set(chunkId, promise);
  }
  return chunkCache.get(chunkId);
}

export function forgetChunks() {
  chunkCache.clear();
}
