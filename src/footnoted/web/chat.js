// The conversation: streaming answers, refusals, retries, copy.
import { el, append, clear, $, uuid } from "./dom.js";
import { ApiError, get, getText, streamChat } from "./api.js";
import { renderAnswer, renderFooter, revealSource, hideCard, streamed } from "./citations.js";
import { openViewer } from "./viewer.js";
import { answerFeedback, sourceFlag } from "./feedback.js";

const MARKER = /\s*\[(\d+(?:\s*[,\-–]\s*\d+)*)\]/g;
const BUSY_RETRIES = 6;

export const chat = {
  sessionId: null,
  collection: null,
  busy: false,
  isAdmin: false,
  onSession: () => {},
  onAdmin: () => {}, // open the admin's "Unanswered questions"
  indexed: "", // what the knowledge base holds, in a few words
  examples: [], // the collection's example questions, offered on an empty chat
};

const messages = () => $("#messages");

function scrollDown() {
  const box = messages();
  box.scrollTop = box.scrollHeight;
}

export function resetChat() {
  chat.sessionId = null;
  const box = clear(messages());
  box.append(emptyState());
  $("#chat-title").textContent = "New chat";
  showExport(null);
}

// The conversation's Export links (Markdown with footnotes, JSON); hidden for a new chat.
export function showExport(sessionId) {
  const box = $("#export");
  box.hidden = !sessionId;
  if (!sessionId) return;
  const base = `/api/sessions/${encodeURIComponent(sessionId)}/export`;
  $("#export-markdown").href = `${base}?format=markdown`;
  $("#export-json").href = `${base}?format=json`;
}

function emptyState() {
  return el("div", { id: "empty", class: "empty" },
    el("h2", { text: "Ask your documents" }),
    el("p", { class: "muted", text: "Every sentence of an answer links to the exact passage it came from. When the documents don't say, footnoted tells you so." }),
    el("p", { id: "indexed", class: "indexed small", text: chat.indexed }),
    el("div", { id: "examples", class: "examples", role: "group", "aria-label": "Example questions" }, exampleButtons()));
}

function exampleButtons() {
  return chat.examples.map((q) => el("button", { type: "button", class: "btn btn-small example", text: q,
    onclick: () => { if (!chat.busy) ask(q); } }));
}

// The chosen collection's example questions, on the empty screen (none: nothing shown).
export async function describeExamples() {
  const collection = chat.collection;
  let examples = [];
  try {
    if (collection) examples = (await get(`/api/collections/${encodeURIComponent(collection)}/settings`)).example_questions || [];
  } catch (_) { /* the examples are a nicety */ }
  if (collection !== chat.collection) return; // another collection was chosen meanwhile
  chat.examples = examples;
  const box = $("#examples");
  if (box) clear(box).append(...exampleButtons());
}

// Say on the empty screen what the chosen knowledge base holds.
export async function describeIndexed(documents) {
  const ready = documents.filter((d) => d.status === "ready" && d.enabled !== false && d.collection === chat.collection);
  const titles = ready.slice(0, 4).map((d) => `“${d.title}”`).join(", ");
  chat.indexed = ready.length
    ? `${ready.length} document${ready.length === 1 ? "" : "s"} in “${chat.collection}”: ${titles}${ready.length > 4 ? ", …" : ""}`
    : `“${chat.collection}” holds no documents yet.`;
  const line = $("#indexed");
  if (line) line.textContent = chat.indexed;
}

function addRow(node) {
  $("#empty")?.remove();
  messages().append(node);
  scrollDown();
  return node;
}

let lastQuestion = ""; // what a refusal's "Ask in …" asks again

export function renderQuestion(text) {
  lastQuestion = text;
  return addRow(el("div", { class: "msg msg-user" }, el("div", { class: "bubble bubble-user", text })));
}

// One assistant answer: its text, citations and spans, rendered and re-rendered in place.
class AnswerView {
  constructor(messageId = null) {
    this.messageId = messageId;
    this.readAs = null; // the question as searched and read, where it differs from as asked
    this.text = "";
    this.citations = null;
    this.referenced = [];
    this.spans = [];
    this.grounding = null;
    this.vouched = false; // streamed markers name sources (LLM mode): badges before the details
    this.fellBack = false;
    this.done = false;
    this.body = el("div", { class: "answer-text" });
    this.typing = el("span", { class: "typing", "aria-label": "Writing" },
      el("i"), el("i"), el("i"));
    this.footerSlot = el("div", { class: "footer-slot" });
    this.status = el("div", { class: "answer-status" });
    this.notes = el("div", { class: "answer-notes" });
    this.bubble = el("div", { class: "bubble bubble-answer", "aria-busy": "true" },
      this.notes, this.body, this.typing, this.footerSlot, this.status);
    this.row = el("div", { class: "msg msg-answer" }, avatar(), this.bubble);
  }

  // A notice (the LLM was unavailable: an extractive answer) or a warning, shown above.
  note(message, kind) {
    if (!message) return;
    this.notes.append(el("p", { class: `notice notice-${kind}`, role: "status", text: message }));
  }

  grow(delta) {
    this.text += delta;
    this.render();
  }

  // In LLM mode the server sends a marker only once it names a source: show it as a badge
  // at once. (An extractive answer may quote a document's own "[8]": it waits for sources.)
  vouch(llm) {
    this.vouched = llm && !this.fellBack;
    if (this.vouched && this.citations === null && !this.done) this.render();
  }

  // The LLM was unavailable: the extractive answer that follows may quote a document's "[8]".
  fallBack() {
    this.fellBack = true;
    this.vouched = false;
  }

  sources(data) {
    this.citations = data.citations || [];
    this.referenced = data.referenced_indices || [];
    this.spans = data.spans || [];
    this.grounding = data.grounding || null;
    this.render();
  }

  // The answer as it stands: while it streams, as far as it can be shown (vouched-for
  // markers already badges); once its sources are in, or it ended without them, all of it.
  render() {
    const actions = { openCitation: (c, badge) => this.openCitation(c, badge) };
    const { text, citations } = this.citations === null && !this.done
      ? streamed(this.text, this.vouched) : { text: this.text, citations: this.citations };
    clear(this.body).append(...renderAnswer(text, citations, this.spans, actions));
    clear(this.footerSlot);
    this.footer = null;
    if (this.citations && this.citations.length) {
      this.footer = renderFooter(this.citations, this.referenced, this.spans, actions, this.grounding);
      this.footerSlot.append(this.footer);
    }
    scrollDown();
  }

  openCitation(citation, badge) {
    revealSource(this.footer, citation.index);
    this.bubble.querySelectorAll(".badge.active").forEach((b) => b.classList.remove("active"));
    badge?.classList.add("active");
    const spans = this.spans.filter((s) => s.index === citation.index);
    openViewer(citation, spans);
  }

  finish() {
    this.end();
    this.typing.remove();
    this.bubble.removeAttribute("aria-busy");
    clear(this.status);
    const copy = el("button", { type: "button", class: "btn btn-ghost btn-small copy", text: "Copy",
      title: "Copy as Markdown, the sources as footnotes" });
    copy.addEventListener("click", async () => {
      await copyText(this.markdown());
      copy.textContent = "Copied";
      setTimeout(() => { copy.textContent = "Copy"; }, 1500);
    });
    const readAs = this.readAs ? el("span", { class: "read-as muted", title: "How the question was searched and read: a follow-up with the conversation, without instructions on how to answer",
      text: `Read as: “${this.readAs}”` }) : null;
    this.status.append(el("div", { class: "answer-actions" }, copy, readAs), answerFeedback(this.messageId));
    this.addFlags();
    scrollDown();
  }

  // Once the answer is stored, each cited source can be flagged.
  addFlags() {
    if (!this.footer || !this.messageId) return;
    for (const item of this.footer.querySelectorAll("li.source")) {
      const citation = this.citations.find((c) => String(c.index) === item.dataset.index);
      if (citation && !item.querySelector(".source-feedback")) {
        item.querySelector(".source-body").append(sourceFlag(this.messageId, citation));
      }
    }
  }

  // The answer as Markdown with footnotes, as the server exports it (plain text if it can't).
  async markdown() {
    const session = chat.sessionId;
    if (!session || !this.messageId || !this.citations?.length) return plainText(this.text);
    const path = `/api/sessions/${encodeURIComponent(session)}/export?format=markdown&message_id=${encodeURIComponent(this.messageId)}`;
    try {
      return await getText(path);
    } catch (_) {
      return plainText(this.text);
    }
  }

  // The stream is over: its text as it is, with no stand-ins for sources that never came.
  end() {
    this.done = true;
    if (this.citations === null) this.render();
  }

  fail(message, retry) {
    this.end();
    this.typing.remove();
    this.bubble.removeAttribute("aria-busy");
    this.bubble.classList.add("bubble-failed");
    clear(this.status).append(el("div", { class: "answer-error", role: "alert" },
      el("span", { class: "error-dot", "aria-hidden": "true" }),
      el("span", { text: message }),
      retry ? el("button", { type: "button", class: "btn btn-small retry", text: "Retry", onclick: retry }) : null));
  }
}

// Write to the clipboard while the click's permission lasts: the text may still be coming.
async function copyText(pending) {
  if (window.ClipboardItem && navigator.clipboard.write) {
    const blob = Promise.resolve(pending).then((t) => new Blob([t], { type: "text/plain" }));
    await navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
  } else {
    await navigator.clipboard.writeText(await pending);
  }
}

function avatar() {
  return el("div", { class: "avatar", "aria-hidden": "true", text: "f" });
}

export function plainText(text) {
  return text.replace(MARKER, "").replace(/[ \t]+([.,;:!?])/g, "$1").replace(/[ \t]{2,}/g, " ").trim();
}

function renderRefusal(body) {
  const suggestions = body.suggestions && body.suggestions.length ? body.suggestions : ["Rephrase your question"];
  const details = refusalDetails(body.evidence);
  // the refusal log first (every refusal is in it), then what the server suggests
  const logged = chat.isAdmin ? "See unanswered questions" : "Ask an admin to add this";
  const labels = [logged, ...suggestions.filter((s) => /rephrase|^ask /i.test(s))];
  const buttons = labels.map((label) => el("button", { type: "button", class: "btn btn-small suggestion",
    text: label, onclick: () => suggestion(label, note) }));
  const note = el("p", { class: "refusal-note muted", role: "status" });
  return el("div", { class: "msg msg-answer" }, avatar(),
    el("div", { class: "bubble bubble-refusal", role: "note" },
      el("div", { class: "refusal-head" }, el("span", { class: "refusal-icon", "aria-hidden": "true", text: "?" }),
        el("strong", { text: "Not in your documents" })),
      el("p", { class: "refusal-text", text: body.message || body.content || "" }),
      details,
      elsewhere(body.elsewhere, lastQuestion),
      el("div", { class: "suggestions" }, buttons), note, answerFeedback(body.message_id)));
}

// What the evidence check measured, for whoever wants the numbers: folded away, so the
// refusal itself reads in plain words. Each check in the order it was made, with what it
// decided.
function refusalDetails(ev) {
  if (!ev || ev.max_score === null || ev.max_score === undefined) return null;
  const close = `Closest passage: similarity ${ev.max_score.toFixed(2)} (reading needs ${ev.threshold.toFixed(2)})`;
  const lines = [ev.reason === "below_threshold" ? `${close}: nothing was close enough to read.`
    : `${close}: the closest passages were read.`];
  if (typeof ev.answer_score === "number") {
    const found = `Best answer found in them: score ${ev.answer_score.toFixed(2)}, confidence ${Math.round((ev.confidence || 0) * 100)}%`;
    const missing = ev.missing && ev.missing.length ? ev.missing : null;
    lines.push(missing ? `${found}; but its passage does not mention ${missing.join(", ")}, so it was not given.`
      : `${found}: not enough to answer from.`);
  }
  return el("details", { class: "refusal-evidence muted" }, el("summary", { text: "How it was checked" }),
    ...lines.map((line) => el("p", { text: line })));
}

// Other knowledge bases whose documents answer the question: say so, and ask there.
function elsewhere(names, question) {
  const known = (names || []).filter((n) => [...$("#collection").options].some((o) => o.value === n));
  if (!known.length || !question) return null;
  const quoted = known.map((n) => `“${n}”`).join(", ");
  return el("div", { class: "refusal-elsewhere" },
    el("p", { text: `Passages that answer this are in ${known.length === 1 ? "another knowledge base" : "other knowledge bases"}: ${quoted}.` }),
    el("div", { class: "suggestions" }, known.map((name) => el("button", {
      type: "button", class: "btn btn-small btn-primary", text: `Ask in “${name}”`,
      onclick: () => {
        const select = $("#collection");
        select.value = name;
        select.dispatchEvent(new Event("change"));
        ask(question);
      },
    }))));
}

function suggestion(label, note) {
  const input = $("#question");
  if (/rephrase/i.test(label)) {
    input.focus();
    input.select();
  } else if (/^ask (?!an admin)/i.test(label)) {
    note.textContent = `${label}: they may know where the answer is written.`;
  } else if (chat.isAdmin) {
    chat.onAdmin("refusals");
  } else {
    note.textContent = "This question was logged for your admins under “Unanswered questions”: " +
      "they can add a document that covers it.";
  }
}

// Render a stored message from the history exactly as it was first shown.
export function renderStored(message) {
  if (message.role === "user") return renderQuestion(message.content);
  if (message.type === "refusal") {
    return addRow(renderRefusal({ message: message.content, suggestions: message.suggestions,
      evidence: message.evidence, elsewhere: message.elsewhere, message_id: message.message_id }));
  }
  const view = new AnswerView(message.message_id);
  view.text = message.content;
  view.readAs = message.read_as || null;
  addRow(view.row);
  view.sources({ citations: message.citations, referenced_indices: message.referenced_indices,
    spans: message.spans, grounding: message.grounding });
  view.finish();
  return view.row;
}

export async function ask(question, messageId = null) {
  const id = messageId || uuid();
  if (!messageId) renderQuestion(question);
  const pending = addRow(el("div", { class: "msg msg-answer pending" }, avatar(),
    el("div", { class: "pending-label" }, el("span", { class: "spinner", "aria-hidden": "true" }),
      el("span", { class: "pending-text", text: "Searching your documents…" }))));
  const slow = setTimeout(async () => {
    const label = pending.querySelector(".pending-text");
    if (label) label.textContent = await slowReason();
  }, 2500);
  let view = null;
  const retry = () => {
    (view ? view.row : null)?.remove();
    ask(question, id);
  };
  const body = { message: question, message_id: id };
  if (chat.sessionId) body.session_id = chat.sessionId;
  if (chat.collection) body.collection = chat.collection;
  chat.busy = true;
  try {
    await sendWithBusyRetry(body, {
      onEvent(name, data) {
        if (name === "answer_start") {
          clearTimeout(slow);
          pending.remove();
          view = new AnswerView(id);
          view.readAs = data.standalone_question || null;
          view.note(data.warning, "warn");
          addRow(view.row);
          setSession(data.session_id);
          const shown = view; // the app may have learnt the collection since the question left
          generationMode(body.collection || chat.collection).then((m) => shown.vouch(m === "llm"));
        } else if (name === "notice") {
          view?.fallBack();
          view?.note(data.message, "info");
        } else if (name === "answer_delta") view?.grow(data.text);
        else if (name === "sources") view?.sources(data);
        else if (name === "answer_end") {
          view?.finish();
          setSession(data.session_id, true);
        } else if (name === "refusal") {
          view?.row.remove();
          addRow(renderRefusal(data));
          chat.onSession(chat.sessionId);
        } else if (name === "error") {
          ensureView().fail(data.message, retry);
        }
      },
      onJson(data) {
        pending.remove();
        if (data.type === "refusal") addRow(renderRefusal(data));
        else {
          view = new AnswerView(id);
          view.text = data.answer;
          view.note(data.notice, "info");
          view.note(data.warning, "warn");
          addRow(view.row);
          view.sources(data);
          view.finish();
        }
        setSession(data.session_id, true);
      },
    });
  } catch (error) {
    const message = error instanceof ApiError ? error.message
      : "Connection lost — the answer is incomplete.";
    ensureView().fail(message, retry);
  } finally {
    clearTimeout(slow);
    pending.remove();
    chat.busy = false;
    hideCard();
  }

  function ensureView() {
    if (!view) {
      view = new AnswerView(id);
      addRow(view.row);
    }
    return view;
  }
}

// The collection's generation mode ("llm" or "extractive"); null when it cannot be read.
async function generationMode(collection) {
  if (!collection) return null;
  try {
    return (await get(`/api/collections/${encodeURIComponent(collection)}/settings`)).generation_mode;
  } catch (_) {
    return null;
  }
}

// Why an answer is slow: the model still loading, or the server out of reach.
async function slowReason() {
  try {
    const response = await fetch("/api/health", { cache: "no-store" });
    const health = response.ok ? await response.json() : null;
    if (health && health.model === "warming") return "Preparing the model…";
    return "Still searching your documents…";
  } catch (_) {
    return "Can't reach the server — still trying…";
  }
}

async function sendWithBusyRetry(body, handlers) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await streamChat(body, handlers);
    } catch (error) {
      const busy = error instanceof ApiError && error.code === "duplicate_in_progress";
      if (!busy || attempt >= BUSY_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}

function setSession(id, refresh = false) {
  if (!id) return;
  const isNew = chat.sessionId !== id;
  chat.sessionId = id;
  if (isNew || refresh) chat.onSession(id);
}
