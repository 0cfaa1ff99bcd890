// The real page of a PDF: rendered by the server (PDFium), with the quoted passage's
// boxes laid over it, and page navigation. Ranges are offsets in the extracted text;
// the server finds the part of each that is printed on the page shown.
import { el, clear } from "./dom.js";
import { get } from "./api.js";

const WIDTHS = [600, 900, 1200, 1600, 2000, 2400]; // a few sizes, so the browser caches them

function imageWidth(box) {
  const wanted = Math.max(box.clientWidth, 320) * (window.devicePixelRatio || 1);
  return WIDTHS.find((w) => w >= wanted) || WIDTHS[WIDTHS.length - 1];
}

function pagePath(id, page) {
  return `/api/documents/${encodeURIComponent(id)}/pages/${page}`;
}

// ranges: [{start, end, kind}] with kind "quote", "answer" or "passage".
async function highlights(id, page, ranges) {
  if (!ranges.length) return { page_count: null, highlights: [] };
  const query = ranges.map((r) => `start=${r.start}&end=${r.end}`).join("&");
  return get(`${pagePath(id, page)}/highlights?${query}`);
}

// Shows `page` of document `id` in `body`; returns the page count once known.
export async function showPage(body, id, page, ranges, pageCount, onMove) {
  const frame = el("div", { class: "pdf-page", dataset: { page: String(page) } });
  const image = el("img", {
    class: "pdf-image",
    alt: `Page ${page} of the document`,
    src: `${pagePath(id, page)}/image?width=${imageWidth(body)}`,
  });
  frame.append(image);
  const nav = navigation(page, pageCount, onMove);
  clear(body).append(nav, frame);
  const loaded = new Promise((resolve, reject) => {
    image.addEventListener("load", resolve, { once: true });
    image.addEventListener("error", () => reject(new Error("The page could not be shown.")), { once: true });
  });
  const found = await highlights(id, page, ranges);
  await loaded;
  found.highlights.forEach((h, i) => {
    for (const box of h.boxes) frame.append(overlay(box, ranges[i].kind));
  });
  const count = found.page_count ?? pageCount;
  if (count !== pageCount) body.replaceChild(navigation(page, count, onMove), nav);
  const first = frame.querySelector(".pdf-mark-answer") || frame.querySelector(".pdf-mark");
  if (first) first.scrollIntoView({ block: "center" });
  return count;
}

function overlay(box, kind) {
  const mark = el("div", { class: `pdf-mark pdf-mark-${kind}`, "aria-hidden": "true" });
  mark.style.left = `${box.left * 100}%`;
  mark.style.top = `${box.top * 100}%`;
  mark.style.width = `${box.width * 100}%`;
  mark.style.height = `${box.height * 100}%`;
  return mark;
}

function navigation(page, count, onMove) {
  const prev = el("button", { type: "button", class: "btn btn-small page-prev", text: "‹ Previous",
    disabled: page <= 1, onclick: () => onMove(page - 1) });
  const next = el("button", { type: "button", class: "btn btn-small page-next", text: "Next ›",
    disabled: count !== null && page >= count, onclick: () => onMove(page + 1) });
  const label = el("span", { class: "page-label", "aria-live": "polite",
    text: count ? `Page ${page} of ${count}` : `Page ${page}` });
  return el("div", { class: "page-nav" }, prev, label, next);
}
