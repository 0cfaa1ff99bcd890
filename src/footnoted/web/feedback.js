// Feedback: "Helpful" / "Not helpful" under every answer and refusal, "Flag" on every
// cited source ("Doesn't say this" / "Wrong page"), each with an optional note and
// correction; what was sent stays marked. The admins' queue is in admin.js.
import { el, clear } from "./dom.js";
import { post } from "./api.js";

const SENT = "Thanks — your admins will see this.";

function send(messageId, body) {
  return post(`/api/messages/${encodeURIComponent(messageId)}/feedback`, body);
}

// The form that says more: a note, what the right answer says (or that the documents do
// not answer it). `about()` says what it is about: its kind (and citation).
function detailsForm(messageId, about, status, { askAnswer = true } = {}) {
  const note = el("textarea", { class: "feedback-note", rows: "2", maxlength: "2000",
    "aria-label": "Note for your admins (optional)", placeholder: "What was wrong? (optional)" });
  const right = askAnswer ? el("input", { type: "text", class: "feedback-answer", maxlength: "500",
    "aria-label": "What the right answer says (optional)", placeholder: "What the right answer says (optional)" }) : null;
  const none = askAnswer ? el("input", { type: "checkbox", class: "feedback-unanswerable" }) : null;
  const submit = el("button", { type: "submit", class: "btn btn-small btn-primary", text: "Send" });
  const form = el("form", { class: "feedback-form" }, note,
    right, none ? el("label", { class: "feedback-check" }, none, " The documents don't answer this") : null,
    el("div", { class: "feedback-buttons" }, submit));
  if (none) none.addEventListener("change", () => { right.disabled = none.checked; });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { ...about(), note: note.value.trim() };
    if (none?.checked) body.correction = { unanswerable: true };
    else if (right?.value.trim()) body.correction = { answer: right.value.trim() };
    submit.disabled = true;
    try {
      await send(messageId, body);
      form.remove();
      status.textContent = SENT;
    } catch (error) {
      status.textContent = error.message;
      submit.disabled = false;
    }
  });
  return form;
}

// Under an answer (or a refusal): two toggles and, for "Not helpful", the form.
export function answerFeedback(messageId) {
  if (!messageId) return null;
  const status = el("span", { class: "feedback-status muted", role: "status" });
  const box = el("div", { class: "feedback" });
  const slot = el("div", { class: "feedback-more" });
  const button = (kind, label, title) => el("button", { type: "button", class: "btn btn-ghost btn-small feedback-button",
    dataset: { kind }, "aria-pressed": "false", title, text: label });
  const helpful = button("helpful", "Helpful", "Tell your admins this answer helped");
  const unhelpful = button("unhelpful", "Not helpful", "Tell your admins this answer is wrong or not what you asked");
  const mark = (kind) => {
    for (const b of [helpful, unhelpful]) b.setAttribute("aria-pressed", String(b.dataset.kind === kind));
  };
  helpful.addEventListener("click", async () => {
    clear(slot);
    try {
      await send(messageId, { kind: "helpful" });
      mark("helpful");
      status.textContent = SENT;
    } catch (error) {
      status.textContent = error.message;
    }
  });
  unhelpful.addEventListener("click", async () => {
    try {
      await send(messageId, { kind: "unhelpful" });
    } catch (error) {
      status.textContent = error.message;
      return;
    }
    mark("unhelpful");
    status.textContent = "Noted. Say more, or leave it at that:";
    clear(slot).append(detailsForm(messageId, () => ({ kind: "unhelpful" }), status));
    slot.querySelector("textarea").focus();
  });
  box.append(el("div", { class: "feedback-row" }, helpful, unhelpful, status), slot);
  return box;
}

// On a cited source: "Flag" opens the choice of what is wrong with it, and a note.
export function sourceFlag(messageId, citation) {
  if (!messageId) return null;
  const status = el("span", { class: "feedback-status muted", role: "status" });
  const slot = el("div", { class: "feedback-more" });
  const flag = el("button", { type: "button", class: "btn btn-ghost btn-small source-flag", "aria-expanded": "false",
    title: "Tell your admins this source is wrong", text: "Flag" });
  flag.addEventListener("click", () => {
    const open = flag.getAttribute("aria-expanded") === "true";
    flag.setAttribute("aria-expanded", String(!open));
    clear(slot);
    if (open) return;
    const name = `flag-${messageId}-${citation.index}`;
    const choice = (kind, label, checked) => el("label", { class: "feedback-check" },
      el("input", { type: "radio", name, value: kind, checked }), ` ${label}`);
    const choices = el("div", { class: "feedback-choices", role: "radiogroup", "aria-label": "What is wrong with this source" },
      choice("does_not_say", "It doesn't say this", true), choice("wrong_page", "Wrong page or section", false));
    const about = () => ({ kind: choices.querySelector("input:checked")?.value || "does_not_say", citation: citation.index });
    const form = detailsForm(messageId, about, status, { askAnswer: false });
    form.prepend(choices);
    form.addEventListener("submit", () => flag.setAttribute("aria-expanded", "false"), { capture: true });
    slot.append(form);
  });
  return el("div", { class: "source-feedback" }, el("div", { class: "feedback-row" }, flag, status), slot);
}
