// The sidebar of past conversations (titled, dated, filtered by where they began) and
// each conversation's own address (/c/<id>): reload and back/forward keep you there.
import { el, clear, $ } from "./dom.js";
import { ApiError, get, del } from "./api.js";
import { chat, renderStored, resetChat, showExport } from "./chat.js";
import { closeViewer } from "./viewer.js";

const PATH = /^\/c\/([A-Za-z0-9_-]{1,100})\/?$/;

// The conversation the address names, or null for a new chat.
export function sessionInUrl() {
  const match = window.location.pathname.match(PATH);
  return match ? match[1] : null;
}

// Point the address at the conversation: a new history entry when moving between
// conversations, the same entry when a new chat gets its id.
export function setUrl(sessionId, { replace = false } = {}) {
  const path = sessionId ? `/c/${encodeURIComponent(sessionId)}` : "/";
  if (window.location.pathname === path) return;
  const state = { sessionId };
  if (replace) window.history.replaceState(state, "", path);
  else window.history.pushState(state, "", path);
}

// While the server cannot be reached (or answers 5xx), the list says so and tries again
// by itself, less often the longer it lasts; one retry is pending at a time.
let retry = { timer: null, attempt: 0 };

function retryLater() {
  clearTimeout(retry.timer);
  const wait = Math.min(10000, 1000 * 2 ** retry.attempt);
  retry.attempt += 1;
  retry.timer = setTimeout(refreshSessions, wait);
}

export async function refreshSessions() {
  const list = $("#sessions");
  const origin = $("#origin-filter").value;
  clearTimeout(retry.timer);
  let sessions;
  try {
    sessions = await get(`/api/sessions?limit=200${origin ? `&origin=${origin}` : ""}`);
  } catch (error) {
    const transient = !(error instanceof ApiError) || error.status >= 500;
    const text = transient ? "Can't reach the server — retrying…" : error.message;
    clear(list).append(el("li", { class: "muted sessions-error", role: "status", text }));
    if (transient) retryLater();
    return;
  }
  retry.attempt = 0;
  clear(list);
  if (!sessions.length) list.append(el("li", { class: "muted sessions-empty", text: "No conversations yet." }));
  for (const session of sessions) list.append(sessionItem(session));
  const current = sessions.find((s) => s.id === chat.sessionId);
  if (current) $("#chat-title").textContent = current.title;
}

// "14:05" today, "Mon 14:05" this week, "3 May" this year, else "3 May 2024".
export function shortDate(iso, now = new Date()) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const days = (now - date) / 86400000;
  if (date.toDateString() === now.toDateString()) {
    return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  }
  if (days < 6) return date.toLocaleDateString(undefined, { weekday: "short" }) + " " +
    date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleDateString(undefined, { day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }) });
}

const ORIGIN_LABELS = { api: "API", v1: "/v1", mcp: "MCP" };

function sessionItem(session) {
  const active = session.id === chat.sessionId;
  const open = el("a", { class: "session-open", href: `/c/${encodeURIComponent(session.id)}`,
    title: `${session.title} — ${new Date(session.updated_at).toLocaleString()}`,
    "aria-current": active ? "page" : null },
  el("span", { class: "session-title", text: session.title }),
  el("span", { class: "session-meta" },
    ORIGIN_LABELS[session.origin] ? el("span", { class: "origin-tag", text: ORIGIN_LABELS[session.origin] }) : null,
    el("time", { datetime: session.updated_at, text: shortDate(session.updated_at) })));
  open.addEventListener("click", (event) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return; // new tab
    event.preventDefault();
    openSession(session.id);
  });
  const remove = el("button", { type: "button", class: "session-delete", "aria-label": `Delete “${session.title}”`, text: "✕" });
  remove.addEventListener("click", async () => {
    if (remove.dataset.confirm !== "1") {
      remove.dataset.confirm = "1";
      remove.textContent = "Delete?";
      setTimeout(() => { remove.dataset.confirm = ""; remove.textContent = "✕"; }, 3000);
      return;
    }
    await del(`/api/sessions/${encodeURIComponent(session.id)}`);
    if (chat.sessionId === session.id) { resetChat(); setUrl(null); }
    refreshSessions();
  });
  return el("li", { class: `session${active ? " active" : ""}`, dataset: { id: session.id } }, open, remove);
}

// Open a conversation from the sidebar: a new entry in the browser's history.
export async function openSession(id) {
  setUrl(id);
  await loadSession(id);
}

// Show the conversation `id` (the address already names it).
export async function loadSession(id) {
  closeViewer();
  document.body.classList.remove("sidebar-open");
  let session, messages;
  try {
    [session, messages] = await Promise.all([
      get(`/api/sessions/${encodeURIComponent(id)}`),
      get(`/api/sessions/${encodeURIComponent(id)}/messages`),
    ]);
  } catch (error) {
    resetChat();
    const missing = error instanceof ApiError && error.status === 404;
    $("#messages").prepend(el("p", { class: "notice notice-warn", role: "alert",
      text: missing ? "That conversation is not there: it was deleted, or it is someone else's." : error.message }));
    return;
  }
  resetChat();
  chat.sessionId = session.id;
  $("#chat-title").textContent = session.title;
  showExport(session.id);
  for (const message of messages) renderStored(message);
  refreshSessions();
  $("#question").focus();
}

// Follow the address: on start-up and on back/forward.
export function followUrl() {
  const id = sessionInUrl();
  if (id && id !== chat.sessionId) return loadSession(id);
  if (!id && chat.sessionId) { closeViewer(); resetChat(); refreshSessions(); }
  return Promise.resolve();
}
