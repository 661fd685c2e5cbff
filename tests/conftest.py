"""pytest configuration shared by every test: the firmware, host and portable test folders are
importable (see pyproject's pythonpath), and `portable` tests are also collected directly."""

import gc
import os
import signal
import sys
import tempfile
from pathlib import Path

import pytest

_PORTABLE = Path(__file__).resolve().parent / "portable"
if str(_PORTABLE) not in sys.path:
    sys.path.insert(0, str(_PORTABLE))

from checks import Skip  # noqa: E402  (tests/portable/checks.py, on the path just above)

# Ctrl-C for the children: tests stop `dicepod log` and other CLI runs with SIGINT, as a person
# does. A run started where SIGINT is ignored (a shell's background job, `cmd &`, ignores it and
# every child inherits that; Python then installs no KeyboardInterrupt handler) would have every
# such child ignore it too: handle it here, so children start with the default again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# One scratch folder per pytest run for the portable tests' on-disk journals (inherited by the
# CPython and MicroPython children the comparison starts).
if not os.environ.get("DICEPOD_TEST_TMP"):
    os.environ["DICEPOD_TEST_TMP"] = tempfile.mkdtemp(prefix="dicepod-tests-")


def pytest_runtest_setup(item):
    """The firmware collects garbage in its idle passes; under CPython each collection would walk
    every object pytest and the earlier tests hold: collect what they left, then freeze the
    rest, so that a collection walks only what this test makes."""
    gc.collect()
    gc.freeze()


def pytest_runtest_teardown(item):
    """Unfreeze after the test: what its fixtures held can be collected before the next."""
    gc.unfreeze()


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """A portable test that calls checks.skip (it cannot run on this interpreter) is reported
    as skipped, with its reason, not as passed."""
    try:
        return (yield)
    except Skip as exc:
        # reported at the test (not at this hook), as a skip mark would be
        raise pytest.skip.Exception(str(exc), _use_item_location=True) from None


# The longest tests, longest first (./dev test: -n 2 --dist loadgroup). They start first, each
# on whichever worker is free; the rest follow a module at a time (a module's fixtures are
# built once), so the two workers end about together.
LONGEST_FIRST = (
    "tests/test_pico_sessions.py::test_every_mode_in_one_session_with_the_code_in_romfs",
    "tests/test_pico_journal.py::test_power_cuts_while_a_full_flash_rotates_and_prunes",
    "tests/test_pico_sessions.py::test_every_mode_in_one_session_on_the_stock_firmware",
    "tests/test_pico_journal.py::test_a_full_flash_keeps_playing_for_1000_more_events",
    "tests/test_fuzz_cli.py::test_every_verb_fuzzed_no_traceback_no_run_past_its_bound",
    "tests/test_micropython.py::test_heap_is_the_same_wherever_the_checkout_lives",
    "tests/test_pico_sessions.py::test_a_power_cut_mid_game_resumes_what_reached_the_flash",
    "tests/test_deploy.py::test_deploy_onto_the_emulated_pico_then_a_power_cycle_boots_the_app[stock]",
    "tests/test_deploy.py::test_deploy_onto_the_emulated_pico_then_a_power_cycle_boots_the_app[dicepod]",
)


def pytest_collection_modifyitems(config, items):
    # Always (an xdist worker collects with its own options): the scheduler takes the order of
    # the workers' collections.
    rank = {nodeid: i for i, nodeid in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid, len(rank)))  # stable: the rest in order


# optionalhook: without pytest-xdist (a venv made before it was a dependency, or a bare pytest)
# the hook is never called, instead of pytest refusing to start with "unknown hook".
@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirstScheduling(LoadScopeScheduling):
        """A long test is a unit of its own; the rest go a module at a time, in collection
        order (not xdist's largest-module-first)."""

        def __init__(self, config, log):
            config.option.loadscopereorder = False
            super().__init__(config, log)

        def _split_scope(self, nodeid):
            return nodeid if nodeid in LONGEST_FIRST else nodeid.split("::", 1)[0]

    return LongestFirstScheduling(config, log)


def pytest_terminal_summary(terminalreporter):
    """List the portable tests MicroPython skipped (test_micropython.py records them): pytest
    counts each module's MicroPython run as one test, passed."""
    lines = []
    for report in terminalreporter.stats.get("passed", []):
        for name, value in report.user_properties:
            if name == "micropython_skipped":
                lines += value
    if lines:
        terminalreporter.section("skipped under MicroPython (tests/mp_runner.py)")
        for line in lines:
            terminalreporter.line("SKIP " + line)
