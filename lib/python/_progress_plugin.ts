/**
 * A tiny pytest plugin that logs, as JSON lines, which tests were collected, which started and
 * how each finished. JUnit XML is only written when the session ends; when a run is killed
 * (wall-clock timeout, memory) this log is what tells the tests that finished from those never
 * reached. It also gives the exact node ids that JUnit cases are matched against.
 *
 * Private to `lib/python/`.
 *
 * @module
 */

/** Module name the plugin is loaded under (`-p`). Unlikely to clash with a project's modules. */
export const PLUGIN_MODULE = "_bugbout_progress_plugin";

/** Environment variable naming the log file. */
export const PROGRESS_ENV = "BUGBOUT_PROGRESS_LOG";

/** The plugin's source. Compatible with pytest 3.x to 9.x and Python 2.7 to 3.14. */
export const PLUGIN_SOURCE =
  `"""bugbout: log collected, started and finished tests as JSON lines."""
import json
import os

_path = os.environ.get("${PROGRESS_ENV}")
_out = open(_path, "a") if _path else None
_state = {}
_time = {}


def _write(record):
    if _out is not None:
        _out.write(json.dumps(record) + "\\n")
        _out.flush()


def pytest_collectreport(report):
    if report.failed:
        _write({"k": "collect-error", "id": report.nodeid})


def pytest_collection_finish(session):
    _write({"k": "collected", "ids": [item.nodeid for item in session.items]})


def pytest_runtest_logstart(nodeid, location):
    _write({"k": "start", "id": nodeid})


def pytest_runtest_logreport(report):
    wasxfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "xfailed" if wasxfail else "skipped"
        else:
            outcome = "failed"
    elif report.failed:
        outcome = "error"
    elif report.skipped:
        outcome = "xfailed" if wasxfail else "skipped"
    else:
        outcome = None
    _time[report.nodeid] = _time.get(report.nodeid, 0.0) + (getattr(report, "duration", 0) or 0)
    before = _state.get(report.nodeid)
    if outcome is not None and before not in ("failed", "error"):
        _state[report.nodeid] = outcome
    if report.when == "teardown":
        outcome = _state.pop(report.nodeid, "passed")
        seconds = _time.pop(report.nodeid, 0.0)
        _write({"k": "done", "id": report.nodeid, "o": outcome, "s": seconds})
`;
