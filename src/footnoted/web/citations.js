// Citation badges, their hover card, and the sources footer under an answer.
import { el, append, clear, unitOffsets } from "./dom.js";

// The one marker pattern ([1], [1, 3], [1-3]), mirroring footnoted.lexical.MARKER.
const MARKER = /\[(\d+(?:\s*[,\-–]\s*\d+)*)\]/g;
const VISIBLE_SOURCES = 3;

export function markerNumbers(inner) {
  const numbers = [];
  for (const part of inner.split(/\s*,\s*/)) {
    const range = part.match(/^(\d+)\s*[-–]\s*(\d+)$/);
    if (range) {
      const [low, high] = [Number(range[1]), Number(range[2])];
      if (high >= low && high - low <= 50) for (let n = low; n <= high; n++) numbers.push(n);
    } else if (/^\d+$/.test(part.trim())) numbers.push(Number(part));
  }
  return numbers;
}

// A streaming answer as far as it can be shown: a marker still arriving at its end ("[",
// "[1", "[1, ") is held back. With `vouched` (LLM mode: the server sends a marker only once
// it names one of the sources it gave the model), the citations are stand-ins for the
// sources its markers name, badges whose details come with the answer's end.
export function streamed(text, vouched) {
  const shown = text.replace(/\[[\d\s,\-–]*$/, "");
  if (!vouched) return { text: shown, citations: null };
  const numbers = [...shown.matchAll(MARKER)].flatMap((m) => markerNumbers(m[1]));
  return { text: shown, citations: [...new Set(numbers)].map((index) => ({ index, pending: true })) };
}

export function describe(citation) {
  const parts = [];
  if (citation.page !== null && citation.page !== undefined) parts.push(`Page ${citation.page}`);
  if (citation.section) parts.push(citation.section);
  if (Number.isInteger(citation.row)) parts.push(`row ${citation.row}`); // a spreadsheet's
  if (citation.cell) parts.push(`cell ${citation.cell}`); // and the answer's cell there
  return parts.join(" · ");
}

// The answer as nodes: text, citation badges, the exact answer the reader found marked,
// and (LLM mode) unsupported claims flagged. A marker inside a verbatim quote of a
// document is the document's own, not a citation.
export function renderAnswer(text, citations, spans, actions) {
  const byIndex = new Map((citations || []).map((c) => [c.index, c]));
  const at = unitOffsets(text);
  const ranges = (spans || []).map((s) => ({ ...s, answer_start: at(s.answer_start), answer_end: at(s.answer_end) }));
  const flagged = ranges.filter((s) => s.supported === false);
  for (const s of spans || []) {
    if (Number.isInteger(s.exact_start) && s.exact_end > s.exact_start) {
      flagged.push({ answer_start: at(s.exact_start), answer_end: at(s.exact_end), exact: true });
    }
  }
  const quotes = ranges.filter((s) => isVerbatim(text, s, byIndex.get(s.index)));
  const inQuote = (i) => quotes.some((s) => s.answer_start <= i && i < s.answer_end);
  const nodes = [];
  let last = 0;
  const tables = tableBlocks(text);
  for (const match of text.matchAll(MARKER)) {
    nodes.push(...withTables(text, last, match.index, flagged, tables));
    const numbers = markerNumbers(match[1]);
    if (!inQuote(match.index) && numbers.length && numbers.every((n) => byIndex.has(n))) {
      nodes.push(el("span", { class: "badges" },
        numbers.map((n) => badge(byIndex.get(n), actions))));
    } else {
      // no source, or quoted (the document's own reference): text, set apart from badges
      nodes.push(el("span", { class: "plain-ref", title: "Not one of this answer's sources", text: match[0] }));
    }
    last = match.index + match[0].length;
  }
  nodes.push(...withTables(text, last, text.length, flagged, tables));
  return nodes;
}

// A table row quoted under its header row is a small Markdown table in the answer's
// text (header, separator, rows): shown as a table, each cell's text as quoted.
const TABLE = /^\|[^\n]*\|[ \t]*\n\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?:\n\|[^\n]*\|[ \t]*)+$/gm;

function tableBlocks(text) {
  return [...text.matchAll(TABLE)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

function withTables(text, start, end, flagged, tables) {
  const nodes = [];
  let last = start;
  for (const t of tables) {
    if (t.start < start || t.end > end) continue;
    nodes.push(...flagText(text, last, t.start, flagged), tableNode(text, t, flagged));
    last = t.end;
    while (last < end && text[last] === "\n") last++; // the table ends its own line
  }
  nodes.push(...flagText(text, last, end, flagged));
  return nodes;
}

// A cell that holds a figure and nothing else ("$ (1,009,359)", "23.5%"), and one that
// holds none ("—", "n/a"), as footnoted.cli.render._FIGURE and _NIL read them.
const FIGURE = /^[\s$€£¥%()+\-–.,]*[0-9][0-9\s$€£¥%()+\-–.,]*$/;
const NIL = /^(?:[-–—−]+|n\/?a)$/i;

function tableNode(text, block, flagged) {
  const rows = [];
  let offset = block.start;
  text.slice(block.start, block.end).split("\n").forEach((line, i) => {
    const lineStart = offset;
    offset += line.length + 1;
    if (i === 1) return; // the separator
    const from = lineStart + line.indexOf("|") + 1;
    const to = lineStart + line.lastIndexOf("|");
    const cells = [];
    let at = from;
    for (const part of text.slice(from, to).split("|")) {
      const lead = part.length - part.trimStart().length;
      const a = at + lead;
      cells.push([a, Math.max(a, at + part.trimEnd().length)]);
      at += part.length + 1;
    }
    rows.push(cells);
  });
  // a column of figures is set right and on one line, its header over it; a column of
  // words is read as text and wraps, so a long description never widens the table
  const width = Math.max(0, ...rows.map((cells) => cells.length));
  const figures = Array.from({ length: width }, (_, c) => {
    const values = rows.slice(1).map((cells) => (cells[c] ? text.slice(...cells[c]) : ""))
      .filter((v) => v && !NIL.test(v));
    return values.length > 0 && values.every((v) => FIGURE.test(v));
  });
  const [head, body] = [el("thead"), el("tbody")];
  rows.forEach((cells, i) => {
    const row = el("tr");
    cells.forEach(([a, b], c) => {
      const attrs = figures[c] ? { class: "figure" } : {};
      row.append(el(i === 0 ? "th" : "td", attrs, flagText(text, a, b, flagged)));
    });
    (i === 0 ? head : body).append(row);
  });
  return el("div", { class: "answer-table-wrap" }, el("table", { class: "answer-table" }, head, body));
}

// Whether the answer's text at the span is exactly the document text the span points at.
function isVerbatim(text, span, citation) {
  if (!citation || typeof citation.text !== "string") return false;
  const at = unitOffsets(citation.text);
  const quote = citation.text.slice(at(span.doc_start - citation.char_start), at(span.doc_end - citation.char_start));
  return quote.length > 0 && quote === text.slice(span.answer_start, span.answer_end);
}

function flagText(text, start, end, flagged) {
  if (start >= end) return [];
  const cuts = new Set([start, end]);
  for (const s of flagged) {
    if (s.answer_start > start && s.answer_start < end) cuts.add(s.answer_start);
    if (s.answer_end > start && s.answer_end < end) cuts.add(s.answer_end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const nodes = [];
  for (let i = 0; i < points.length - 1; i++) {
    const piece = text.slice(points[i], points[i + 1]);
    const inside = flagged.filter((s) => s.answer_start <= points[i] && points[i + 1] <= s.answer_end);
    let node = document.createTextNode(piece);
    if (inside.some((s) => s.exact)) node = el("mark", { class: "answer-span", title: "The answer" }, piece);
    if (inside.some((s) => !s.exact)) {
      node = el("span", { class: "unsupported", title: "Not supported by the cited source" }, node);
    }
    nodes.push(node);
  }
  return nodes;
}

function badge(citation, actions) {
  const button = el("button", {
    type: "button",
    class: citation.pending ? "badge pending" : "badge",
    "aria-label": citation.pending ? `Source ${citation.index}` : `Source ${citation.index}: ${citation.document_title}`,
    "aria-disabled": citation.pending ? "true" : null,
    tabindex: citation.pending ? "-1" : null,
    dataset: { index: String(citation.index) },
    text: String(citation.index),
  });
  if (citation.pending) return button; // no card or viewer until the source's details arrive
  button.addEventListener("mouseenter", () => showCard(button, citation));
  button.addEventListener("focus", () => showCard(button, citation));
  button.addEventListener("mouseleave", hideCard);
  button.addEventListener("blur", hideCard);
  button.addEventListener("click", () => {
    hideCard();
    actions.openCitation(citation, button);
  });
  return button;
}

function showCard(anchor, citation) {
  const card = document.getElementById("tooltip");
  clear(card);
  append(card,
    el("div", { class: "tip-title" }, el("span", { class: "tip-index", text: String(citation.index) }),
      citation.document_title),
    describe(citation) ? el("div", { class: "tip-meta", text: describe(citation) }) : null,
    el("blockquote", { class: "tip-excerpt", text: citation.excerpt }));
  card.hidden = false;
  anchor.setAttribute("aria-describedby", "tooltip");
  const box = anchor.getBoundingClientRect();
  const width = Math.min(360, window.innerWidth - 16);
  card.style.width = `${width}px`;
  const left = Math.max(8, Math.min(box.left + box.width / 2 - width / 2, window.innerWidth - width - 8));
  card.style.left = `${left + window.scrollX}px`;
  const below = box.bottom + 8;
  const height = card.offsetHeight;
  const top = below + height > window.innerHeight ? box.top - height - 8 : below;
  card.style.top = `${Math.max(8, top) + window.scrollY}px`;
}

export function hideCard() {
  const card = document.getElementById("tooltip");
  if (card) card.hidden = true;
}

// The footer: a badge that says how well the answer is backed (the support check's
// verdict and the reader's confidence), the sources it cites, and, behind "Other
// passages considered", what was retrieved but not cited.
export function renderFooter(citations, referenced, spans, actions, grounding) {
  const used = new Set(referenced || []);
  const cited = citations.filter((c) => used.has(c.index));
  const shown = cited.length ? cited : citations; // an answer without markers: all it had
  const others = cited.length ? citations.filter((c) => !used.has(c.index)) : [];
  const unsupported = (spans || []).filter((s) => s.supported === false).length;
  const { list, more } = sourceList(shown, true, actions);
  const titles = [...new Set(shown.map((c) => c.document_title))];
  return el("details", { class: "sources" },
    el("summary", {},
      groundedLabel(shown.length, grounding, unsupported),
      unsupported ? el("span", { class: "flag", text: `${unsupported} unsupported claim${unsupported === 1 ? "" : "s"}` }) : null,
      el("span", { class: "summary-text", text: `Sources: ${titles.join(", ")}` })),
    list, more, others.length ? otherPassages(others, actions) : null);
}

function sourceList(citations, referenced, actions) {
  const list = el("ol", { class: "source-list" });
  const items = citations.map((c) => sourceItem(c, referenced, actions));
  items.forEach((item, i) => { item.hidden = i >= VISIBLE_SOURCES; list.append(item); });
  if (items.length <= VISIBLE_SOURCES) return { list, more: null };
  const label = () => `Show more sources (${items.length - VISIBLE_SOURCES})`;
  const more = el("button", { type: "button", class: "btn btn-ghost btn-small more-sources", text: label() });
  more.addEventListener("click", () => {
    const showing = more.dataset.expanded === "1";
    items.forEach((item, i) => { if (i >= VISIBLE_SOURCES) item.hidden = showing; });
    more.dataset.expanded = showing ? "0" : "1";
    more.textContent = showing ? label() : "Show fewer sources";
  });
  return { list, more };
}

function otherPassages(citations, actions) {
  const list = el("ol", { class: "source-list" }, citations.map((c) => sourceItem(c, false, actions)));
  return el("details", { class: "other-passages" },
    el("summary", { text: `Other passages considered (${citations.length})` }),
    el("p", { class: "muted small", text: "Retrieved for this question but not cited by the answer." }),
    list);
}

// The answer's label (grounding.label, the same verdict every client shows): green only
// for "grounded"; LLM answers with an unsupported sentence are never grounded.
const LABEL_MEANING = {
  grounded: "Answers shown as grounded were right at least 97% of the time on the real-document development set.",
  partly: "The sources hold related text, but the answer may not be exactly what was asked: check the quote.",
  weak: "The sources may not answer this question: read them before relying on it.",
};

function groundedLabel(count, grounding, unsupported) {
  const sources = `${count} source${count === 1 ? "" : "s"}`;
  const label = grounding && typeof grounding.label === "string" ? grounding.label : (unsupported ? "partly" : "grounded");
  const confidence = grounding && typeof grounding.confidence === "number" ? ` (confidence ${Math.round(grounding.confidence * 100)}%)` : "";
  const title = `${LABEL_MEANING[label] || ""}${confidence}`;
  if (label === "weak") return el("span", { class: "grounded weak", title, text: `Weak evidence · ${sources}` });
  if (label === "partly") return el("span", { class: "grounded partial", title, text: `Partly grounded · ${sources}` });
  return el("span", { class: "grounded", title, text: `Grounded in ${sources}` });
}

function sourceItem(citation, referenced, actions) {
  const meta = [describe(citation), `relevance ${citation.score.toFixed(2)}`].filter(Boolean).join(" · ");
  const item = el("li", { class: `source${referenced ? "" : " source-unused"}`, dataset: { index: String(citation.index) } },
    el("span", { class: "source-index", text: String(citation.index) }),
    el("div", { class: "source-body" },
      el("button", { type: "button", class: "source-title", text: citation.document_title,
        onclick: () => actions.openCitation(citation, null) }),
      el("div", { class: "source-meta", text: meta }),
      el("blockquote", { class: "source-excerpt", text: citation.excerpt })));
  if (citation.added) item.append(el("span", { class: "flag", text: "added by support check" }));
  return item;
}

// Expand the footer (and "more" if needed), scroll to the source and flash it.
export function revealSource(footer, index) {
  if (!footer) return;
  footer.open = true;
  const item = footer.querySelector(`li[data-index="${CSS.escape(String(index))}"]`);
  if (!item) return;
  if (item.hidden) footer.querySelector(".more-sources")?.click();
  const other = item.closest(".other-passages");
  if (other) other.open = true;
  footer.querySelectorAll(".source.active").forEach((n) => n.classList.remove("active"));
  item.classList.add("active");
  item.scrollIntoView({ block: "nearest", behavior: "smooth" });
}
