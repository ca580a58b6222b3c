// gradcalc serve's page: an editor, POST /api/run, the output, the vars table and the graph picture.
// Plain JavaScript, no library: the page works with no network but the server's.
"use strict";


const $ = (id) => document.getElementById(id);
const source = $("source"), highlight = $("highlight"), gutter = $("gutter");
let lastAnswer = null;

// ---------------------------------------------------------------- highlighting (Python, lightweight)

const KEYWORDS = new Set(("False None True and as assert async await break class continue def del elif else except " +
  "finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case")
  .split(" "));
const BUILTINS = new Set(("print len range int float str list dict tuple set bool abs min max sum zip enumerate map " +
  "filter isinstance type super round sorted reversed any all repr hasattr getattr setattr iter next").split(" "));
const TOKEN = /(#[^\n]*)|((?:[rRbBuUfF]{0,2})(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))|(@[A-Za-z_][\w.]*)|\b(\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?j?|\.\d[\d_]*(?:[eE][+-]?\d+)?)\b|([A-Za-z_]\w*)/g;

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function highlighted(text) {
  let out = "", last = 0, match;
  TOKEN.lastIndex = 0;
  while ((match = TOKEN.exec(text)) !== null) {
    out += escapeHtml(text.slice(last, match.index));
    const [whole, comment, string, decorator, number, word] = match;
    let kind = comment ? "com" : string ? "str" : decorator ? "dec" : number ? "num" : "";
    if (word) {
      if (word === "True" || word === "False" || word === "None") kind = "const";
      else if (KEYWORDS.has(word)) kind = "kw";
      else if (BUILTINS.has(word) || text[TOKEN.lastIndex] === "(") kind = "fn";
    }
    out += kind ? `<span class="t-${kind}">${escapeHtml(whole)}</span>` : escapeHtml(whole);
    last = TOKEN.lastIndex;
  }
  return out + escapeHtml(text.slice(last)) + "\n";  // the newline keeps a last empty line's height
}

function refresh() {
  const text = source.value;
  highlight.innerHTML = highlighted(text);
  const lines = text.split("\n").length;
  let numbers = "";
  for (let i = 1; i <= lines; i++) numbers += i + "\n";
  gutter.textContent = numbers;
  // the textarea grows with its text: the editor box scrolls, gutter and highlight with it
  source.style.height = highlight.offsetHeight + "px";
  source.style.width = highlight.scrollWidth + "px";
}

// ---------------------------------------------------------------- editing keys

function replaceSelection(start, end, text, selectStart, selectEnd) {
  source.setSelectionRange(start, end);
  // execCommand keeps the browser's undo history; setRangeText where it is gone
  if (!document.execCommand("insertText", false, text)) source.setRangeText(text, start, end, "end");
  source.setSelectionRange(selectStart, selectEnd);
  refresh();
}

function indentLines(dedent) {
  const text = source.value, start = source.selectionStart, end = source.selectionEnd;
  if (!dedent && start === end) {
    const column = start - text.lastIndexOf("\n", start - 1) - 1;
    const spaces = " ".repeat(4 - (column % 4));
    replaceSelection(start, end, spaces, start + spaces.length, start + spaces.length);
    return;
  }
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = end > start && text[end - 1] === "\n" ? end - 1 : end;
  const block = text.slice(lineStart, lineEnd);
  const changed = block.split("\n").map((line) => dedent ? line.replace(/^ {1,4}/, "") : "    " + line).join("\n");
  const first = dedent ? -(block.length - block.replace(/^ {1,4}/, "").length) : 4;
  replaceSelection(lineStart, lineEnd, changed, Math.max(lineStart, start + first),
                   lineEnd + changed.length - block.length);
}

function newline() {
  const text = source.value, start = source.selectionStart;
  const line = text.slice(text.lastIndexOf("\n", start - 1) + 1, start);
  let indent = line.match(/^ */)[0];
  if (/:\s*(#.*)?$/.test(line)) indent += "    ";
  const inserted = "\n" + indent;
  replaceSelection(start, source.selectionEnd, inserted, start + inserted.length, start + inserted.length);
}

source.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    run();
  } else if (event.key === "Tab" && !event.ctrlKey && !event.altKey && !event.metaKey) {
    event.preventDefault();  // Esc then Tab leaves the editor (see below)
    indentLines(event.shiftKey);
  } else if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    newline();
  } else if (event.key === "Escape") {
    source.blur();  // the keyboard's way out of an editor that keeps Tab
    $("run").focus();
  }
});
source.addEventListener("input", refresh);
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target !== source) {
    event.preventDefault();
    run();
  }
});

// ---------------------------------------------------------------- running

function setStatus(text, bad) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("bad", !!bad);
}

function colouredStderr(text) {
  // as a terminal colours gradcalc's stderr: warnings yellow, the error that ended the run red
  return text.split("\n").map((line) => {
    const safe = escapeHtml(line);
    if (/^(Time limit exceeded|Memory limit|Output limit|\[output cut|The run failed)/.test(line))
      return `<span class="o-limit">${safe}</span>`;
    if (/^[\w.]*Warning: /.test(line)) return `<span class="o-warn">${safe}</span>`;
    if (/^[\w.]*(Error|Exception|Interrupt|Exit)\b/.test(line) || /^gradcalc: /.test(line))
      return `<span class="o-err">${safe}</span>`;
    return safe;
  }).join("\n");
}

async function run() {
  const button = $("run");
  if (button.disabled) return;
  button.disabled = true;
  setStatus("Running…");
  const started = performance.now();
  try {
    const response = await fetch("/api/run", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({source: source.value, graphs: "*"}),
    });
    const answer = await response.json();
    if (!response.ok) {
      showError(answer.error || `The server answered ${response.status}.`);
      setStatus(`Not run (${response.status})`, true);
      return;
    }
    show(answer);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const how = answer.limit ? `${answer.limit} limit` : `exit status ${answer.status}`;
    setStatus(`${how} · ${seconds} s`, answer.limit || answer.status);
  } catch (error) {
    showError("The server could not be reached: " + error.message);
    setStatus("Not run", true);
  } finally {
    button.disabled = false;
  }
}

function showError(message) {
  $("stdout").textContent = "";
  const stderr = $("stderr");
  stderr.hidden = false;
  stderr.innerHTML = `<span class="o-limit">${escapeHtml(message)}</span>`;
}

function show(answer) {
  lastAnswer = answer;
  $("stdout").textContent = answer.stdout;
  const stderr = $("stderr");
  stderr.hidden = !answer.stderr;
  stderr.innerHTML = colouredStderr(answer.stderr.replace(/\n$/, ""));
  showVars(answer.vars);
  const names = answer.vars.tensors.map((row) => row.name);
  const picked = $("graph-name").dataset.name;
  if (picked && names.includes(picked)) pick(picked);
  else if (names.length) pick(names.includes("loss") ? "loss" : names[names.length - 1]);
  else showGraph(null);
}

const TENSOR_COLUMNS = ["name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad", "retains_grad",
                        "version"];
const MODULE_COLUMNS = ["name", "type", "parameters", "elements", "requires_grad", "with grad", "training"];

function cellClass(column, value) {
  if (value === "True") return "v-true";
  if (value === "False" || value === "None" || value === "-") return "v-none";
  return column === "grad_fn" ? "v-fn" : "";
}

function table(title, columns, rows, pickable) {
  const head = columns.map((column) => `<th scope="col">${escapeHtml(column)}</th>`).join("");
  const body = rows.map((row) => {
    const cells = columns.map((column, i) => {
      const value = row[column] ?? "";
      if (i === 0 && pickable)
        return `<td><button type="button" data-name="${escapeHtml(value)}" title="Show the graph behind ${
          escapeHtml(value)}">${escapeHtml(value)}</button></td>`;
      return `<td class="${cellClass(column, value)}">${escapeHtml(value)}</td>`;
    }).join("");
    return `<tr data-row="${escapeHtml(row.name)}">${cells}</tr>`;
  }).join("");
  return `<table><caption>${title}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function showVars(vars) {
  const parts = [];
  if (vars.tensors.length) {
    const typed = vars.tensors.some((row) => row.type !== "Tensor");
    const columns = typed ? ["name", "type", ...TENSOR_COLUMNS.slice(1)] : TENSOR_COLUMNS;
    parts.push(table("Tensors", columns, vars.tensors, true));
  }
  if (vars.modules.length) parts.push(table("Modules", MODULE_COLUMNS, vars.modules, false));
  $("vars").innerHTML = parts.length ? parts.join("") : '<p class="dim">No tensors or modules.</p>';
}

function pick(name) {
  for (const row of $("vars").querySelectorAll("tr[data-row]"))
    row.classList.toggle("picked", row.dataset.row === name);
  showGraph(name);
}

function showGraph(name) {
  const label = $("graph-name");
  label.dataset.name = name || "";
  label.textContent = name ? `of ${name}` : "";
  const svg = name && lastAnswer && lastAnswer.graphs[name];
  // the picture is gradcalc's own SVG, every text in it escaped by the server
  $("graph").innerHTML = svg || '<p class="dim">No tensor picked.</p>';
}

$("vars").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-name]");
  if (button) pick(button.dataset.name);
});
$("run").addEventListener("click", run);

// ---------------------------------------------------------------- share links: the program in the fragment

function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function through(stream, bytes) {
  const piped = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

async function shareLink() {
  const packed = await through(new CompressionStream("deflate"), new TextEncoder().encode(source.value));
  return `${location.origin}${location.pathname}#code=${toBase64Url(packed)}`;
}

async function programFromFragment() {
  const match = location.hash.match(/^#code=([A-Za-z0-9_-]+)$/);
  if (!match) return null;
  try {
    return new TextDecoder().decode(await through(new DecompressionStream("deflate"), fromBase64Url(match[1])));
  } catch (error) {
    setStatus("The link's program could not be read.", true);
    return null;
  }
}

$("share").addEventListener("click", async () => {
  const link = await shareLink();
  history.replaceState(null, "", link);
  const note = $("share-note");
  note.hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    note.textContent = "Link copied: " + link;
  } catch (error) {
    note.textContent = "Link: " + link;
  }
});

// ---------------------------------------------------------------- examples, theme, size

async function loadExamples() {
  try {
    const examples = await (await fetch("/api/examples")).json();
    const select = $("examples");
    examples.forEach((example, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = example.name;
      select.appendChild(option);
    });
    select.addEventListener("change", () => {
      const example = examples[Number(select.value)];
      if (!example) return;
      source.value = example.source;
      refresh();
      history.replaceState(null, "", location.pathname);
      select.value = "";
      source.focus();
    });
  } catch (error) { /* the menu stays empty */ }
}

async function loadLimits() {
  try {
    const limits = await (await fetch("/api/limits")).json();
    const mib = (bytes) => bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes / 1024} KiB`;
    $("limits").textContent = `Limits per run: ${limits.time} s, ${mib(limits.memory)} of memory, ` +
      `${mib(limits.output)} of output, ${mib(limits.source)} of program.`;
  } catch (error) { /* nothing to say */ }
}

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem("gradcalc-theme", theme);
}
$("theme").addEventListener("click", () =>
  setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark"));

function setSize(size) {
  const bounded = Math.min(32, Math.max(12, size));
  document.documentElement.style.setProperty("--size", bounded + "px");
  localStorage.setItem("gradcalc-size", String(bounded));
  refresh();
}
const currentSize = () => Number(localStorage.getItem("gradcalc-size")) || 17;
$("larger").addEventListener("click", () => setSize(currentSize() + 2));
$("smaller").addEventListener("click", () => setSize(currentSize() - 2));

(async function start() {
  const saved = localStorage.getItem("gradcalc-theme");
  setTheme(saved || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  if (localStorage.getItem("gradcalc-size")) setSize(currentSize());
  source.value = (await programFromFragment()) ??
    await fetch("/static/seed.grad").then((answer) => (answer.ok ? answer.text() : ""));
  refresh();
  loadExamples();
  loadLimits();
  source.focus();
})();
