// The document viewer: a PDF's real page with the quoted passage highlighted on it (the
// extracted text one click away), or the extracted text with the passage marked exactly.
import { el, clear, $, unitOffsets } from "./dom.js";
import { get } from "./api.js";
import { describe, hideCard } from "./citations.js";
import { showPage } from "./pdfpage.js";

const cache = new Map();
let opener = null; // what had the focus when the viewer opened: it gets it back on close
let shown = null; // {citation, spans, page, count, view, turn}: what the viewer shows now

// The document's current text, or (a citation's `version`) the version it quoted, with
// where the quoted range [start, end) stands in the current version if it has changed.
async function documentText(id, version = null, range = null) {
  let path = `/api/documents/${encodeURIComponent(id)}/text`;
  if (Number.isInteger(version)) {
    const query = new URLSearchParams({ version: String(version) });
    if (range) { query.set("start", String(range[0])); query.set("end", String(range[1])); }
    path += `?${query}`;
  }
  if (!cache.has(path)) cache.set(path, get(path));
  try {
    return await cache.get(path);
  } catch (error) {
    cache.delete(path);
    throw error;
  }
}

// The range a citation quoted: its first quote, else its passage.
function quotedRange(citation, spans) {
  const first = (spans || []).find((s) => Number.isInteger(s.doc_start));
  return first ? [first.doc_start, first.doc_end] : [citation.char_start, citation.char_end];
}

export function closeViewer() {
  const viewer = $("#viewer");
  if (viewer.hidden) return;
  const hadFocus = viewer.contains(document.activeElement);
  viewer.hidden = true;
  document.body.classList.remove("viewer-open");
  if (hadFocus && opener?.isConnected) opener.focus();
  opener = null;
  hideCard(); // the badge's card, shown again as it got the focus back, must not stay over the answer
}

// citation: {document_id, version, char_start, char_end, page, section, download_url}
// spans: the answer's spans for this citation (doc_start/doc_end, page), exact quoted text.
// A citation of a version the document has moved on from (or of a deleted document)
// shows the text it quoted, marked as changed, with the way to the current version.
export async function openViewer(citation, spans) {
  const viewer = $("#viewer");
  if (viewer.hidden) opener = document.activeElement;
  viewer.hidden = false;
  document.body.classList.add("viewer-open");
  $("#viewer-title").textContent = citation.document_title;
  $("#viewer-meta").textContent = describe(citation);
  const turn = (shown?.turn || 0) + 1;
  shown = { citation, spans: spans || [], turn, view: "text" };
  const actions = clear($("#viewer-actions"));
  let old = null;
  let kind = null;
  clear($("#viewer-text")).append(el("p", { class: "muted", text: "Loading the document…" }));
  try {
    const versioned = Number.isInteger(citation.version);
    const doc = await documentText(citation.document_id, versioned ? citation.version : null,
      versioned ? quotedRange(citation, spans) : null);
    if (versioned && doc.current_version !== doc.version) old = doc;
    kind = doc.kind;
  } catch (_) { /* shown by the text view below */ }
  if (shown.turn !== turn) return;
  // only a PDF's pages can be shown: a slide deck's page is its slide, read as text
  const paged = !old && kind === "pdf" && Number.isInteger(citation.page);
  const first = (spans || []).find((s) => Number.isInteger(s.page));
  shown = { citation, spans: spans || [], page: first ? first.page : citation.page, count: null,
    view: paged ? "page" : "text", turn, old };
  if (old) actions.append(changedNotice(citation, old));
  if (paged) actions.append(viewSwitch());
  if (citation.download_url && !old) {
    actions.append(el("a", { class: "btn btn-small", href: safeUrl(citation.download_url),
      rel: "noopener noreferrer", download: "" },
    el("span", { "aria-hidden": "true", text: "↓" }), "Download original"));
  }
  await (paged ? showPdfPage() : showText());
}

// "This document has changed since this answer", with links to the current version: at
// the quoted passage's new place when it is still there.
function changedNotice(citation, old) {
  const deleted = old.current_version === null;
  const said = deleted
    ? `This document was deleted after this answer. Below is the text it quoted (version ${old.version}).`
    : `This document has changed since this answer. Below is the text it quoted (version ${old.version}; now version ${old.current_version}).`;
  const notice = el("div", { class: "viewer-changed", role: "note" }, el("p", { text: said }));
  if (deleted) return notice;
  const current = (place) => {
    const at = place ? { char_start: place.start, char_end: place.end, page: place.page }
      : { char_start: 0, char_end: 0, page: Number.isInteger(citation.page) ? 1 : null };
    const spans = place ? [{ doc_start: place.start, doc_end: place.end, page: place.page }] : [];
    return () => openViewer({ ...citation, ...at, version: null, download_url: null }, spans);
  };
  const links = el("p", { class: "viewer-changed-links" });
  if (old.now_at) {
    links.append(el("button", { type: "button", class: "btn btn-small", text: "Show this passage in the current version",
      onclick: current(old.now_at) }));
  } else {
    links.append(el("span", { class: "muted", text: "The quoted passage is no longer in the current version. " }));
  }
  links.append(el("button", { type: "button", class: "btn btn-small", text: "Open the current version",
    onclick: current(null) }));
  notice.append(links);
  return notice;
}

function viewSwitch() {
  const button = (view, label) => el("button", { type: "button", class: "btn btn-small view-switch",
    dataset: { view }, "aria-pressed": String(shown.view === view), text: label,
    onclick: () => switchView(view) });
  return el("span", { class: "view-switches", role: "group", "aria-label": "Show" },
    button("page", "Page"), button("text", "Text"));
}

function switchView(view) {
  if (!shown || shown.view === view) return Promise.resolve();
  shown = { ...shown, view, turn: shown.turn + 1 };
  for (const b of document.querySelectorAll("#viewer .view-switch")) {
    b.setAttribute("aria-pressed", String(b.dataset.view === view));
  }
  return view === "page" ? showPdfPage() : showText();
}

// The quotes, the exact answer in the first one, or (nothing quoted) the whole passage.
function pageRanges({ citation, spans }) {
  const ranges = spans.map((s) => ({ start: s.doc_start, end: s.doc_end, kind: "quote" }));
  for (const s of spans) {
    if (Number.isInteger(s.exact_doc_start)) {
      ranges.push({ start: s.exact_doc_start, end: s.exact_doc_end, kind: "answer" });
    }
  }
  return ranges.length ? ranges : [{ start: citation.char_start, end: citation.char_end, kind: "passage" }];
}

async function showPdfPage() {
  const body = $("#viewer-text");
  const { turn } = shown;
  body.classList.add("viewer-page");
  const move = (page) => {
    shown = { ...shown, page, turn: shown.turn + 1 };
    showPdfPage();
  };
  try {
    const count = await showPage(body, shown.citation.document_id, shown.page, pageRanges(shown),
      shown.count, move);
    if (shown.turn === turn) shown.count = count;
  } catch (error) {
    if (shown.turn !== turn) return;
    await switchView("text");
    body.prepend(el("p", { class: "form-error", text: `${error.message} The text is shown instead.` }));
    return;
  }
  body.focus({ preventScroll: true });
}

async function showText() {
  const body = $("#viewer-text");
  const { citation, spans, turn } = shown;
  body.classList.remove("viewer-page");
  clear(body).append(el("p", { class: "muted", text: "Loading the document…" }));
  let doc;
  try {
    doc = shown.old || await documentText(citation.document_id);
  } catch (error) {
    if (shown.turn === turn) clear(body).append(el("p", { class: "form-error", text: error.message }));
    return;
  }
  if (shown.turn !== turn) return;
  clear(body);
  const table = Number.isInteger(citation.row) && !shown.old ? await sheetTable(citation, spans) : null;
  if (shown.turn !== turn) return;
  if (table) body.append(table);
  const at = unitOffsets(doc.text);
  const ranges = spans.map((s) => [at(s.doc_start), at(s.doc_end)]);
  const answers = spans.filter((s) => Number.isInteger(s.exact_doc_start))
    .map((s) => [at(s.exact_doc_start), at(s.exact_doc_end)]);
  const headings = (doc.headings || []).map((h) => [at(h.start), at(h.end), h.level]);
  body.append(...highlighted(doc.text, [at(citation.char_start), at(citation.char_end)], ranges,
    answers, headings));
  const target = body.querySelector(".sheet-table tr.cited") || body.querySelector("mark.exact")
    || body.querySelector(".passage");
  if (target) {
    target.scrollIntoView({ block: "center" });
    body.focus({ preventScroll: true });
  }
}

// A spreadsheet's cited row in its table: the sheet's header row, the rows around it,
// each with its number in the sheet, the cited one marked. Null when it cannot be had
// (the text below shows the row regardless).
async function sheetTable(citation, spans) {
  const quoted = (spans || []).find((s) => s.row === citation.row); // not its header's span
  const at = quoted ? quoted.doc_start : quotedRange(citation, spans)[0];
  let sheet;
  try {
    sheet = await get(`/api/documents/${encodeURIComponent(citation.document_id)}/table?at=${at}`);
  } catch (_) {
    return null;
  }
  const width = Math.max(sheet.header.cells.length, ...sheet.rows.map((r) => r.cells.length));
  const cells = (row, tag) => Array.from({ length: width }, (_, i) => el(tag, { text: row.cells[i] ?? "" }));
  const line = (row, cited) => el("tr", { class: cited ? "cited" : null, "aria-current": cited ? "true" : null },
    el("th", { scope: "row", class: "row-number", text: String(row.number) }), ...cells(row, "td"));
  const name = sheet.sheet ? `${sheet.sheet}, row ${sheet.cited}` : `Row ${sheet.cited}`;
  return el("div", { class: "sheet-wrap" },
    el("table", { class: "sheet-table" },
      el("caption", { text: `${name}, in its table` }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "row-number", text: String(sheet.header.number) }),
        ...cells(sheet.header, "th"))),
      el("tbody", {}, ...sheet.rows.map((row) => line(row, row.number === sheet.cited)))));
}

// Only same-origin paths or http(s) links become hrefs; anything else (javascript:) is dropped.
function safeUrl(url) {
  try {
    const parsed = new URL(url, window.location.origin);
    return ["http:", "https:"].includes(parsed.protocol) ? parsed.href : "#";
  } catch (_) {
    return "#";
  }
}

// Text nodes for the whole document: its own headings as headings, the cited chunk as a
// passage, the quoted spans marked, and inside them the exact answer the reader found.
function highlighted(text, chunk, exact, answers = [], headings = []) {
  const clamp = (n) => Math.max(0, Math.min(text.length, n));
  const [cs, ce] = [clamp(chunk[0]), clamp(chunk[1])];
  const marks = exact.map(([a, b]) => [clamp(a), clamp(b)]).filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const cuts = new Set([0, text.length, cs, ce]);
  const found = answers.map(([a, b]) => [clamp(a), clamp(b)]).filter(([a, b]) => b > a);
  const heads = headings.map(([a, b, level]) => [clamp(a), clamp(b), level]).filter(([a, b]) => b > a);
  for (const [a, b] of [...marks, ...found, ...heads]) { cuts.add(a); cuts.add(b); }
  const points = [...cuts].sort((a, b) => a - b);
  const nodes = [];
  let passage = null;
  for (let i = 0; i < points.length - 1; i++) {
    const [a, b] = [points[i], points[i + 1]];
    if (a === b) continue;
    const piece = text.slice(a, b);
    const inExact = marks.some(([x, y]) => x <= a && b <= y);
    const inAnswer = found.some(([x, y]) => x <= a && b <= y);
    let node = inExact
      ? el("mark", { class: inAnswer ? "exact answer-span" : "exact", text: piece })
      : document.createTextNode(piece);
    const heading = heads.find(([x, y]) => x <= a && b <= y);
    if (heading) { // the heading's first piece is the one a screen reader names
      const level = Math.min(heading[2], 6);
      node = el("span", { class: `doc-heading doc-heading-${Math.min(level, 4)}`, ...(a === heading[0]
        ? { role: "heading", "aria-level": String(level) } : {}) }, node);
    }
    if (a >= cs && b <= ce && ce > cs) {
      if (!passage) {
        passage = el("span", { class: "passage" });
        nodes.push(passage);
      }
      passage.append(node);
    } else {
      nodes.push(node);
    }
  }
  if (!marks.length && passage) passage.classList.add("passage-only");
  return nodes;
}
