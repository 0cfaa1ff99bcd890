// The sidebar of past sessions: newest first; load, continue, delete.
import { el, clear, $ } from "./dom.js";
import { get, del } from "./api.js";
import { chat, renderStored, resetChat } from "./chat.js";
import { closeViewer } from "./viewer.js";

export async function refreshSessions() {
  const list = $("#sessions");
  let sessions;
  try {
    sessions = await get("/api/sessions?limit=200");
  } catch (error) {
    clear(list).append(el("li", { class: "muted", text: error.message }));
    return;
  }
  clear(list);
  if (!sessions.length) list.append(el("li", { class: "muted sessions-empty", text: "No conversations yet." }));
  for (const session of sessions) list.append(sessionItem(session));
  const current = sessions.find((s) => s.id === chat.sessionId);
  if (current) $("#chat-title").textContent = current.title;
}

function sessionItem(session) {
  const active = session.id === chat.sessionId;
  const open = el("button", { type: "button", class: "session-open", text: session.title,
    title: session.title, "aria-current": active ? "true" : null,
    onclick: () => loadSession(session) });
  const remove = el("button", { type: "button", class: "session-delete", "aria-label": `Delete “${session.title}”`, text: "✕" });
  remove.addEventListener("click", async () => {
    if (remove.dataset.confirm !== "1") {
      remove.dataset.confirm = "1";
      remove.textContent = "Delete?";
      setTimeout(() => { remove.dataset.confirm = ""; remove.textContent = "✕"; }, 3000);
      return;
    }
    await del(`/api/sessions/${encodeURIComponent(session.id)}`);
    if (chat.sessionId === session.id) resetChat();
    refreshSessions();
  });
  return el("li", { class: `session${active ? " active" : ""}`, dataset: { id: session.id } }, open, remove);
}

export async function loadSession(session) {
  closeViewer();
  document.body.classList.remove("sidebar-open");
  const messages = await get(`/api/sessions/${encodeURIComponent(session.id)}/messages`);
  resetChat();
  chat.sessionId = session.id;
  $("#chat-title").textContent = session.title;
  for (const message of messages) renderStored(message);
  refreshSessions();
  $("#question").focus();
}
