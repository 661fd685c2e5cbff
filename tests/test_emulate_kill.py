"""Killing `dicepod emulate` leaves nothing behind: TERM, HUP and even KILL stop the device it
runs (the MicroPython unix port, or the emulated Pico's Node process), as a Pico loses power
with its cable. A device left running would go on journaling, and a second emulator on the same
flash would then corrupt it."""

import os
import signal
import subprocess
import sys
import time

import pytest
from pico_support import need_pico


def _children(pid):
    """The pids of pid's child processes (Linux /proc)."""
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return found


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited (its parent has not reaped it yet)


def _start(args, tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "dicepod_host.cli", "emulate", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ),
    )
    line = proc.stdout.readline()
    assert line.startswith("port: "), line
    deadline = time.monotonic() + 20
    kids = []
    while time.monotonic() < deadline and not kids:
        kids = _children(proc.pid)
        time.sleep(0.05)
    assert kids, "emulate started no device process"
    return proc, kids


def _kill_and_check(proc, kids, sig):
    os.kill(proc.pid, sig)
    proc.wait(15)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.05)
    left = [k for k in kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, "device process %s outlived `dicepod emulate` (signal %d)" % (left, sig)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_killing_the_unix_port_emulator_stops_its_micropython(tmp_path, sig):
    proc, kids = _start(["--monkey", "0", "--flash", str(tmp_path / "flash")], tmp_path)
    _kill_and_check(proc, kids, sig)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killing_the_pico_emulator_stops_its_chip(tmp_path, sig):
    need_pico()
    proc, kids = _start(["--pico", "--monkey", "0", "--flash", str(tmp_path / "f.img")], tmp_path)
    _kill_and_check(proc, kids, sig)
    # The flash image stays, whole, for the next run.
    assert (tmp_path / "f.img").stat().st_size == 2 * 1024 * 1024
