"""Benchmark: time from `dicepod sim` (the command) to the simulator's first frame on the canvas,
in headless Chromium (Debian's /usr/bin/chromium through Playwright). Goal: under 2 s.

Each run starts a fresh `dicepod sim --port 0` process and a fresh browser context (empty cache:
the WebAssembly module and the firmware are fetched and compiled every time). The browser itself
is started once beforehand with an empty tab, as a user's browser already runs. The end point
is the page's window.dicepod.firstFrameMs (set right after MicroPython drew the first frame),
taken on the same wall clock as the command's start. The firmware's .mpy cache (build/sim-mpy)
is warm after the first run, as it is for a user's second start.
"""

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RUNS = 5
GOAL_S = 2.0


def dicepod_command():
    """The installed `dicepod` next to this Python, else `python -m dicepod_host.cli`."""
    here = Path(sys.executable).parent / "dicepod"
    return [str(here)] if here.exists() else [sys.executable, "-m", "dicepod_host.cli"]


def one_run(browser):
    """Return (command->first frame s, command->address printed s, page->first frame s)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()  # a browser tab already open, as a user's is
    t0 = time.time()
    proc = subprocess.Popen(
        dicepod_command() + ["sim", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        line = proc.stdout.readline()
        t_served = time.time()
        match = re.search(r"http://\S+/", line)
        if not match:
            raise RuntimeError("dicepod sim printed no address: %r %s" % (line, proc.stderr.read()))
        page.goto(match.group(0))
        page.wait_for_function(
            "window.dicepod && (window.dicepod.firstFrameMs !== null || "
            "window.dicepod.errors.length)",
            timeout=30_000,
        )
        errors = page.evaluate("window.dicepod.errors")
        if errors:
            raise RuntimeError("the simulator failed: %s" % errors)
        origin, first = page.evaluate("[performance.timeOrigin, window.dicepod.firstFrameMs]")
        t_frame = (origin + first) / 1000.0
        return t_frame - t0, t_served - t0, first / 1000.0
    finally:
        context.close()
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def main():
    """Print the time to the first frame over RUNS runs."""
    if not os.path.exists(CHROMIUM):
        print("sim: skipped (no %s; apt-get install chromium)" % CHROMIUM)
        return 0
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=LAUNCH_ARGS, timeout=60_000
        )
        try:
            runs = [one_run(browser) for _ in range(RUNS)]
        finally:
            browser.close()
    totals = [r[0] for r in runs]
    median = statistics.median(totals)
    print(
        "sim: command to first frame %.2f s median over %d runs (min %.2f, max %.2f; goal < %.0f s)"
        % (median, RUNS, min(totals), max(totals), GOAL_S)
    )
    print(
        "sim:   of which the server up %.2f s, page load to first frame %.2f s (medians)"
        % (statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs))
    )
    if median >= GOAL_S:
        print("sim: over the goal (a loaded machine? see `uptime`)")
    return 0


if __name__ == "__main__":
    from bench import recorded

    sys.exit(recorded("bench_sim", main))
