// The HTTP API, authenticated by the HttpOnly session cookie.
// Every request carries X-Requested-With: cookie-authenticated writes need it (CSRF).

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const BASE_HEADERS = { "X-Requested-With": "footnoted" };

// A 401 outside signing in means the session ended (expired, or signed out elsewhere).
async function fail(response, path) {
  let code = "http_error";
  let message = `Request failed (${response.status}).`;
  try {
    const body = await response.json();
    if (body && body.error) ({ code, message } = body.error);
  } catch (_) { /* not JSON */ }
  if (response.status === 401 && !path.startsWith("/api/auth/")) {
    window.dispatchEvent(new CustomEvent("footnoted:session-ended"));
  }
  return new ApiError(response.status, code, message);
}

export async function request(method, path, body, extraHeaders = {}) {
  const headers = { ...BASE_HEADERS, ...extraHeaders };
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  if (!response.ok) throw await fail(response, path);
  if (response.status === 204) return null;
  return response.json();
}

export const get = (path) => request("GET", path);

// A GET whose answer is text (an export), not JSON.
export async function getText(path) {
  const response = await fetch(path, { headers: BASE_HEADERS, credentials: "same-origin" });
  if (!response.ok) throw await fail(response, path);
  return response.text();
}
export const post = (path, body) => request("POST", path, body);
export const put = (path, body) => request("PUT", path, body);
export const patch = (path, body) => request("PATCH", path, body);
export const del = (path) => request("DELETE", path);

// POST /api/chat as SSE. Calls handlers.onEvent(name, data) per event; a JSON reply
// (a refusal, or a replayed answer) goes to handlers.onJson(body). Throws on network loss.
export async function streamChat(body, handlers, signal) {
  const response = await fetch("/api/chat", {
    method: "POST",
    credentials: "same-origin",
    headers: { ...BASE_HEADERS, "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await fail(response, "/api/chat");
  const type = response.headers.get("content-type") || "";
  if (!type.startsWith("text/event-stream")) {
    handlers.onJson(await response.json());
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let finished = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const parsed = parseBlock(block);
      if (!parsed) continue;
      handlers.onEvent(parsed.event, parsed.data);
      if (["answer_end", "error", "refusal"].includes(parsed.event)) finished = true;
    }
  }
  if (!finished) throw new TypeError("The connection closed before the answer finished.");
}

function parseBlock(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (!data.length) return null;
  return { event, data: JSON.parse(data.join("\n")) };
}
