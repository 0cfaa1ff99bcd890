// The document viewer: the extracted text, with the cited passage highlighted exactly.
import { el, clear, $, unitOffsets } from "./dom.js";
import { get } from "./api.js";
import { describe } from "./citations.js";

const cache = new Map();
let opener = null; // what had the focus when the viewer opened: it gets it back on close

async function documentText(id) {
  if (!cache.has(id)) cache.set(id, get(`/api/documents/${encodeURIComponent(id)}/text`));
  try {
    return await cache.get(id);
  } catch (error) {
    cache.delete(id);
    throw error;
  }
}

export function closeViewer() {
  const viewer = $("#viewer");
  if (viewer.hidden) return;
  const hadFocus = viewer.contains(document.activeElement);
  viewer.hidden = true;
  document.body.classList.remove("viewer-open");
  if (hadFocus && opener?.isConnected) opener.focus();
  opener = null;
}

// citation: {document_id, char_start, char_end, page, section, download_url}
// spans: the answer's spans for this citation (doc_start/doc_end), exact quoted text.
export async function openViewer(citation, spans) {
  const viewer = $("#viewer");
  const body = $("#viewer-text");
  if (viewer.hidden) opener = document.activeElement;
  viewer.hidden = false;
  document.body.classList.add("viewer-open");
  $("#viewer-title").textContent = citation.document_title;
  $("#viewer-meta").textContent = describe(citation);
  const actions = clear($("#viewer-actions"));
  if (citation.download_url) {
    actions.append(el("a", { class: "btn btn-small", href: safeUrl(citation.download_url),
      rel: "noopener noreferrer", download: "" },
    el("span", { "aria-hidden": "true", text: "↓" }), "Download original"));
  }
  clear(body).append(el("p", { class: "muted", text: "Loading the document…" }));
  let doc;
  try {
    doc = await documentText(citation.document_id);
  } catch (error) {
    clear(body).append(el("p", { class: "form-error", text: error.message }));
    return;
  }
  clear(body);
  const at = unitOffsets(doc.text);
  const ranges = (spans || []).map((s) => [at(s.doc_start), at(s.doc_end)]);
  const answers = (spans || []).filter((s) => Number.isInteger(s.exact_doc_start))
    .map((s) => [at(s.exact_doc_start), at(s.exact_doc_end)]);
  body.append(...highlighted(doc.text, [at(citation.char_start), at(citation.char_end)], ranges, answers));
  const target = body.querySelector("mark.exact") || body.querySelector(".passage");
  if (target) {
    target.scrollIntoView({ block: "center" });
    body.focus({ preventScroll: true });
  }
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

// Text nodes for the whole document: the cited chunk as a passage, the quoted spans
// marked, and inside them the exact answer the reader found.
function highlighted(text, chunk, exact, answers = []) {
  const clamp = (n) => Math.max(0, Math.min(text.length, n));
  const [cs, ce] = [clamp(chunk[0]), clamp(chunk[1])];
  const marks = exact.map(([a, b]) => [clamp(a), clamp(b)]).filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const cuts = new Set([0, text.length, cs, ce]);
  const found = answers.map(([a, b]) => [clamp(a), clamp(b)]).filter(([a, b]) => b > a);
  for (const [a, b] of [...marks, ...found]) { cuts.add(a); cuts.add(b); }
  const points = [...cuts].sort((a, b) => a - b);
  const nodes = [];
  let passage = null;
  for (let i = 0; i < points.length - 1; i++) {
    const [a, b] = [points[i], points[i + 1]];
    if (a === b) continue;
    const piece = text.slice(a, b);
    const inExact = marks.some(([x, y]) => x <= a && b <= y);
    const inAnswer = found.some(([x, y]) => x <= a && b <= y);
    const node = inExact
      ? el("mark", { class: inAnswer ? "exact answer-span" : "exact", text: piece })
      : document.createTextNode(piece);
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
