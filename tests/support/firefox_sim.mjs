// Drives the simulator page in Debian's firefox-esr (headless, WebDriver BiDi through the pinned
// puppeteer-core) for tests/test_sim_export.py: opens URL, presses KEYS one by one (each a key
// press, then at least 8 ticks and 350 ms of the device's clock), reloads, and prints one JSON
// object: the frame after the start, after each press and after the reload, the event lines
// before and after the reload, the Free roll chart's texts before and after the reload, the
// page's errors, and the URLs the page asked for.
//
// usage: node firefox_sim.mjs FIREFOX URL KEY...   (KEY: ArrowUp, ArrowDown, Enter, Escape)

import puppeteer from "puppeteer-core";

const [firefox, url, ...keys] = process.argv.slice(2);
const SETTLE_MS = 350;
const READY = "window.dicepod && (window.dicepod.ready || window.dicepod.errors.length)";
const ENDED = "window.dicepod.usbLines.some((l) => l.includes('\"type\":\"end\"'))";

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: firefox,
  headless: true,
  protocol: "webDriverBiDi",
  extraPrefsFirefox: { "browser.shell.checkDefaultBrowser": false },
});
const out = { frames: [], requests: [], errors: [] };
const chart = () => {
  const texts = (sel) =>
    Array.from(document.querySelectorAll(`#chart ${sel}`), (e) => e.textContent);
  const table = document.querySelectorAll("#charttable tbody tr");
  return {
    hidden: document.getElementById("chart").hidden,
    title: texts(".title"), counts: texts(".count"), pcts: texts(".pct"),
    xtitle: texts(".xtitle"), ytitle: texts(".ytitle"), xticks: texts(".xtick"),
    table: Array.from(table, (tr) => Array.from(tr.cells, (c) => c.textContent)),
  };
};
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  page.on("request", (r) => out.requests.push(r.url().slice(0, 200)));
  const settle = async () => {
    const [ticks, elapsed] = await page.evaluate(() => [dicepod.ticks, dicepod.elapsed]);
    await page.waitForFunction(
      (t, e) => dicepod.ticks >= t && dicepod.elapsed >= e,
      {},
      ticks + 8,
      elapsed + SETTLE_MS,
    );
  };
  const started = async () => {
    await page.waitForFunction(READY);
    await page.waitForFunction(ENDED);
    await settle();
  };
  await page.goto(url);
  await started();
  out.frames.push(await page.evaluate(() => dicepod.frameHex));
  for (const key of keys) {
    await page.keyboard.press(key);
    await settle();
    out.frames.push(await page.evaluate(() => dicepod.frameHex));
  }
  await page.evaluate(() => new Promise(requestAnimationFrame)); // the chart's next drawing
  out.chart = await page.evaluate(chart);
  out.events = await page.evaluate(() => dicepod.eventLines);
  out.status = await page.evaluate(() => document.getElementById("status").textContent);
  await page.reload();
  await started();
  out.reloaded = await page.evaluate(() => dicepod.frameHex);
  out.eventsAfter = await page.evaluate(() => dicepod.eventLines);
  await page.evaluate(() => new Promise(requestAnimationFrame));
  out.chartAfter = await page.evaluate(chart);
  out.errors = await page.evaluate(() => dicepod.errors);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
