/**
 * bugbout's guard: the Python program that runs every pytest session, so that the code under
 * test cannot forge its own outcomes. It is the session's main program (the tree never imports
 * it): before any code of the tree runs it reads the session's settings and a per-session secret
 * from stdin, takes stdout as the results channel (what the tree prints goes to stderr), installs
 * an audit hook and records the identity of pytest's and pluggy's machinery. Each group of tests
 * then runs in a child process of its own, so one author's tests cannot reach another's. Every
 * record carries an HMAC tag and a per-group sequence number; `channel.ts` reads them.
 *
 * What it watches, and what it cannot, is written up in `docs/how-it-works.md` ("What the code
 * under test can and cannot influence").
 *
 * Private to `lib/python/`.
 *
 * @module
 */

/** The file name the guard is written under in a session's run directory. */
export const GUARD_FILE = "_bugbout_guard.py";

/** The guard's source. Needs Python 3.8 or later (audit hooks) and pytest 7 or later. */
export const GUARD_SOURCE = String
  .raw`"""bugbout's guard: runs pytest so that the code under test cannot forge its outcomes.

Started as the main program of the session (never imported by the tree). Before any code of the
tree runs it takes the session's settings and secret from stdin, takes stdout as its results
channel (the tree's output goes to stderr), installs an audit hook, and records the identity of
pytest's and pluggy's reporting machinery. Each group of tests then runs in a child process of its
own (fork), so one author's tests cannot reach another's; every record leaves with an HMAC tag and
a per-group sequence number, so nothing the tree writes can pass for a record.
"""

import os
import sys

_THIS = os.path.abspath(__file__)
_TREE_PATHS = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
_saved_path = list(sys.path)
# The guard's own imports come from the interpreter's library, never from the tree.
sys.path[:] = [p for p in sys.path if p not in _TREE_PATHS and p != os.path.dirname(_THIS)]
import atexit  # noqa: E402
import functools  # noqa: E402
import gc  # noqa: E402
import hashlib  # noqa: E402
import hmac  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402

sys.path[:] = _saved_path

_CONFIG = json.loads(sys.stdin.buffer.read().decode("utf-8"))
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
# The results channel: the original stdout, under a descriptor nothing else is told about and
# that no subprocess inherits. What the tree prints goes to stderr.
_CHANNEL = os.dup(1)
os.dup2(2, 1)
_MAC = hmac.new(bytes.fromhex(_CONFIG.pop("key")), digestmod=hashlib.sha256)
_ROOT = os.path.realpath(_CONFIG["rootdir"])
_GUARD_PID = os.getpid()
_me = {"group": -1, "pid": os.getpid()}
_seq = {}
_tampered = []


# What sending a record uses, taken before any code of the tree can replace it.
_dumps = json.dumps
_write = os.write
_getpid = os.getpid
_getframe = sys._getframe


def _send(record):
    """Write one authenticated record to the channel: only from the process that owns it, and
    only when the guard itself is the caller."""
    if _getpid() != _me["pid"]:
        return
    caller = _getframe(1).f_code
    if caller not in _GUARD_CODE:
        # The tree found this function and called it: that is the record to send.
        record = {"k": "tamper", "what": "called the guard's reporting", "where": "%s:%d" % (
            caller.co_filename, _getframe(1).f_lineno)}
    group = _me["group"]
    n = _seq.get(group, 0)
    _seq[group] = n + 1
    record["g"] = group
    record["n"] = n
    body = _dumps(record, separators=(",", ":"))
    tag = _MAC.copy()
    tag.update(body.encode("utf-8"))
    data = memoryview((body + "\t" + tag.hexdigest() + "\n").encode("utf-8"))
    while data:
        data = data[_write(_CHANNEL, data):]


def _is_tree(filename):
    if not filename or filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    return path == _ROOT or path.startswith(_ROOT + os.sep)


_in_hook = threading.local()


def _tree_frame(innermost=False):
    """The innermost frame of the tree on the current stack, as 'file:line', or None. With
    'innermost', only the frame that raised the event itself counts. Called from _watch, called
    from _audit: the frame that raised the event is three up."""
    frame = sys._getframe(3)
    while frame is not None:
        if _is_tree(frame.f_code.co_filename):
            return "%s:%d" % (os.path.relpath(frame.f_code.co_filename, _ROOT), frame.f_lineno)
        if innermost:
            return None
        frame = frame.f_back
    return None


def _tamper(what, where, detail=""):
    _tampered.append(what)
    _send({"k": "tamper", "what": what, "where": where, "detail": detail[:300]})


def _suspect(what, where, detail=""):
    _send({"k": "suspect", "what": what, "where": where, "detail": detail[:300]})


_PROC_SELF = ("/proc/self/", "/proc/%d/" % os.getpid(), "/proc/thread-self/", "/dev/fd/")
_LETHAL = {signal.SIGKILL, signal.SIGTERM, signal.SIGABRT, signal.SIGQUIT, signal.SIGSEGV}


def _watch(event, args):
    """What the audit hook does with the few events it watches (see _audit)."""
    if getattr(_in_hook, "busy", False):
        return
    _in_hook.busy = True
    try:
        where = _tree_frame(innermost=event in ("compile", "object.__setattr__"))
        if where is None:
            return
        if event == "open":
            path = args[0]
            if isinstance(path, int):
                if path == _CHANNEL:
                    _tamper("opened the results channel", where)
                return
            path = os.fsdecode(path) if isinstance(path, bytes) else str(path)
            own = "/proc/%d/" % _GUARD_PID
            if path.startswith(_PROC_SELF) or path.startswith(own) or path.startswith("/proc/%d/" % os.getpid()):
                _tamper("read its own process from /proc", where, path)
            elif os.path.realpath(path) == _THIS:
                _tamper("opened the guard", where, path)
        elif event == "os.listdir":
            path = str(args[0])
            if path.startswith(_PROC_SELF) or path.startswith("/proc/%d" % os.getpid()):
                _tamper("listed its own open files", where, path)
        elif event == "os.kill":
            pid, sig = args[0], args[1]
            mine = pid in (0, os.getpid(), _GUARD_PID, -os.getpgrp()) or pid == os.getppid()
            if mine and sig in _LETHAL:
                _tamper("killed its own test session", where, "signal %s" % sig)
        elif event == "object.__setattr__":
            if len(args) >= 2 and args[1] in ("__code__", "__closure__", "__globals__", "__defaults__"):
                _tamper("replaced the code of a function", where, str(args[1]))
        elif event == "compile":
            name = args[1] if len(args) > 1 else None
            if isinstance(name, bytes):
                name = os.fsdecode(name)
            if isinstance(name, str) and name in _TEST_FILES:
                _tamper("compiled code under a test file's name", where, name)
        elif event in ("gc.get_objects", "gc.get_referrers", "gc.get_referents"):
            _suspect("looked through the interpreter's objects (%s)" % event, where)
        elif event in ("sys.settrace", "sys.setprofile"):
            _suspect("installed a trace function (%s)" % event, where)
        elif event.startswith("ctypes"):
            _suspect("used ctypes (%s)" % event, where)
    finally:
        _in_hook.busy = False


_WATCHED = frozenset({
    "open",
    "os.listdir",
    "os.kill",
    "object.__setattr__",
    "compile",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "sys.settrace",
    "sys.setprofile",
    "ctypes.dlopen",
    "ctypes.dlsym",
    "ctypes.dlsym/handle",
    "ctypes.addressof",
    "ctypes.cdata",
    "ctypes.cdata/buffer",
    "ctypes.call_function",
    "ctypes.string_at",
    "ctypes.wstring_at",
    "ctypes.PyObj_FromPtr",
    "ctypes.create_string_buffer",
    "ctypes.create_unicode_buffer",
})
_TEST_FILES = set()


def _audit(event, args, _watched=_WATCHED, _watch=_watch):
    # Called for every audited event (dozens per test): the test is all it may cost.
    if event in _watched:
        _watch(event, args)


sys.addaudithook(_audit)

import pytest  # noqa: E402
import _pytest.config  # noqa: E402
import _pytest.unittest  # noqa: E402
import pluggy  # noqa: E402,F401

# pytest's own plugins, loaded once here rather than by every group's session.
for _name in _pytest.config.default_plugins:
    __import__("_pytest." + _name)

# The machinery between a test and its report: what the integrity checks watch.
_WATCHED_MODULES = [
    sys.modules[name]
    for name in (
        "pytest",
        "_pytest.config",
        "_pytest.main",
        "_pytest.nodes",
        "_pytest.python",
        "_pytest.reports",
        "_pytest.runner",
        "_pytest.skipping",
        "_pytest.outcomes",
        "_pytest.unittest",
        "_pytest.fixtures",
        "_pytest.terminal",
        "_pytest.capture",
        "_pytest.assertion.rewrite",
        "pluggy",
        "pluggy._callers",
        "pluggy._caller",
        "pluggy._execution",
        "pluggy._hooks",
        "pluggy._manager",
        "pluggy._result",
        "json",
        "json.encoder",
        "hmac",
    )
    if sys.modules.get(name) is not None
]
def _snapshot():
    """Every attribute of pytest's and pluggy's modules and of their classes, by reference (not
    by id(): each call of it is an audit event)."""
    seen = {}
    for module in _WATCHED_MODULES:
        attrs = dict(vars(module))
        seen[("module", module.__name__)] = attrs
        for key, value in attrs.items():
            if isinstance(value, type) and getattr(value, "__module__", "") == module.__name__:
                seen[("class", module.__name__, key)] = dict(vars(value))
    return seen


def _same(before, after):
    """Whether two snapshots of one namespace hold the very same objects."""
    if len(before) != len(after):
        return False
    for key, value in after.items():
        if before.get(key, _same) is not value:
            return False
    return True


def _owner(key):
    module = sys.modules.get(key[1])
    if module is None or key[0] == "module":
        return module
    return vars(module).get(key[2])


def _code_of(value):
    """The code object behind a function, method, property, classmethod or partial, if any."""
    for _ in range(5):
        if isinstance(value, property):
            value = value.fget
        elif isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        elif isinstance(value, functools.partial):
            value = value.func
        elif hasattr(value, "__func__"):
            value = value.__func__
        elif hasattr(value, "__wrapped__") and not hasattr(value, "__code__"):
            value = value.__wrapped__
        else:
            break
    return getattr(value, "__code__", None)


_BASELINE = _snapshot()


def _check_integrity():
    """Compare pytest's and pluggy's machinery with the snapshot. A value whose code belongs to
    the tree is tampering; anything else that changed (pytest configuring itself, an installed
    pytest plugin) becomes part of the snapshot."""
    now = _snapshot()
    for key, after in now.items():
        before = _BASELINE.get(key)
        if before is None:
            _BASELINE[key] = after
            continue
        if _same(before, after):
            continue
        owner = _owner(key)
        for name in set(before) | set(after):
            if before.get(name, _same) is after.get(name, _same):
                continue
            code = _code_of(vars(owner).get(name)) if owner is not None else None
            if code is not None and _is_tree(code.co_filename):
                _tamper(
                    "changed pytest's reporting machinery",
                    "%s:%d" % (os.path.relpath(code.co_filename, _ROOT), code.co_firstlineno),
                    ".".join(str(k) for k in key[1:]) + "." + name,
                )
        _BASELINE[key] = after
    # The guard's own functions and their code.
    for name, (ident, code) in _GUARD.items():
        value = globals().get(name)
        if id(value) != ident or id(getattr(value, "__code__", None)) != code:
            _tamper("changed the guard", name)
            _GUARD[name] = (id(value), id(getattr(value, "__code__", None)))
    for name, ident in _GUARD_METHODS.items():
        if id(vars(_Guard).get(name)) != ident:
            _tamper("changed the guard", "_Guard." + name)
            _GUARD_METHODS[name] = id(vars(_Guard).get(name))


def _digest(path):
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _tree_state(root, suffixes):
    """lstat of every file under the tree that can change what Python runs."""
    state = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git")]
        for name in files:
            if name.endswith(suffixes):
                path = os.path.join(top, name)
                try:
                    st = os.lstat(path)
                except FileNotFoundError:
                    continue
                state[path] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)
    return state


_CODE_FILES = (".py", ".pyi", ".pth", ".so", ".pyd", ".cfg", ".toml", ".ini")


def _witnessed(nodeid, func, calls):
    """'func', recording whether each call returned or raised (the guard's own witness), and for
    the tests the session's 'observe' setting names, what they saw of the code under test."""
    if inspect.iscoroutinefunction(func):
        @functools.wraps(func)
        async def witness(*args, **kwargs):
            calls[nodeid] = "raised"
            await func(*args, **kwargs)
            calls[nodeid] = "returned"
    elif nodeid in _OBSERVE:
        @functools.wraps(func)
        def witness(*args, **kwargs):
            calls[nodeid] = "raised"
            seen = []
            try:
                result = _observing(seen, func, args, kwargs)
            finally:
                _send_observed(nodeid, seen)
            calls[nodeid] = "returned"
            return result
    else:
        @functools.wraps(func)
        def witness(*args, **kwargs):
            calls[nodeid] = "raised"
            result = func(*args, **kwargs)
            calls[nodeid] = "returned"
            return result
    return witness


# Observing: while a test function runs, each call its code (the test file's, a conftest's) makes
# into another file of the tree is recorded with the type of what came back, or of what it
# raised. bugbout compares these records of a patch's run with the real fix's, outside this
# process (lib/score/divergence.ts): a patch whose code hands the test another kind of value than
# the fix does (an object of its own that compares equal to anything), or raises where the fix
# returns, is divergent even when the test passes.
_OBSERVE = frozenset(_CONFIG.get("observe") or ())
_OBSERVE_CAP = 64
_settrace = sys.settrace
_gettrace = sys.gettrace
_isfunction = inspect.isfunction
_type_attr = type.__getattribute__
_kinds = {}


def _kind(filename):
    """1 for the tests' code (their files, conftests), 2 for the rest of the tree, 0 otherwise."""
    kind = _kinds.get(filename)
    if kind is None:
        if not _is_tree(filename):
            kind = 0
        elif os.path.realpath(filename) in _TEST_FILES or os.path.basename(filename) == "conftest.py":
            kind = 1
        else:
            kind = 2
        _kinds[filename] = kind
    return kind


def _type_of(value):
    """A value's type as 'module.qualname', and 1 if the tree defines it, plus 2 if the tree also
    defines its __eq__. Reads classes' own dictionaries only: no code of the tree runs."""
    cls = type(value)
    try:
        module = _type_attr(cls, "__module__")
        name = "%s.%s" % (module, _type_attr(cls, "__qualname__"))
    except Exception:
        return "?", 0
    source = getattr(sys.modules.get(module) if isinstance(module, str) else None, "__file__", None)
    flags = 1 if isinstance(source, str) and _kind(source) == 2 else 0
    if flags:
        for klass in _type_attr(cls, "__mro__"):
            eq = _type_attr(klass, "__dict__").get("__eq__")
            if eq is not None:
                if _isfunction(eq) and _kind(eq.__code__.co_filename) == 2:
                    flags |= 2
                break
    return name, flags


def _send_observed(nodeid, seen):
    _send({"k": "observed", "id": nodeid, "calls": seen})


def _observing(seen, func, args, kwargs):
    """Call 'func' with a trace function that fills 'seen' with [call, 'r' or 'x', type, flags]."""
    returned = []  # the boundary call that just returned None: the caller's next event says
                   # whether it returned or raised

    def boundary(entry):
        def local(frame, event, arg):
            if event == "return":
                entry[1] = "r"
                entry[2], entry[3] = _type_of(arg)
                if arg is None:
                    returned[:] = [entry]
            return local
        return local

    def tests(frame, event, arg):
        if event == "exception" and returned:
            entry = returned.pop()
            entry[1] = "x"
            entry[2], entry[3] = _type_of(arg[1])
        elif returned:
            del returned[:]
        return tests

    def trace(frame, event, arg):
        del returned[:]
        code = frame.f_code
        kind = _kind(code.co_filename)
        back = frame.f_back
        if kind == 2 and back is not None and _kind(back.f_code.co_filename) == 1:
            if len(seen) >= _OBSERVE_CAP:
                return None
            name = getattr(code, "co_qualname", code.co_name)
            entry = ["%s:%s" % (os.path.relpath(code.co_filename, _ROOT), name), "r", "?", 0]
            seen.append(entry)
            frame.f_trace_lines = False
            return boundary(entry)
        if kind == 1:
            return tests
        return None

    before = _gettrace()
    _in_hook.busy = True  # the guard's own trace function is not the tree's
    try:
        _settrace(trace)
    finally:
        _in_hook.busy = False
    try:
        return func(*args, **kwargs)
    finally:
        _in_hook.busy = True
        try:
            _settrace(before)
        finally:
            _in_hook.busy = False


class _Guard:
    """The plugin each group's pytest session runs with."""

    def __init__(self, files):
        self.files = files
        self.calls = {}
        self.state = {}
        self.time = {}
        self.messages = {}
        self.unconfigured = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectstart(self, collector):
        # A test module must be imported from the bytes it had when the session started.
        path = os.path.realpath(str(_path_of(collector)))
        if path in self.files and _digest(path) != self.files[path]:
            _tamper("rewrote a test file before pytest imported it", os.path.relpath(path, _ROOT))

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config):
        self.unconfigured = True

    def pytest_collectreport(self, report):
        if report.failed:
            _send({"k": "collect-error", "id": report.nodeid, "m": _first_line(report)})

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        modules = {}
        for item in session.items:
            module = getattr(item, "module", None)
            if module is not None and id(module) not in modules:
                modules[id(module)] = module
                _check_module(module, item)
            func = getattr(item, "obj", None) if _plain_function(item) else None
            code = _code_of(func)
            if code is not None and not _is_tree_file(code.co_filename):
                _tamper("collected a test that was not compiled from a file of the tree", item.nodeid, code.co_filename)
            if func is not None and callable(func):
                item.obj = _witnessed(item.nodeid, func, self.calls)
        _check_integrity()
        _send({"k": "collected", "ids": [item.nodeid for item in session.items]})

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item):
        outcome = yield
        if _plain_function(item):
            return  # witnessed by its function's wrapper
        # Other items (unittest cases, doctests): a unittest case records its failure on the
        # item instead of raising.
        raised = outcome.excinfo is not None or bool(getattr(item, "_excinfo", None))
        self.calls[item.nodeid] = "raised" if raised else "returned"

    def pytest_runtest_logreport(self, report):
        if type(report).__name__ in ("SubtestReport", "SubTestReport"):
            # One 'with subTest()' block of a test still running: only its failure counts, and
            # it counts against the whole test.
            if report.failed and self.state.get(report.nodeid) not in ("failed", "error"):
                self.state[report.nodeid] = "failed"
                self.messages[report.nodeid] = _first_line(report)
            return
        wasxfail = hasattr(report, "wasxfail")
        if report.when == "call":
            if report.passed:
                outcome = "passed"
                call = self.calls.get(report.nodeid)
                if call is None:
                    _tamper("reported a test as passed that never ran", report.nodeid)
                elif call == "raised" and not wasxfail:
                    _tamper("reported a test as passed that raised", report.nodeid)
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
        self.time[report.nodeid] = self.time.get(report.nodeid, 0.0) + (getattr(report, "duration", 0) or 0)
        before = self.state.get(report.nodeid)
        if outcome is not None and before not in ("failed", "error"):
            self.state[report.nodeid] = outcome
            if outcome in ("failed", "error"):
                self.messages[report.nodeid] = _first_line(report)
        if report.when == "teardown":
            final = self.state.pop(report.nodeid, "passed")
            if final == "passed" and report.nodeid not in self.calls:
                _tamper("reported a test as passed that never ran", report.nodeid)
            record = {"k": "done", "id": report.nodeid, "o": final, "s": self.time.pop(report.nodeid, 0.0)}
            message = self.messages.pop(report.nodeid, None)
            if final in ("failed", "error") and message:
                record["m"] = message
            _send(record)


_LOADERS = ("AssertionRewritingHook", "SourceFileLoader", "SourcelessFileLoader")


def _check_module(module, item):
    """A test module must come from its own file, through pytest's or Python's own loader."""
    path = getattr(module, "__file__", None)
    if path is None or os.path.realpath(path) != os.path.realpath(str(_path_of(item))):
        _tamper("imported a test module from somewhere else", item.nodeid, str(path))
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    if type(loader).__name__ not in _LOADERS:
        source = getattr(sys.modules.get(type(loader).__module__), "__file__", None) or "?"
        try:
            line = inspect.getsourcelines(type(loader))[1]
        except (OSError, TypeError):
            line = 0
        where = "%s:%d" % (os.path.relpath(source, _ROOT) if _is_tree(source) else source, line)
        _tamper("imported a test module through a loader of its own", where, item.nodeid)


def _path_of(node):
    """A node's file (pytest 7+ names it 'path'; older ones 'fspath')."""
    path = getattr(node, "path", None)
    return path if path is not None else getattr(node, "fspath", "")


def _is_tree_file(path):
    return _is_tree(path) and os.path.isfile(path)


def _plain_function(item):
    """A test function pytest calls itself (not a unittest case, whose method unittest calls)."""
    return isinstance(item, pytest.Function) and not isinstance(item, _pytest.unittest.TestCaseFunction)


def _is_test_file(path):
    return os.path.realpath(path) in _TEST_FILES


def _first_line(report):
    try:
        text = report.longreprtext or ""
    except Exception:  # a report without a representation
        text = ""
    lines = [line for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("E "):
            return line[2:].strip()[:200]
    return (lines[-1] if lines else "")[:200]


def _run_group(index, group):
    files = {}
    for target in group:
        path = os.path.realpath(os.path.join(_ROOT, target.split("::")[0]))
        _TEST_FILES.add(path)
        files[path] = _digest(path)
    args = list(_CONFIG["args"]) + ["--"] + list(group)
    # What the guard has loaded so far is never garbage: keep the child's collector (and its
    # copy-on-write pages) off it.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        _me["group"] = index
        _me["pid"] = os.getpid()
        code = 3
        try:
            _send({"k": "begin"})
            guard = _Guard(files)
            code = int(pytest.main(args, plugins=[guard]))
            if not guard.unconfigured and code in (0, 1, 5):
                _tamper("took the guard out of pytest", "pytest's plugin manager")
            # Exit handlers the tree registered run now, while the guard still watches.
            atexit._run_exitfuncs()
            _check_integrity()
            _send({"k": "end", "code": code})
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    # Each group has the session's time limit to itself: one that hangs costs no other its turn.
    expired = []

    def _expire(signum, frame):
        expired.append(True)
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, _CONFIG["groupTimeout"])
    try:
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if expired:
        _send({"k": "group-end", "group": index, "signal": 9, "timedOut": True})
        return 137
    if os.WIFSIGNALED(status):
        _send({"k": "group-end", "group": index, "signal": os.WTERMSIG(status)})
        return 128 + os.WTERMSIG(status)
    _send({"k": "group-end", "group": index, "code": os.WEXITSTATUS(status)})
    return os.WEXITSTATUS(status)


_GUARD = {
    name: (id(value), id(value.__code__))
    for name, value in list(globals().items())
    if inspect.isfunction(value)
}
_GUARD_METHODS = {name: id(value) for name, value in vars(_Guard).items()}
# The code objects allowed to send records: the guard's functions and its plugin's methods.
_GUARD_CODE = frozenset(
    [value.__code__ for value in globals().values() if inspect.isfunction(value)]
    + [value.__code__ for value in vars(_Guard).values() if inspect.isfunction(value)]
)


def _main():
    _send({
        "k": "hello",
        "python": "%d.%d.%d" % sys.version_info[:3],
        "pytest": pytest.__version__,
        "groups": len(_CONFIG["groups"]),
    })
    watch = _CONFIG.get("watch", True)
    before = _tree_state(_ROOT, _CODE_FILES) if watch else None
    code = 0
    for index, group in enumerate(_CONFIG["groups"]):
        code = _run_group(index, group)
        if watch:
            after = _tree_state(_ROOT, _CODE_FILES)
            changed = sorted(set(before) ^ set(after) | {p for p in before if p in after and before[p] != after[p]})
            if changed:
                _send({
                    "k": "tree-changed",
                    "group": index,
                    "paths": [os.path.relpath(p, _ROOT) for p in changed[:20]],
                })
                break
    _send({"k": "bye"})
    return code


_GUARD_CODE = _GUARD_CODE | {_main.__code__}
# The session exits as its last group's pytest did (the channel, not this code, is what counts).
_code = _main()
sys.stdout.flush()
os._exit(_code)
`;
