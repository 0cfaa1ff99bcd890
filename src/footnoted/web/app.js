// Start-up: warm-up check, sign in/out, wiring of chat, history, viewer and admin.
import { el, clear, $ } from "./dom.js";
import { ApiError, get, post, del } from "./api.js";
import { chat, ask, resetChat, showExport, describeIndexed, describeExamples } from "./chat.js";
import { refreshSessions, setUrl, followUrl } from "./history.js";
import { closeViewer } from "./viewer.js";
import { initAdmin, fillCollections, showTab } from "./admin.js";

let me = null;
let adminReady = false;

// Until the server answers and its embedding model is loaded, say so (and which it is).
async function waitUntilReady() {
  const banner = $("#warmup");
  for (let attempt = 0; ; attempt++) {
    let reason = "Can't reach the server — retrying…";
    try {
      const response = await fetch("/api/health", { cache: "no-store" });
      const health = response.ok ? await response.json() : null;
      if (health && health.model !== "warming") {
        banner.hidden = true;
        return;
      }
      if (health) reason = "Preparing the model…";
    } catch (_) { /* unreachable, or still starting */ }
    $("#warmup-text").textContent = reason;
    banner.hidden = false;
    await new Promise((r) => setTimeout(r, Math.min(1000, 200 * (attempt + 1))));
  }
}

async function start() {
  await waitUntilReady();
  try {
    me = await get("/api/auth/me");
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return showSignIn();
    throw error;
  }
  showApp();
}

// Why a sign-in at the identity provider came back without a session (?signin_error=).
const SIGNIN_ERRORS = {
  sign_in_state_invalid: "That sign-in was already used, took too long or began in another browser: sign in again.",
  sign_in_refused: "Your identity provider did not sign you in.",
  sign_in_failed: "Your identity provider's answer could not be verified: sign in again, or ask an admin.",
  provider_unreachable: "Your identity provider could not be reached: try again in a moment.",
};

async function showSignIn() {
  $("#app").hidden = true;
  $("#signin").hidden = false;
  const params = new URLSearchParams(window.location.search);
  const failed = params.get("signin_error");
  if (failed) {
    $("#signin-error").textContent = SIGNIN_ERRORS[failed] || "Signing in failed: try again.";
    window.history.replaceState(window.history.state, "", window.location.pathname);
  }
  let ways = null;
  try {
    ways = await get("/api/auth/providers");
  } catch (_) { /* the token form still works */ }
  const link = $("#signin-oidc");
  if (ways && ways.oidc) {
    const next = window.location.pathname === "/" ? "" : `?next=${encodeURIComponent(window.location.pathname)}`;
    link.href = `${ways.oidc.login_url}${next}`;
    link.textContent = `Sign in with ${ways.oidc.name}`;
    link.hidden = false;
    $("#signin-or").hidden = false;
    link.focus();
  } else {
    $("#token").focus();
  }
}

async function signIn(event) {
  event.preventDefault();
  const error = $("#signin-error");
  error.textContent = "";
  try {
    me = await post("/api/auth/session", { token: $("#token").value.trim() });
  } catch (e) {
    error.textContent = e.status === 401 ? "That token is not valid." : e.message;
    return;
  }
  $("#token").value = "";
  showApp();
}

async function signOut() {
  await del("/api/auth/session");
  leave();
}

function leave(notice = "") {
  me = null;
  closeViewer();
  resetChat();
  showSignIn();
  $("#signin-error").textContent = notice;
}

async function showApp() {
  $("#signin").hidden = true;
  $("#app").hidden = false;
  if (!$("#messages").firstChild) resetChat(); // the empty chat, before anything can be asked
  $("#user-name").textContent = me.name + (me.is_admin ? " · admin" : "");
  // shown only once the views are set up: a click while they load would be undone
  $("#open-admin").hidden = true;
  const collections = await get("/api/collections");
  const select = clear($("#collection"));
  for (const name of collections) select.append(el("option", { value: name, text: name }));
  select.value = collections.includes("default") ? "default" : collections[0];
  chat.collection = select.value;
  select.parentElement.hidden = collections.length < 2;
  if (me.is_admin && !adminReady) { initAdmin(collections); adminReady = true; }
  else if (me.is_admin) fillCollections(collections);
  chat.isAdmin = me.is_admin;
  showChat();
  $("#open-admin").hidden = !me.is_admin;
  describeWhatIsIndexed();
  await followUrl(); // the conversation the address names, if any
  refreshSessions();
  $("#question").focus();
}

// The examples first, then the line naming the collection: once that line names it, the
// empty screen is the chosen collection's.
async function describeWhatIsIndexed() {
  const documents = get("/api/documents").catch(() => null); // the hint is a nicety
  await describeExamples();
  const listed = await documents;
  if (listed) describeIndexed(listed);
}

function showChat() {
  $("#admin-view").hidden = true;
  $("#chat-view").hidden = false;
  $("#open-admin").removeAttribute("aria-current");
}

function showAdmin(tab = null) {
  closeViewer();
  document.body.classList.remove("sidebar-open");
  $("#chat-view").hidden = true;
  $("#admin-view").hidden = false;
  $("#open-admin").setAttribute("aria-current", "page");
  showTab(tab || document.querySelector('.tab[aria-selected="true"]')?.dataset.tab || "docs");
}

function submitQuestion(event) {
  event.preventDefault();
  const input = $("#question");
  const question = input.value.trim();
  if (!question || chat.busy) return;
  input.value = "";
  autosize();
  ask(question);
}

function autosize() {
  const input = $("#question");
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
}

function wire() {
  $("#signin-form").addEventListener("submit", signIn);
  $("#sign-out").addEventListener("click", signOut);
  $("#ask-form").addEventListener("submit", submitQuestion);
  $("#question").addEventListener("input", autosize);
  $("#question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) submitQuestion(e);
  });
  $("#new-chat").addEventListener("click", () => {
    closeViewer();
    showChat();
    resetChat();
    setUrl(null);
    refreshSessions();
    document.body.classList.remove("sidebar-open");
    $("#question").focus();
  });
  $("#collection").addEventListener("change", (e) => {
    chat.collection = e.target.value;
    describeWhatIsIndexed();
  });
  $("#origin-filter").addEventListener("change", () => refreshSessions());
  window.addEventListener("footnoted:settings-saved", (e) => { if (e.detail === chat.collection) describeExamples(); });
  window.addEventListener("popstate", () => { if (me) { showChat(); followUrl(); } });
  $("#viewer-close").addEventListener("click", closeViewer);
  $("#skip-link").addEventListener("click", (e) => { // past the sidebar, to what is shown
    e.preventDefault();
    ($("#chat-view").hidden ? $("#admin-view") : $("#messages")).focus();
  });
  $("#open-admin").addEventListener("click", () => showAdmin());
  $("#back-to-chat").addEventListener("click", showChat);
  $("#open-sidebar").addEventListener("click", () => document.body.classList.add("sidebar-open"));
  $("#close-sidebar").addEventListener("click", () => document.body.classList.remove("sidebar-open"));
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeViewer(); });
  document.addEventListener("click", (e) => {  // a tap beside the phone sidebar closes it
    if (!document.body.classList.contains("sidebar-open")) return;
    if (!e.target.closest("#sidebar, #open-sidebar")) document.body.classList.remove("sidebar-open");
  });
  chat.onSession = (id) => {
    if (id) { setUrl(id, { replace: true }); showExport(id); }
    refreshSessions();
  };
  chat.onAdmin = (tab) => showAdmin(tab);
  window.addEventListener("footnoted:session-ended", () => {
    if (me) leave("Your session has ended: sign in again.");
  });
}

wire();
start();
