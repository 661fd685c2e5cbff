// The dashboard: polls /data.json every second and draws tables and SVG charts from it.
// Nothing here fetches anything but this server's own data.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
let lastKey = null;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function pct(x) { return x === null || x === undefined ? "-" : (100 * x).toFixed(1) + "%"; }
function num(x, d) { return x === null || x === undefined ? "-" : Number(x).toFixed(d); }
function when(t) { return t ? new Date(t * 1000).toLocaleString() : ""; }

function table(head, rows, cls) {
  const t = el("table", cls ? { class: cls } : {});
  t.append(el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const row of rows) {
    t.append(el("tr", {}, ...row.map((c) => el("td", typeof c === "number" ? { class: "n" } : {}, String(c)))));
  }
  return t;
}

function league(data) {
  const box = document.getElementById("league");
  const modes = Object.keys(data.league).sort();
  if (!modes.length) return;
  box.replaceChildren();
  for (const mode of modes) {
    const rows = data.league[mode].map((r) => [
      r.player, r.played, r.won, r.drawn, r.lost,
      r.played ? pct(r.rate) + " (95% " + pct(r.low) + "-" + pct(r.high) + ")" : "- (none finished yet)",
      r.in_progress ? r.in_progress + " in progress" + (mode === "battle" ? " (" + r.games + " games played)" : "") : "",
    ]);
    const n = data.league[mode].reduce((a, r) => a + r.played, 0);
    box.append(el("h3", {}, mode + " (n = " + n + " finished player-" + (mode === "battle" ? "series" : "games") + ")"));
    box.append(table(["player", "played", "won", "drawn", "lost", "win rate", "under way"], rows, "league " + mode));
  }
}

function h2h(data) {
  const box = document.getElementById("h2h");
  const modes = Object.keys(data.head_to_head).sort();
  if (!modes.length) return;
  box.replaceChildren();
  for (const mode of modes) {
    const rows = data.head_to_head[mode].map((h) => [h.a, h.a_won, h.b_won, h.b, h.drawn, h.played]);
    box.append(el("h3", {}, mode));
    box.append(table(["player", "won", "won", "player", "drawn", "n"], rows, "h2h " + mode));
  }
}

function recent(data) {
  const rows = data.recent.map((r) => [
    when(r.ended), r.device, r.game + (r.play > 1 ? "." + r.play : ""), r.mode,
    r.players.join(" v "), r.winner || r.result || "", r.scores.join("-"), r.outcome,
    num(r.seconds, 0) + " s", r.finished ? "yes" : "no",
  ]);
  document.getElementById("recent").replaceChildren(table(
    ["ended", "device", "game", "mode", "players", "winner", "scores", "outcome", "length", "finished"],
    rows, "recent"));
}

// A bar chart: bars (observed), an expected value per bar (line or dots) with its 95 % band.
function chart(title, labels, observed, expected, bands, caption, id) {
  const W = 460, H = 220, L = 44, B = 28, T = 22;
  const top = Math.max(1, ...observed, ...bands.map((b) => b[1]), ...expected) * 1.1;
  const s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
  const x = (i) => L + (i + 0.5) * (W - L - 8) / labels.length;
  const y = (v) => H - B - (v / top) * (H - B - T);
  const bw = Math.max(2, 0.7 * (W - L - 8) / labels.length);
  const t = svg("text", { x: L, y: 14, "font-size": 13 });
  t.textContent = title;
  s.append(t);
  for (let k = 0; k <= 4; k++) {
    const v = top * k / 4;
    s.append(svg("line", { x1: L, x2: W - 8, y1: y(v), y2: y(v), stroke: "#eee" }));
    const lab = svg("text", { x: L - 4, y: y(v) + 4, "font-size": 10, "text-anchor": "end" });
    lab.textContent = v >= 10 ? Math.round(v) : v.toFixed(2);
    s.append(lab);
  }
  labels.forEach((label, i) => {
    s.append(svg("rect", { x: x(i) - bw / 2, y: y(bands[i][1]), width: bw, height: Math.max(1, y(bands[i][0]) - y(bands[i][1])), fill: "#f3c7c2", class: "band" }));
    s.append(svg("rect", { x: x(i) - bw / 4, y: y(observed[i]), width: bw / 2, height: y(0) - y(observed[i]), fill: "#4a7ab5", class: "bar" }));
    s.append(svg("line", { x1: x(i) - bw / 2, x2: x(i) + bw / 2, y1: y(expected[i]), y2: y(expected[i]), stroke: "#c0392b", "stroke-width": 2 }));
    const lab = svg("text", { x: x(i), y: H - B + 14, "font-size": 10, "text-anchor": "middle" });
    lab.textContent = label;
    s.append(lab);
  });
  return el("figure", { id: id }, s, el("figcaption", {}, caption));
}

function p(x) { return x === null || x === undefined ? "-" : x < 0.001 ? "< 0.001" : x.toFixed(3); }

function dice(data) {
  const d = data.dice, box = document.getElementById("dice");
  box.replaceChildren();
  const f = d.faces;
  if (f.dice) {
    box.append(chart("faces of every die rolled (n = " + f.dice + " dice, " + f.undone + " of undone rolls included)", [1, 2, 3, 4, 5, 6],
      f.counts, f.counts.map(() => f.expected), f.counts.map(() => f.band),
      "chi-square " + num(f.chi_square, 2) + " (" + f.df + " df), p = " + p(f.p_value) + ": " +
      (f.fair_at_1pc ? "consistent with fair dice" : "NOT consistent with fair dice") + " at the 1% level",
      "faces"));
  }
  for (const s of d.sums) {
    box.append(chart("sum of " + s.dice + " dice (n = " + s.rolls + " rolls)", s.sums, s.counts,
      s.exact.map((q) => q * s.rolls), s.bands,
      "exact distribution of the sum of " + s.dice + " fair dice; chi-square " + num(s.chi_square, 2) +
      " (" + s.df + " df, sparse sums pooled), p = " + p(s.p_value) + "; every roll the dice made, undone ones included", "sum" + s.dice));
  }
  const rows = Object.entries(d.devices).map(([dev, g]) => [dev, g.dice, ...g.counts, num(g.chi_square, 2), p(g.p_value), g.fair_at_1pc ? "fair" : (g.dice ? "NOT fair" : "-")]);
  document.getElementById("devices").replaceChildren(table(["device", "n", "1", "2", "3", "4", "5", "6", "chi-square", "p", "at 1%"], rows, "devices"));
  const rates = document.getElementById("rates");
  rates.replaceChildren();
  if (d.battle && d.battle.battle_rolls) {
    const k = d.battle.kinds;
    rates.append(chart("Battle Rolls holding each scoring roll (n = " + d.battle.battle_rolls + ")",
      k.map((r) => r.kind.replace(/_/g, " ")), k.map((r) => r.rate), k.map((r) => r.exact), k.map((r) => r.band),
      "moves that counted (undone ones left out). bars: logged share; line: exact chance; shaded: 95% band for n rolls. Busts over every roll and re-roll: " +
      d.battle.busts.observed + " of " + d.battle.busts.trials + ", expected " + num(d.battle.busts.expected, 1) +
      " (z = " + num(d.battle.busts.z, 2) + ")", "battle"));
  }
  if (d.tests && d.tests.length) {
    rates.append(chart("Tests: success rate per die by Target Number (n = " + d.tests.reduce((a, r) => a + r.dice, 0) + " dice)",
      d.tests.map((r) => r.tn + "+ (n=" + r.dice + ")"), d.tests.map((r) => r.rate), d.tests.map((r) => r.exact), d.tests.map((r) => r.band),
      "each Target Number's two-sided test: " + d.tests.map((r) => r.tn + "+ p = " + p(r.p_value)).join(", "), "tests"));
  }
}

function draw(data) {
  const status = document.getElementById("status");
  status.className = "";
  status.textContent = data.events + " events from " + data.devices.length + " device(s), " +
    data.games + " games (" + data.finished + " finished); updated " + new Date().toLocaleTimeString();
  status.dataset.events = data.events;
  const key = data.events + ":" + data.newest;
  if (key === lastKey) return;
  lastKey = key;
  league(data);
  h2h(data);
  recent(data);
  dice(data);
}

async function poll() {
  try {
    const reply = await fetch("data.json", { cache: "no-store" });
    const data = await reply.json();
    if (data.error) throw new Error(data.error);
    draw(data);
  } catch (err) {
    const status = document.getElementById("status");
    status.className = "stale";
    status.textContent = "not updated: " + err.message;
  }
  setTimeout(poll, 1000);
}

window.dicepodDash = { draw };
poll();
