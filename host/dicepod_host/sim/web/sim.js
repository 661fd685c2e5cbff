// The dicepod simulator page: MicroPython's WebAssembly port runs the real firmware; this file
// is the hardware layer (OLED canvas, buttons and keys, random source, flash in localStorage,
// USB panel, piezo) exposed to Python as the module `simjs` (see simboard.py).
//
// Test hooks (URL parameters): ?seed=N replaces crypto.getRandomValues with xorshift32 seeded
// like tests/portable/seeded.py (one byte per draw: the low 8 bits), keeps the flash under its
// own localStorage names and fixes the device id; ?wipe=1 starts from an empty flash;
// ?source=1 loads the firmware as source instead of the .mpy files a Pico gets.
// window.dicepod exposes the state a test or benchmark reads (frame, lines, timings, the chart).

import { loadMicroPython } from "./mp/micropython.mjs";

const W = 128;
const H = 64;
const PERIOD_MS = 20; // the Pico's main-loop period (dicepod.app._PERIOD_MS)
const PANEL_ROWS = 2000; // rows kept in the USB panel (the download keeps every event)
const HEAP_BYTES = 512 * 1024; // a Pico has ~190 KB; this port collects only between JS calls

const params = new URLSearchParams(location.search);
// `dicepod sim --export` puts the firmware and the WebAssembly in the page (dicepod-data.js):
// a page opened from file:// may fetch nothing.
const EXPORTED = window.dicepodExport || null;
const SEED = params.has("seed") ? Number(params.get("seed")) >>> 0 : null;
const PREFIX = SEED === null ? "dicepod.sim." : `dicepod.sim.seed${SEED}.`;

const $ = (sel) => document.querySelector(sel);
const canvas = $("#screen");
const ctx = canvas.getContext("2d", { alpha: false });
const statusEl = $("#status");
const errorEl = $("#error");
const usbList = $("#usb");
const hintEl = $("#hint");

const state = {
  started: performance.now(),
  firstFrameMs: null, // ms from navigation start to the first frame drawn
  readyMs: null,
  frame: new Uint8Array((W * H) / 8),
  frameHex: "",
  frames: 0,
  powered: true,
  contrast: 255,
  ticks: 0, // app.tick calls so far
  elapsed: 0, // ms handed to app.tick so far (the device's clock)
  usbLines: [], // every line the device sent
  eventLines: [], // its event lines, each seq once: the log file
  errors: [],
  seed: SEED,
  ready: false,
  timings: {}, // ms since navigation start at each step of the boot
  tones: [], // every tone the firmware sounded, in order: [freq_hz, duty_u16] (a test reads it)
};
window.dicepod = state;

function showError(text) {
  state.errors.push(String(text));
  errorEl.style.display = "block";
  errorEl.textContent = state.errors.join("\n\n");
  console.error(text);
}

// ---- flash (localStorage) ----------------------------------------------------------------------

const store = {
  get(name) {
    try {
      return localStorage.getItem(PREFIX + name);
    } catch {
      return null;
    }
  },
  set(name, text) {
    try {
      localStorage.setItem(PREFIX + name, text);
    } catch (err) {
      showError(`localStorage refused the ${name} (${err.message}): it will not survive a reload`);
    }
  },
  wipe() {
    for (const name of ["journal", "settings", "device"]) localStorage.removeItem(PREFIX + name);
  },
};
if (params.get("wipe") === "1") store.wipe();

function deviceId() {
  if (SEED !== null) return SEED.toString(16).padStart(16, "0");
  let id = store.get("device");
  if (!id || !/^[0-9a-f]{16}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    store.set("device", id);
  }
  return id;
}

// ---- random source -------------------------------------------------------------------------------

function xorshift32(seed) {
  // Same as tests/portable/seeded.py: state = seed * 2654435761 mod 2^32 (or 1).
  let s = Math.imul(seed, 2654435761) >>> 0 || 1;
  return () => {
    let x = s;
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    s = x;
    return x;
  };
}
const nextSeeded = SEED === null ? null : xorshift32(SEED);

function randomBytes(k) {
  const out = new Uint8Array(k);
  if (nextSeeded) for (let i = 0; i < k; i++) out[i] = nextSeeded() & 0xff;
  else crypto.getRandomValues(out); // the firmware's rng driver does the rejection sampling
  return out;
}

function hex(bytes) {
  let s = "";
  for (const b of bytes) s += (b < 16 ? "0" : "") + b.toString(16);
  return s;
}

// ---- OLED ---------------------------------------------------------------------------------------

const geometry = { cell: 8, ox: 0, oy: 0, gap: 1 };
state.geometry = geometry;
let drawPending = false;

function fitCanvas() {
  const rect = canvas.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(W, Math.round(rect.width * dpr));
  const height = Math.max(H, Math.round(rect.height * dpr));
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  // Whole device pixels per OLED pixel when they are big enough to show a gap between them;
  // a small canvas uses a fractional size (cells of uneven width, no gap) rather than waste it.
  const fit = Math.min(width / W, height / H);
  const cell = fit >= 4 ? Math.floor(fit) : Math.max(1, fit);
  geometry.cell = cell;
  geometry.ox = Math.floor((width - cell * W) / 2);
  geometry.oy = Math.floor((height - cell * H) / 2);
  geometry.gap = cell >= 4 ? Math.max(1, Math.round(cell * 0.12)) : 0;
}

// Left edge of OLED column x (or top of row y) on the canvas.
const edge = (origin, i) => origin + Math.round(i * geometry.cell);

function draw() {
  drawPending = false;
  const { cell, ox, oy, gap } = geometry;
  ctx.fillStyle = "#000";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (!state.powered) return;
  if (gap) {
    // the unlit pixels, faintly: the grid of a real panel
    ctx.fillStyle = "#0b0f14";
    for (let y = 0; y < H; y++) ctx.fillRect(ox, edge(oy, y), cell * W - gap, cell - gap);
    ctx.fillStyle = "#000";
    for (let x = 1; x < W; x++) ctx.fillRect(edge(ox, x) - gap, oy, gap, cell * H);
  }
  ctx.fillStyle = "#bfeaff";
  const frame = state.frame;
  for (let page = 0; page < H / 8; page++) {
    for (let x = 0; x < W; x++) {
      const byte = frame[page * W + x];
      if (!byte) continue;
      const left = edge(ox, x);
      const w = edge(ox, x + 1) - left - gap;
      for (let bit = 0; bit < 8; bit++) {
        if (!(byte & (1 << bit))) continue;
        const top = edge(oy, page * 8 + bit);
        ctx.fillRect(left, top, w, edge(oy, page * 8 + bit + 1) - top - gap);
      }
    }
  }
}

function requestDraw() {
  if (!drawPending) {
    drawPending = true;
    requestAnimationFrame(draw);
  }
}

function applyContrast() {
  // An OLED's contrast is gentle: full at 255, about a third at the dimmed level.
  const level = state.powered ? 0.3 + (0.7 * state.contrast) / 255 : 1;
  canvas.style.filter = `brightness(${level.toFixed(3)})`;
}

function showFrame(hexText) {
  const frame = state.frame;
  for (let i = 0; i < frame.length; i++) frame[i] = parseInt(hexText.substr(i * 2, 2), 16);
  state.frameHex = hexText;
  state.frames += 1;
  if (state.firstFrameMs === null) {
    draw(); // the first frame at once (the benchmark's end point)
    state.firstFrameMs = performance.now();
  } else {
    requestDraw();
  }
}

// ---- buttons ------------------------------------------------------------------------------------

let held = 0; // bits of buttons held now
let latched = 0; // bits pressed since the last read: a click shorter than a tick still counts
const buttonEls = new Map();
for (const el of document.querySelectorAll("[data-bit]")) buttonEls.set(Number(el.dataset.bit), el);

function press(bit) {
  held |= bit;
  latched |= bit;
  buttonEls.get(bit)?.classList.add("held");
}
function release(bit) {
  held &= ~bit;
  buttonEls.get(bit)?.classList.remove("held");
}

for (const [bit, el] of buttonEls) {
  el.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    el.setPointerCapture?.(e.pointerId);
    press(bit);
  });
  for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
    el.addEventListener(type, () => release(bit));
  }
  el.addEventListener("contextmenu", (e) => e.preventDefault());
}

const KEYS = {
  ArrowUp: 1, w: 1, W: 1, k: 1,
  ArrowDown: 2, s: 2, S: 2, j: 2,
  Enter: 4, " ": 4, ArrowRight: 4,
  Escape: 8, Backspace: 8, ArrowLeft: 8,
};
window.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  if (e.key === "f" || e.key === "F") {
    toggleFullscreen();
    return;
  }
  const bit = KEYS[e.key];
  if (!bit) return;
  if (e.key === "Escape" && document.fullscreenElement) return; // the browser leaves full screen
  e.preventDefault();
  if (!e.repeat) press(bit); // the firmware does its own auto-repeat
});
window.addEventListener("keyup", (e) => {
  const bit = KEYS[e.key];
  if (bit) release(bit);
});
window.addEventListener("blur", () => {
  for (const bit of buttonEls.keys()) release(bit);
});

function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  else $("#stage").requestFullscreen?.().catch(() => {});
}
// Full screen on a projector: a margin for the overscan the projector cuts off (on by default).
const overscanEl = $("#overscan");
const applyOverscan = () => $("#stage").classList.toggle("overscan", overscanEl.checked);
overscanEl.checked = store.get("overscan") !== "0";
overscanEl.addEventListener("change", () => {
  store.set("overscan", overscanEl.checked ? "1" : "0");
  applyOverscan();
});
applyOverscan();
// The display dims and goes off as on the device only when asked (a class wants it on).
const powersaveEl = $("#powersave");
powersaveEl.checked = store.get("powersave") === "1";
state.powerSaving = powersaveEl.checked;
powersaveEl.addEventListener("change", () => {
  state.powerSaving = powersaveEl.checked;
  store.set("powersave", powersaveEl.checked ? "1" : "0");
});
$("#fullscreen").addEventListener("click", toggleFullscreen);
document.addEventListener("fullscreenchange", () => {
  fitCanvas();
  requestDraw();
});
window.addEventListener("resize", () => {
  fitCanvas();
  requestDraw();
});

// ---- piezo --------------------------------------------------------------------------------------

let audio = null;
let osc = null;
function tone(freq, duty) {
  if (freq) state.tones.push([freq, duty]);
  try {
    if (!freq) {
      osc?.stop();
      osc = null;
      return;
    }
    audio ??= new AudioContext();
    if (audio.state !== "running") return; // no sound before the user has touched the page
    osc?.stop();
    const gain = audio.createGain();
    gain.gain.value = 0.1 * Math.min(1, duty / 32768); // the duty: the device.volume setting
    gain.connect(audio.destination);
    osc = audio.createOscillator();
    osc.type = "square";
    osc.frequency.value = freq;
    osc.connect(gain);
    osc.start();
  } catch {
    osc = null;
  }
}
document.addEventListener("pointerdown", () => audio?.resume?.().catch(() => {}), { once: true });

// ---- USB ----------------------------------------------------------------------------------------

const seenEvents = new Set(); // seq of event lines shown: live and back-filled copies once
let pcToDevice = `hello\ntime ${Math.floor(Date.now() / 1000)}\nsince 0\n`;

function usbLine(text) {
  let obj = null;
  try {
    obj = JSON.parse(text);
  } catch {
    obj = null;
  }
  const li = document.createElement("li");
  li.dataset.line = text;
  li.title = text;
  if (obj && obj.type === "event") {
    if (seenEvents.has(obj.seq)) return;
    seenEvents.add(obj.seq);
    state.eventLines.push(text);
    chartEvent(obj);
    li.className = "event";
    const [kind, data] = obj.event;
    li.append(`#${obj.seq} g${obj.game} `);
    const k = document.createElement("span");
    k.className = "kind";
    k.textContent = kind;
    li.append(k, ` ${JSON.stringify(data)}`);
  } else {
    li.className = "other";
    li.textContent = obj ? `${obj.type} ${text}` : text;
  }
  state.usbLines.push(text);
  const atBottom = usbList.scrollTop + usbList.clientHeight >= usbList.scrollHeight - 4;
  usbList.append(li);
  while (usbList.childElementCount > PANEL_ROWS) usbList.firstElementChild.remove();
  if (atBottom) usbList.scrollTop = usbList.scrollHeight;
  $("#usbcount").textContent = `${seenEvents.size} events, ${state.usbLines.length} lines`;
}

function usbTake() {
  const text = pcToDevice;
  pcToDevice = "";
  return text;
}

$("#download").addEventListener("click", () => {
  const blob = new Blob([state.eventLines.map((l) => l + "\n").join("")], {
    type: "application/x-ndjson",
  });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  const day = new Date().toISOString().slice(0, 10);
  a.download = `dicepod-${state.deviceId}-${day}.jsonl`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});

// Two tabs on one simulated device would interleave two journals: the older tab stops.
window.addEventListener("storage", (e) => {
  if (e.key === PREFIX + "journal" && !stopped) {
    stopped = true;
    showError("This simulated device is now running in another tab: this tab has stopped. " +
      "Reload to take it over.");
  }
});

$("#reset").addEventListener("click", () => {
  if (!confirm("Forget this simulated device's journal and settings?")) return;
  stopped = true;
  store.wipe();
  location.reload();
});

// ---- Free roll chart ----------------------------------------------------------------------------
// Beside the OLED while the current game is Free roll: the counts per face folded from the event
// lines the device sends, as a PC reading its log would (dicepod.replay's undo rule, the app's
// own events stepped over, dicepod.rules.free's counting), drawn with labelled axes, each bar's
// count and share, a fair die's expected count, and the loaded die named while free.loaded is on.

const FACES = 6;
const APP_EVENTS = new Set(["crash", "lost", "quick"]); // dicepod.replay.APP_EVENTS
const SVGNS = "http://www.w3.org/2000/svg";
const gameEvents = new Map(); // game number -> its events [seq, kind, data], in seq order
let currentGame = null; // {seq, game, mode} of the newest new_game
let chartPending = false;
const chartEl = $("#chart");
const chartSvg = $("#chartsvg");
const showChartEl = $("#showchart");
showChartEl.checked = store.get("chart") !== "0";
showChartEl.addEventListener("change", () => {
  store.set("chart", showChartEl.checked ? "1" : "0");
  requestChart();
});
state.chart = null; // what the chart shows: {game, counts, rolls, dice, loaded, weights, ...}

function chartEvent(obj) {
  const [kind, data] = obj.event;
  let list = gameEvents.get(obj.game);
  if (!list) gameEvents.set(obj.game, (list = []));
  let i = list.length; // back-filled and live lines may arrive out of order
  while (i && list[i - 1][0] > obj.seq) i--;
  list.splice(i, 0, [obj.seq, kind, data]);
  if (kind === "new_game" && (!currentGame || obj.seq > currentGame.seq)) {
    currentGame = { seq: obj.seq, game: obj.game, mode: data[0] };
  }
  requestChart();
}

// Drawn at most ten times a second: live to the eye, and light on a school laptop during an
// auto-roll.
const CHART_MS = 100;
let chartDrawn = -CHART_MS;

function requestChart() {
  if (!chartPending) {
    chartPending = true;
    const wait = Math.max(0, chartDrawn + CHART_MS - performance.now());
    setTimeout(() => requestAnimationFrame(drawChart), wait);
  }
}

// The current Free roll game's counts, from its events.
function foldFree(events) {
  const kept = []; // the effective events: an undo cancels the last one, never the new_game
  for (const event of events) {
    if (event[1] !== "undo") kept.push(event);
    else if (kept.length && kept[kept.length - 1][1] !== "new_game") kept.pop();
  }
  const f = { counts: new Array(FACES + 1).fill(0), rolls: 0, dice: 0, loadedRolls: 0,
              loaded: 0, weights: null };
  for (const [, kind, data] of kept) {
    if (APP_EVENTS.has(kind)) continue;
    if (kind === "roll" || kind === "loaded") {
      const dice = kind === "loaded" ? data.slice(FACES) : data;
      for (const face of dice) if (face >= 1 && face <= FACES) f.counts[face] += 1;
      f.rolls += 1;
      f.dice += dice.length;
      if (kind === "loaded") {
        f.loadedRolls += 1;
        f.weights = data.slice(0, FACES);
      }
    } else if (kind === "reset") {
      f.counts.fill(0);
      f.rolls = f.dice = f.loadedRolls = 0;
    } else if (kind === "set" && data[0] === "free.loaded") {
      f.loaded = data[1];
    }
  }
  return f;
}

const fmt = (n) => n.toLocaleString("en-US");
const share = (count, dice) => (dice ? `${((100 * count) / dice).toFixed(1)}%` : "–");

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// A round step for about five ticks up to top: 1, 2 or 5 times a power of ten.
function tickStep(top) {
  const rough = Math.max(1, top / 5);
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
  return 10 * power;
}

function drawChart() {
  chartPending = false;
  chartDrawn = performance.now();
  const free = currentGame && currentGame.mode === "free";
  chartEl.hidden = !(free && showChartEl.checked);
  if (!free) {
    state.chart = null;
    return;
  }
  const f = foldFree(gameEvents.get(currentGame.game) || []);
  f.game = currentGame.game;
  state.chart = f;
  if (chartEl.hidden) return;

  const [L, R, T, B] = [130, 880, 215, 500]; // the plot's edges in the 900 x 600 view
  const slot = (R - L) / FACES;
  const expected = f.dice / FACES;
  const max = Math.max(...f.counts.slice(1), expected, 5); // an empty chart's axis: 0 to 5
  const step = tickStep(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const y = (v) => B - ((B - T) * v) / top;
  const nodes = [];
  const text = (x, yy, str, attrs) => nodes.push(svgEl("text", { x, y: yy, ...attrs }, str));
  const title = `Free roll: ${fmt(f.dice)} ${f.dice === 1 ? "die" : "dice"} in ` +
    `${fmt(f.rolls)} ${f.rolls === 1 ? "roll" : "rolls"}`;
  text(20, 48, title, { "font-size": 36, "font-weight": 700, fill: "#e4e6ea", class: "title" });
  let loadedLine = "";
  if (f.loaded) {
    loadedLine = `LOADED DIE: face ${f.loaded} favoured` +
      (f.weights ? ` (weights ${f.weights.join(":")})` : "");
  } else if (f.loadedRolls) {
    loadedLine = `${fmt(f.loadedRolls)} of these rolls were with the loaded die`;
  }
  if (loadedLine) {
    text(20, 92, loadedLine, { "font-size": 30, "font-weight": 700, fill: "#ffb347",
                               class: "loaded" });
  }
  // the axes' ticks and grid
  for (let v = 0; v <= top; v += step) {
    nodes.push(svgEl("line", { x1: L, x2: R, y1: y(v), y2: y(v), stroke: "#2c313a",
                               "stroke-width": 2 }));
    text(L - 14, y(v) + 9, fmt(v), { "font-size": 26, fill: "#c5cad2", "text-anchor": "end",
                                     class: "ytick" });
  }
  text(0, 0, "Rolls", { "font-size": 30, "font-weight": 700, fill: "#e4e6ea",
                        "text-anchor": "middle", class: "ytitle",
                        transform: `translate(34 ${(T + B) / 2}) rotate(-90)` });
  text((L + R) / 2, 590, "Face", { "font-size": 30, "font-weight": 700, fill: "#e4e6ea",
                                   "text-anchor": "middle", class: "xtitle" });
  const labels = []; // each bar's count and share, drawn last: over the fair die's line
  for (let face = 1; face <= FACES; face++) {
    const count = f.counts[face];
    const mid = L + slot * (face - 0.5);
    const favoured = f.loaded === face;
    const colour = favoured ? "#ffb347" : "#7fd4ff";
    const bar = svgEl("rect", { x: mid - slot * 0.3, y: y(count), width: slot * 0.6,
                                height: B - y(count), fill: colour, class: "bar" });
    bar.dataset.face = face;
    nodes.push(bar);
    const label = fmt(count);
    const size = Math.min(32, Math.floor((slot * 0.98) / (0.6 * label.length)));
    labels.push([mid, y(count) - 40, label, { "font-size": size, "font-weight": 700,
                                              fill: "#e4e6ea", class: "count" }]);
    labels.push([mid, y(count) - 10, share(count, f.dice), { "font-size": 24, fill: "#c5cad2",
                                                             class: "pct" }]);
    text(mid, B + 40, String(face), { "font-size": 34, "font-weight": 700, fill: colour,
                                      "text-anchor": "middle", class: "xtick" });
    if (favoured) {
      text(mid, B + 64, "loaded", { "font-size": 20, fill: colour, "text-anchor": "middle",
                                    class: "xloaded" });
    }
  }
  if (f.dice) {
    const ey = y(expected);
    nodes.push(svgEl("line", { x1: L, x2: R, y1: ey, y2: ey, stroke: "#f5f5f5",
                               "stroke-width": 3, "stroke-dasharray": "10 8", class: "expected" }));
    nodes.push(svgEl("line", { x1: 470, x2: 520, y1: 128, y2: 128, stroke: "#f5f5f5",
                               "stroke-width": 3, "stroke-dasharray": "10 8" }));
    text(530, 136, `fair die: ${expected.toFixed(1)} each`, { "font-size": 24, fill: "#c5cad2",
                                                              class: "legend" });
  } else {
    text((L + R) / 2, (T + B) / 2, "No rolls yet: press OK to roll", {
      "font-size": 30, fill: "#9aa1ab", "text-anchor": "middle", class: "empty" });
  }
  for (const [x, yy, str, attrs] of labels) {
    text(x, yy, str, { ...attrs, "text-anchor": "middle", stroke: "#0e1014", "stroke-width": 8,
                       "paint-order": "stroke", "stroke-linejoin": "round" });
  }
  nodes.push(svgEl("line", { x1: L, x2: R, y1: B, y2: B, stroke: "#c5cad2", "stroke-width": 3 }));
  nodes.push(svgEl("line", { x1: L, x2: L, y1: T - 10, y2: B, stroke: "#c5cad2",
                             "stroke-width": 3 }));
  chartSvg.replaceChildren(...nodes);

  // the same numbers as a table, for a screen reader
  $("#charttitle").textContent = title + (loadedLine ? `. ${loadedLine}` : "");
  const rows = [];
  for (let face = 1; face <= FACES; face++) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = String(face);
    tr.append(th);
    const count = f.counts[face];
    for (const cell of [fmt(count), share(count, f.dice)]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    rows.push(tr);
  }
  $("#charttable tbody").replaceChildren(...rows);
}

// ---- MicroPython --------------------------------------------------------------------------------

const simjs = {
  show: (hexText) => showFrame(hexText),
  contrast: (level) => {
    state.contrast = level;
    applyContrast();
  },
  power: (on) => {
    state.powered = !!on;
    applyContrast();
    requestDraw();
    hintEl.textContent = on ? "" : "The display is off (power saving): press any button.";
  },
  buttons: () => {
    const raw = held | latched;
    latched = 0;
    return raw;
  },
  random_hex: (k) => hex(randomBytes(k)),
  // A new journal's identity: always from crypto (a ?seed= run's seeded bytes are the dice's).
  random_id: (k) => hex(crypto.getRandomValues(new Uint8Array(k))),
  load: (name) => store.get(name),
  save: (name, text) => store.set(name, text),
  append: (name, text) => store.set(name, (store.get(name) || "") + text),
  usb_line: (text) => usbLine(text),
  usb_take: () => usbTake(),
  tone: (freq, duty) => tone(freq, duty),
  device_id: () => state.deviceId,
  power_saving: () => (state.powerSaving ? 1 : 0),
};

let stopped = false;
const stdoutLines = [];

function pythonError(err) {
  // A PythonError carries the traceback in .message; anything else is a JS error.
  return err && err.type ? `${err.type}\n${err.message}` : String(err && err.stack ? err.stack : err);
}

async function boot() {
  state.deviceId = deviceId();
  fitCanvas();
  draw();
  const mark = (name) => (state.timings[name] = Math.round(performance.now()));
  const [mp, bundle] = await Promise.all([
    loadMicroPython({
      heapsize: HEAP_BYTES,
      url: EXPORTED?.wasm, // an exported page carries the WebAssembly as a data: URL
      stdout: (line) => {
        stdoutLines.push(line);
        console.log(line);
      },
      stderr: (line) => console.warn(line),
    }).then((m) => (mark("micropython"), m)),
    EXPORTED
      ? Promise.resolve(EXPORTED.bundle).then((b) => (mark("bundle"), b))
      : fetch(params.has("source") ? "bundle.json?source=1" : "bundle.json").then((r) => {
          if (!r.ok) throw new Error(`bundle.json: HTTP ${r.status}`);
          return r.json().then((b) => (mark("bundle"), b));
        }),
  ]);
  const FS = mp.FS;
  const write = (root, files) => {
    for (const [path, text] of Object.entries(files)) {
      const full = `${root}/${path}`;
      FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
      FS.writeFile(full, text);
    }
  };
  write("/flash", bundle.firmware); // the Pico's file system: main.py, dicepod/...
  const mpy = {}; // the modules as `dicepod deploy` puts them on a Pico: .mpy bytecode
  for (const [path, b64] of Object.entries(bundle.mpy || {})) {
    mpy[path] = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  }
  write("/flash", mpy);
  write("/sim", bundle.sim);
  mp.registerJsModule("simjs", simjs);
  mp.runPython("import os, sys\nos.chdir('/flash')\nsys.path.append('/sim')");
  mark("files");
  const simboard = mp.pyimport("simboard");
  mark("imported");
  simboard.start();
  mark("started");
  const tick = simboard.tick;
  // Test hook: let ms of idle time pass at once, in 20 ms ticks (virtual time, as on the Pico).
  state.idle = (ms) => {
    for (let t = 0; t < ms; t += PERIOD_MS) tick(PERIOD_MS);
    state.elapsed += ms;
  };
  state.readyMs = performance.now();
  state.ready = true;
  const mode = SEED === null ? "" : ` · seeded randomness (test mode, seed ${SEED})`;
  statusEl.textContent =
    `MicroPython ${bundle.package || bundle.micropython} (WebAssembly) · device ${state.deviceId}` +
    ` · ready in ${Math.round(state.readyMs)} ms${mode}`;

  let last = performance.now();
  let carry = 0;
  const timer = setInterval(() => {
    if (stopped) {
      clearInterval(timer);
      return;
    }
    const now = performance.now();
    carry += now - last;
    last = now;
    const dt = Math.floor(carry); // a throttled background tab: one long tick, as after a sleep
    carry -= dt;
    try {
      tick(dt);
      state.ticks += 1;
      state.elapsed += dt;
    } catch (err) {
      stopped = true;
      clearInterval(timer);
      showError(`The simulator stopped: ${pythonError(err)}`);
    }
  }, PERIOD_MS);
}

boot().catch((err) => {
  stopped = true;
  statusEl.textContent = "failed to start";
  showError(`The simulator could not start: ${pythonError(err)}\n${stdoutLines.slice(-20).join("\n")}`);
});
