// Admin: documents (upload, enable, delete, reprocess), collection settings, refusal log.
import { el, clear, $, when } from "./dom.js";
import { get, put, post, patch, del, request } from "./api.js";
import { openViewer } from "./viewer.js";

const POLL_MS = 700;
const ASYNC = { Prefer: "respond-async" }; // uploads and reprocessing answer at once; stages are polled

export function initAdmin(collections) {
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => showTab(tab.dataset.tab));
    tab.addEventListener("keydown", moveBetweenTabs);
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
  $("#doc-search").addEventListener("input", renderDocuments);
  for (const th of document.querySelectorAll("#doc-table th[data-sort]")) {
    th.querySelector("button").addEventListener("click", () => sortBy(th.dataset.sort));
  }
  $("#settings-collection").addEventListener("change", loadSettings);
  $("#settings-form").addEventListener("submit", saveSettings);
  $("#llm-form").addEventListener("submit", saveLLM);
  $("#llm-test").addEventListener("click", testLLM);
  $("#llm-reset").addEventListener("click", resetLLM);
  $("#llm-form").elements.no_key.addEventListener("change", (e) => { $("#llm-form").elements.api_key.disabled = e.target.checked; });
  for (const id of ["#feedback-status", "#feedback-kind", "#feedback-collection"]) {
    $(id).addEventListener("change", refreshFeedback);
  }
  $("#folder-sync").addEventListener("submit", syncFolder);
  showFolderSync();
  fillCollections(collections);
}

export function fillCollections(collections) {
  for (const select of [$("#doc-filter"), $("#settings-collection"), $("#feedback-collection")]) {
    const keep = select.value;
    const all = select.id !== "settings-collection";
    clear(select);
    if (all) select.append(el("option", { value: "", text: "All" }));
    for (const name of collections) select.append(el("option", { value: name, text: name }));
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }
}

// The tabs as WAI-ARIA describes a tablist: Left/Right (wrapping), Home and End move to
// a tab and show it; Tab leaves the list for the panel (only the selected tab is a stop).
function moveBetweenTabs(event) {
  const tabs = [...document.querySelectorAll(".tab")];
  const at = tabs.indexOf(event.currentTarget);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const tab = tabs[(to + tabs.length) % tabs.length];
  showTab(tab.dataset.tab);
  tab.focus();
}

export function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) {
    const selected = tab.dataset.tab === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  for (const panel of document.querySelectorAll(".tab-panel")) panel.hidden = panel.id !== `tab-${name}`;
  if (name === "docs") refreshDocuments();
  if (name === "settings") { loadSettings(); loadLLM(); }
  if (name === "refusals") refreshRefusals();
  if (name === "feedback") refreshFeedback();
}

// What the server is doing with a processing document (its `progress`), in words.
const STAGES = {
  queued: () => "Waiting for a worker…",
  parsing: () => "Reading the file…",
  embedding: (p) => `Embedding ${p.done} of ${p.total} passages…`,
  saving: () => "Saving…",
};

function stageOf(doc) {
  return doc.status === "processing" && doc.progress ? doc.progress.stage : doc.status;
}

function stageText(doc) {
  if (doc.status !== "processing" || !doc.progress) return "";
  return STAGES[doc.progress.stage](doc.progress);
}

function statusPill(doc) {
  return el("span", { class: `pill pill-${doc.status}`, title: doc.error || null, text: stageOf(doc) });
}

async function uploadAll(files) {
  await Promise.all(files.map(uploadOne));
  refreshDocuments();
}

// One upload: the bar shows the bytes sent, then the server's progress (embedding: the
// passages done; other stages: an indeterminate bar), the pill and detail its stage.
async function uploadOne(file) {
  const state = el("span", { class: "pill pill-processing", text: "uploading" });
  const detail = el("span", { class: "upload-detail muted", text: "Sending…" });
  const bar = el("progress", { max: "100", value: "0", "aria-label": `Progress of ${file.name}` });
  $("#uploads").prepend(el("li", { class: "upload" }, el("span", { class: "upload-name", text: file.name }), bar, state, detail));
  const form = new FormData();
  form.append("file", file);
  const collection = $("#upload-collection").value.trim();
  if (collection) form.append("collection", collection);
  try {
    let doc = await sendWithProgress(form, (p) => { bar.value = p; });
    showProgress(doc, bar, state, detail);
    if (doc.status === "processing") refreshDocuments(); // its row shows the stages too
    while (doc.status === "processing") {
      await new Promise((r) => setTimeout(r, POLL_MS));
      doc = await get(`/api/documents/${encodeURIComponent(doc.id)}`);
      showProgress(doc, bar, state, detail);
    }
    bar.value = 100;
    detail.textContent = doc.status === "failed" ? doc.error || "Failed." : `${doc.title} · ${plural(doc.chunk_count, "passage")}`;
  } catch (error) {
    setState(state, "failed");
    detail.textContent = error.message;
  }
}

function showProgress(doc, bar, state, detail) {
  setState(state, doc.status, stageOf(doc));
  if (doc.status !== "processing") return;
  detail.textContent = stageText(doc);
  const p = doc.progress;
  if (p && p.stage === "embedding" && p.total) bar.value = (100 * p.done) / p.total;
  else bar.removeAttribute("value"); // indeterminate: the stage has no count
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function setState(pill, status, text = status) {
  pill.className = `pill pill-${status}`;
  pill.textContent = text;
}

// XMLHttpRequest, because fetch cannot report upload progress.
function sendWithProgress(form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/documents");
    xhr.setRequestHeader("X-Requested-With", "footnoted");
    for (const [name, value] of Object.entries(ASYNC)) xhr.setRequestHeader(name, value);
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
let listed = []; // the documents last fetched: search and sort work on them
let polling = null; // a refresh while some document is processing
const confirming = new Set(); // documents whose Delete was clicked once: a refresh keeps it
const sort = { key: "created_at", descending: true }; // newest first
const SORTS = {
  title: (d) => d.title.toLowerCase(),
  collection: (d) => d.collection.toLowerCase(),
  status: (d) => d.status,
  chunk_count: (d) => d.chunk_count,
  created_at: (d) => d.created_at,
};

// The folder sync form, where the server's operator allows it (FOOTNOTED_SYNC_ROOTS).
async function showFolderSync() {
  let roots = [];
  try { ({ roots } = await get("/api/admin/sync")); } catch (_) { return; }
  if (!roots.length) return;
  clear($("#sync-roots")).append(...roots.map((root) => el("option", { value: root })));
  $("#sync-folder").placeholder = roots[0];
  $("#folder-sync").hidden = false;
}

async function syncFolder(event) {
  event.preventDefault();
  const form = $("#folder-sync");
  const button = form.querySelector("button[type=submit]");
  const result = $("#sync-result");
  const body = { folder: $("#sync-folder").value.trim(), collection: $("#sync-collection").value.trim() || null };
  button.disabled = true;
  result.className = "small";
  result.textContent = "Syncing…";
  try {
    const report = await post("/api/admin/sync", body);
    if (report.status === "running") {
      result.textContent = "Still syncing: it goes on on the server; the audit log will say what it did.";
    } else {
      const failed = report.failed.map((f) => `${f.source}: ${f.error}`);
      const retired = report.retired.length ? ` Retired: ${report.retired.join(", ")}.` : "";
      result.textContent = `${report.folder} → ${report.collection}: ${report.summary}.${retired}` +
        (failed.length ? ` Failed: ${failed.join("; ")}` : "");
      if (failed.length) result.className = "small form-error";
    }
  } catch (error) {
    result.className = "small form-error";
    result.textContent = error.message;
  } finally {
    button.disabled = false;
    refreshDocuments();
  }
}

export async function refreshDocuments() {
  const filter = $("#doc-filter").value;
  const query = filter ? `?collection=${encodeURIComponent(filter)}` : "";
  const mine = ++listing;
  let docs;
  try {
    docs = await get(`/api/documents${query}`);
  } catch (error) {
    if (mine !== listing) return;
    clear($("#doc-table tbody")).append(el("tr", {}, el("td", { colspan: "7", class: "form-error", text: error.message })));
    return;
  }
  if (mine !== listing) return;
  listed = docs;
  renderDocuments();
  clearTimeout(polling);
  const open = !$("#admin-view").hidden && !$("#tab-docs").hidden;
  if (open && docs.some((d) => d.status === "processing")) polling = setTimeout(refreshDocuments, POLL_MS);
}

function fileName(source) {
  return source.split(/[\\/]/).filter(Boolean).pop() || source;
}

function renderDocuments() {
  const words = $("#doc-search").value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = listed.filter((d) => {
    const hay = `${d.title} ${fileName(d.source)} ${d.collection}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const key = SORTS[sort.key];
  shown.sort((a, b) => {
    const x = key(a), y = key(b);
    const order = x < y ? -1 : x > y ? 1 : 0;
    return sort.descending ? -order : order;
  });
  for (const th of document.querySelectorAll("#doc-table th[data-sort]")) {
    const on = th.dataset.sort === sort.key;
    th.setAttribute("aria-sort", on ? (sort.descending ? "descending" : "ascending") : "none");
  }
  const tbody = clear($("#doc-table tbody"));
  if (!listed.length) tbody.append(el("tr", {}, el("td", { colspan: "7", class: "muted", text: "No documents yet: upload some above." })));
  else if (!shown.length) tbody.append(el("tr", {}, el("td", { colspan: "7", class: "muted", text: "No document matches the search." })));
  for (const doc of shown) tbody.append(documentRow(doc));
  $("#doc-count").textContent = words.length ? `${shown.length} of ${plural(listed.length, "document")}` : plural(listed.length, "document");
}

function sortBy(key) {
  if (sort.key === key) sort.descending = !sort.descending;
  else Object.assign(sort, { key, descending: key === "created_at" || key === "chunk_count" });
  renderDocuments();
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
  const pill = statusPill(doc);
  reprocess.addEventListener("click", async () => {
    reprocess.disabled = true;
    listing++; // a listing fetched before the click must not show the document as it was
    setState(pill, "processing", "queued");
    const path = `/api/documents/${encodeURIComponent(doc.id)}/reprocess`;
    try { await request("POST", path, undefined, ASYNC); } catch (error) { alertRow(error); }
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
  const stage = stageText(doc) ? el("div", { class: "muted small stage", text: stageText(doc) }) : null;
  return el("tr", { dataset: { id: doc.id } },
    el("td", {}, el("div", { class: "doc-title", text: doc.title }), el("div", { class: "muted small", text: `${doc.kind} · ${fileName(doc.source)}${doc.version > 1 ? ` · version ${doc.version}` : ""}` }), error),
    el("td", { text: doc.collection }),
    el("td", {}, pill, stage),
    el("td", { text: String(doc.chunk_count) }),
    el("td", { class: "small added", text: when(doc.created_at) }),
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
    else if (Array.isArray(value)) field.value = value.join("\n");
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
    example_questions: form.elements.example_questions.value.split("\n").map((q) => q.trim()).filter(Boolean),
  };
  const status = $("#settings-status");
  try {
    await put(`/api/collections/${encodeURIComponent(name)}/settings`, values);
    status.textContent = "Saved.";
    window.dispatchEvent(new CustomEvent("footnoted:settings-saved", { detail: name }));
  } catch (error) {
    status.textContent = error.message;
  }
}

// The LLM connection: what is in force (an admin's saved one or the server's defaults),
// saved for every process, tested with the values in the form before or after saving.
function showLLM(current) {
  const form = $("#llm-form");
  form.elements.base_url.value = current.base_url;
  form.elements.model.value = current.model;
  form.elements.api_key.value = "";
  form.elements.api_key.disabled = false;
  form.elements.no_key.checked = false;
  form.elements.api_key.placeholder = current.api_key_set ? "A key is set: type to replace it" : "No key is sent";
  $("#llm-origin").textContent = current.saved
    ? "Saved here; it overrides the server's FOOTNOTED_LLM_* settings."
    : "These are the server's FOOTNOTED_LLM_* settings.";
  $("#llm-reset").hidden = !current.saved;
}

async function loadLLM() {
  try { showLLM(await get("/api/admin/llm")); } catch (error) { $("#llm-status").textContent = error.message; }
}

function llmValues() {
  const form = $("#llm-form");
  const values = { base_url: form.elements.base_url.value.trim(), model: form.elements.model.value.trim() };
  if (form.elements.no_key.checked) values.api_key = null;
  else if (form.elements.api_key.value) values.api_key = form.elements.api_key.value;
  return values; // no api_key: the current key is kept
}

async function saveLLM(event) {
  event.preventDefault();
  const status = $("#llm-status");
  try {
    showLLM(await put("/api/admin/llm", llmValues()));
    status.textContent = "Saved: answers use this connection from the next question on.";
  } catch (error) {
    status.textContent = error.message;
  }
}

async function resetLLM() {
  try {
    showLLM(await request("DELETE", "/api/admin/llm"));
    $("#llm-status").textContent = "The server's defaults apply again.";
  } catch (error) {
    $("#llm-status").textContent = error.message;
  }
}

async function testLLM() {
  const button = $("#llm-test");
  const box = $("#llm-result");
  button.disabled = true;
  box.hidden = false;
  box.className = "llm-result";
  box.textContent = "Asking the model for one word…";
  try {
    const r = await post("/api/admin/llm/test", llmValues());
    box.className = `llm-result ${r.ok ? "ok" : "bad"}`;
    clear(box).append(`${r.ok ? "✓" : "✕"} ${r.message} (${r.latency_ms} ms)`);
    if (r.reply) box.append(el("span", { class: "said", text: `It wrote: “${r.reply}”` }));
    if (r.detail) box.append(el("span", { class: "said", text: `The server said: “${r.detail}”` }));
  } catch (error) {
    box.className = "llm-result bad";
    box.textContent = `✕ ${error.message}`;
  } finally {
    button.disabled = false;
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

// The feedback queue: each item's question, answer, the flagged passage (opened where it
// was cited), who said it and their note; resolved with a note of what was done.
const KIND_LABELS = { helpful: "Helpful", unhelpful: "Not helpful", does_not_say: "Source doesn't say it", wrong_page: "Wrong page" };

export async function refreshFeedback() {
  const list = clear($("#feedback-list"));
  const params = new URLSearchParams({ limit: "200" });
  for (const [key, id] of [["status", "#feedback-status"], ["kind", "#feedback-kind"], ["collection", "#feedback-collection"]]) {
    if ($(id).value) params.set(key, $(id).value);
  }
  const exported = new URLSearchParams();
  if (params.get("collection")) exported.set("collection", params.get("collection"));
  $("#feedback-export").href = `/api/admin/feedback/export${exported.size ? `?${exported}` : ""}`;
  let items;
  try {
    items = await get(`/api/admin/feedback?${params}`);
  } catch (error) {
    list.append(el("li", { class: "form-error", text: error.message }));
    return;
  }
  $("#feedback-count").textContent = `${items.length} item${items.length === 1 ? "" : "s"}`;
  if (!items.length) list.append(el("li", { class: "muted", text: "No feedback here yet." }));
  for (const item of items) list.append(feedbackItem(item));
}

function feedbackItem(item) {
  const kind = KIND_LABELS[item.kind] + (item.citation ? ` · source [${item.citation}]` : "");
  const head = el("div", { class: "feedback-head" },
    el("span", { class: `feedback-kind kind-${item.kind}`, text: kind }),
    el("span", { class: "muted small", text: `${item.user_name} · ${item.collection || "—"} · ${when(item.created_at)}` }),
    item.status === "resolved" ? el("span", { class: "feedback-resolved small", text: `Resolved by ${item.resolved_by}` }) : null);
  const body = [el("p", { class: "feedback-question" }, el("strong", { text: "Q: " }), item.question),
    el("p", { class: "feedback-answer-text muted" }, el("strong", { text: item.answer_type === "refusal" ? "Refused: " : "A: " }), item.answer)];
  if (item.passage) {
    const passage = item.passage;
    const where = [passage.page ? `page ${passage.page}` : null, passage.section].filter(Boolean).join(" · ");
    body.push(el("div", { class: "feedback-passage" },
      el("button", { type: "button", class: "btn btn-small feedback-open", text: `Open “${passage.document_title}”${where ? ` (${where})` : ""}`,
        onclick: () => openViewer(passage, passage.spans || []) }),
      el("blockquote", { class: "source-excerpt", text: passage.quote || passage.excerpt || passage.text })));
  }
  if (item.note) body.push(el("p", { class: "feedback-note-text" }, el("strong", { text: "Note: " }), item.note));
  const fix = item.correction;
  if (fix) {
    const says = fix.unanswerable ? "The documents don't answer this."
      : [fix.answer ? `“${fix.answer}”` : null, fix.document_title, fix.page ? `page ${fix.page}` : null, fix.section].filter(Boolean).join(" · ");
    body.push(el("p", { class: "feedback-correction" }, el("strong", { text: "Right answer: " }), says));
  }
  if (item.status === "resolved") {
    if (item.resolution) body.push(el("p", { class: "muted small", text: `Resolution: ${item.resolution}` }));
  } else {
    const note = el("input", { type: "text", class: "feedback-resolution", maxlength: "2000", "aria-label": "What was done (optional)",
      placeholder: "What was done (optional)" });
    const form = el("form", { class: "feedback-resolve" }, note,
      el("button", { type: "submit", class: "btn btn-small btn-primary", text: "Resolve" }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await post(`/api/admin/feedback/${encodeURIComponent(item.id)}/resolve`, { note: note.value.trim() });
        refreshFeedback();
      } catch (error) {
        form.append(el("span", { class: "form-error", text: error.message }));
      }
    });
    body.push(form);
  }
  return el("li", { class: "feedback-item", dataset: { id: item.id } }, head, ...body);
}
