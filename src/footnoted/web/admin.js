// Admin: documents (upload, enable, delete, reprocess), collection settings, refusal log.
import { el, clear, $, when } from "./dom.js";
import { get, put, post, patch, del, request } from "./api.js";

const POLL_MS = 700;

export function initAdmin(collections) {
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => showTab(tab.dataset.tab));
  }
  const zone = $("#dropzone");
  const input = $("#file-input");
  zone.addEventListener("click", () => input.click());
  zone.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); } });
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    uploadAll([...e.dataTransfer.files]);
  });
  input.addEventListener("change", () => { uploadAll([...input.files]); input.value = ""; });
  $("#doc-filter").addEventListener("change", refreshDocuments);
  $("#settings-collection").addEventListener("change", loadSettings);
  $("#settings-form").addEventListener("submit", saveSettings);
  fillCollections(collections);
}

export function fillCollections(collections) {
  for (const select of [$("#doc-filter"), $("#settings-collection")]) {
    const keep = select.value;
    const all = select.id === "doc-filter";
    clear(select);
    if (all) select.append(el("option", { value: "", text: "All" }));
    for (const name of collections) select.append(el("option", { value: name, text: name }));
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }
}

export function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  for (const panel of document.querySelectorAll(".tab-panel")) panel.hidden = panel.id !== `tab-${name}`;
  if (name === "docs") refreshDocuments();
  if (name === "settings") loadSettings();
  if (name === "refusals") refreshRefusals();
}

function statusPill(doc) {
  return el("span", { class: `pill pill-${doc.status}`, title: doc.error || null, text: doc.status });
}

async function uploadAll(files) {
  await Promise.all(files.map(uploadOne));
  refreshDocuments();
}

async function uploadOne(file) {
  const state = el("span", { class: "pill pill-processing", text: "uploading" });
  const detail = el("span", { class: "upload-detail muted" });
  const bar = el("progress", { max: "100", value: "0", "aria-label": `Upload progress of ${file.name}` });
  $("#uploads").prepend(el("li", { class: "upload" }, el("span", { class: "upload-name", text: file.name }), bar, state, detail));
  const form = new FormData();
  form.append("file", file);
  const collection = $("#upload-collection").value.trim();
  if (collection) form.append("collection", collection);
  try {
    let doc = await sendWithProgress(form, (p) => { bar.value = p; });
    bar.value = 100;
    setState(state, "processing");
    while (doc.status === "processing") {
      await new Promise((r) => setTimeout(r, POLL_MS));
      doc = await get(`/api/documents/${encodeURIComponent(doc.id)}`);
    }
    setState(state, doc.status);
    detail.textContent = doc.status === "failed" ? doc.error || "Failed." : `${doc.title}`;
  } catch (error) {
    setState(state, "failed");
    detail.textContent = error.message;
  }
}

function setState(pill, status) {
  pill.className = `pill pill-${status}`;
  pill.textContent = status;
}

// XMLHttpRequest, because fetch cannot report upload progress.
function sendWithProgress(form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/documents");
    xhr.setRequestHeader("X-Requested-With", "footnoted");
    xhr.upload.addEventListener("progress", (e) => { if (e.lengthComputable) onProgress((100 * e.loaded) / e.total); });
    xhr.addEventListener("load", () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new Error(body && body.error ? body.error.message : `Upload failed (${xhr.status}).`));
    });
    xhr.addEventListener("error", () => reject(new Error("The connection failed.")));
    xhr.send(form);
  });
}

let listing = 0; // only the latest listing request fills the table
const confirming = new Set(); // documents whose Delete was clicked once: a refresh keeps it

export async function refreshDocuments() {
  const filter = $("#doc-filter").value;
  const query = filter ? `?collection=${encodeURIComponent(filter)}` : "";
  const mine = ++listing;
  let docs;
  try {
    docs = await get(`/api/documents${query}`);
  } catch (error) {
    if (mine !== listing) return;
    clear($("#doc-table tbody")).append(el("tr", {}, el("td", { colspan: "6", class: "form-error", text: error.message })));
    return;
  }
  if (mine !== listing) return;
  const tbody = clear($("#doc-table tbody"));
  if (!docs.length) tbody.append(el("tr", {}, el("td", { colspan: "6", class: "muted", text: "No documents yet: upload some above." })));
  for (const doc of docs) tbody.append(documentRow(doc));
}

function documentRow(doc) {
  const toggle = el("input", { type: "checkbox", "aria-label": `Enabled: ${doc.title}` });
  toggle.checked = doc.enabled;
  toggle.addEventListener("change", async () => {
    toggle.disabled = true;
    try { await patch(`/api/documents/${encodeURIComponent(doc.id)}`, { enabled: toggle.checked }); }
    catch (error) { toggle.checked = !toggle.checked; alertRow(error); }
    toggle.disabled = false;
    refreshDocuments(); // a listing fetched before this change must not be the last word
  });
  const reprocess = el("button", { type: "button", class: "btn btn-ghost btn-small", text: "Reprocess" });
  reprocess.addEventListener("click", async () => {
    reprocess.disabled = true;
    try { await post(`/api/documents/${encodeURIComponent(doc.id)}/reprocess`); } catch (error) { alertRow(error); }
    refreshDocuments();
  });
  const asking = confirming.has(doc.id);
  const remove = el("button", { type: "button", class: "btn btn-ghost btn-small danger", text: asking ? "Confirm delete" : "Delete" });
  remove.addEventListener("click", async () => {
    if (!confirming.has(doc.id)) { confirming.add(doc.id); remove.textContent = "Confirm delete"; return; }
    confirming.delete(doc.id);
    try { await del(`/api/documents/${encodeURIComponent(doc.id)}`); } catch (error) { alertRow(error); }
    refreshDocuments();
  });
  const error = doc.status === "failed" && doc.error ? el("div", { class: "form-error small", text: doc.error }) : null;
  return el("tr", { dataset: { id: doc.id } },
    el("td", {}, el("div", { class: "doc-title", text: doc.title }), el("div", { class: "muted small", text: `${doc.kind} · ${doc.source}` }), error),
    el("td", { text: doc.collection }),
    el("td", {}, statusPill(doc)),
    el("td", { text: String(doc.chunk_count) }),
    el("td", {}, el("label", { class: "switch" }, toggle, el("span", { class: "slider", "aria-hidden": "true" }))),
    el("td", { class: "row-actions" }, reprocess, remove));
}

function alertRow(error) {
  $("#uploads").prepend(el("li", { class: "upload form-error", role: "alert", text: error.message }));
}

async function loadSettings() {
  const name = $("#settings-collection").value;
  if (!name) return;
  const values = await get(`/api/collections/${encodeURIComponent(name)}/settings`);
  const form = $("#settings-form");
  for (const [key, value] of Object.entries(values)) {
    const field = form.elements.namedItem(key);
    if (!field) continue;
    if (field.type === "checkbox") field.checked = Boolean(value);
    else field.value = String(value);
  }
  $("#settings-status").textContent = "";
}

async function saveSettings(event) {
  event.preventDefault();
  const form = event.target;
  const name = $("#settings-collection").value;
  const values = {
    enable_rag: form.elements.enable_rag.checked,
    enable_citations: form.elements.enable_citations.checked,
    citation_link_mode: form.elements.citation_link_mode.value,
    generation_mode: form.elements.generation_mode.value,
    evidence_threshold: Number(form.elements.evidence_threshold.value),
    top_k: Number(form.elements.top_k.value),
  };
  const status = $("#settings-status");
  try {
    await put(`/api/collections/${encodeURIComponent(name)}/settings`, values);
    status.textContent = "Saved.";
  } catch (error) {
    status.textContent = error.message;
  }
}

export async function refreshRefusals() {
  const tbody = clear($("#refusal-table tbody"));
  const rows = await request("GET", "/api/admin/refusals?limit=200");
  if (!rows.length) tbody.append(el("tr", {}, el("td", { colspan: "5", class: "muted", text: "No unanswered questions yet." })));
  for (const row of rows) {
    const score = row.max_score === null ? "—" : `${row.max_score.toFixed(2)} / ${row.threshold.toFixed(2)}`;
    tbody.append(el("tr", {},
      el("td", { class: "question-cell", text: row.question }),
      el("td", { text: row.collection }),
      el("td", { text: score, title: row.reason }),
      el("td", { text: row.user_name || "—" }),
      el("td", { text: when(row.created_at) })));
  }
}
