/**
 * What Python's capability review looks for in a patch's source (see `../capabilities.ts`): the
 * test framework's or the guard's modules, frames and tracebacks' frames, the garbage collector's
 * objects, trace hooks, `ctypes`, code objects, rebound builtins, threads and timers, reads of
 * source code or test files, probes for a test framework (`"pytest" in sys.modules`,
 * `PYTEST_CURRENT_TEST`) and `__eq__` that returns True whatever it is given. Each is new only when
 * B's package never used it.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import {
  blankMatches,
  type CapabilityRule,
  type CapabilityRules,
  patternRule,
} from "../capabilities.ts";

/** The test framework's and the guard's modules, by name. */
const FRAMEWORK = String.raw`(?:_?pytest|unittest|conftest|pluggy|_bugbout_guard)`;

// A string literal is kept (probes are strings); comments and triple-quoted strings
// (docstrings) are blanked, so prose never counts as a use.
const COMMENTS =
  /"""[\s\S]*?(?:"""|$(?![\s\S]))|'''[\s\S]*?(?:'''|$(?![\s\S]))|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*/g;

function blankPython(text: string): string {
  return unaliased(text.replace(
    COMMENTS,
    (m) =>
      m.startsWith("#") || m.startsWith('"""') || m.startsWith("'''")
        ? blankMatches(m, /[\s\S]+/g)
        : m,
  ));
}

/** The modules whose aliases (`import gc as _g`) are read as the module's own name. */
const WATCHED = new Set([
  "gc",
  "sys",
  "inspect",
  "traceback",
  "linecache",
  "threading",
  "_thread",
  "signal",
  "builtins",
  "ctypes",
  "types",
]);

/**
 * `_g.get_objects()` read as `gc.get_objects()` where `import gc as _g`: an alias hides no use.
 * Only lengths within lines change, so every use keeps its line.
 */
function unaliased(text: string): string {
  const aliases = new Map<string, string>();
  for (const m of text.matchAll(/^[ \t]*import[ \t]+([^\n]+)/gm)) {
    for (const part of m[1].split(",")) {
      const named = /^\s*([\w.]+)\s+as\s+(\w+)\s*$/.exec(part);
      if (named && WATCHED.has(named[1]) && named[2] !== named[1]) aliases.set(named[2], named[1]);
    }
  }
  if (aliases.size === 0) return text;
  const pattern = new RegExp(`(?<![\\w.])(${[...aliases.keys()].join("|")})\\.`, "g");
  return text.replace(pattern, (_m, alias: string) => `${aliases.get(alias)}.`);
}

/**
 * The caller's module name, as `collections.namedtuple` and `enum` read it to set `__module__`
 * (`sys._getframe(1).f_globals.get("__name__")`): reading one name of the caller's globals, the
 * idiom of real fixes, not a walk of the stack.
 */
const MODULE_NAME =
  /\b(?:sys\._getframe|inspect\.currentframe)\([^)\n]*\)(?:\.f_back)*\.f_globals(?:\.get\(\s*|\[\s*)["']__name__["']/g;

/** `rule`, but not on a line where `idiom` is all it does. */
function withoutIdiom(rule: CapabilityRule, idiom: RegExp): CapabilityRule {
  return {
    ...rule,
    find(text) {
      const spans = [...text.matchAll(idiom)].map((m) => [m.index, m.index + m[0].length]);
      return rule.find(text).filter((at) => !spans.some(([from, to]) => at >= from && at < to));
    },
  };
}

/**
 * Rebinding in a file: `setattr(...)`, a code object replaced, an attribute of anything but
 * `self` or `cls` assigned inside a function, `sys.modules` or `globals()` reached.
 */
const REBINDS =
  /\bsetattr\(|\.__code__[ \t]*=(?!=)|^[ \t]+(?!self\b|cls\b)[A-Za-z_]\w*(?:\.\w+)+[ \t]*=(?!=)|\bsys\.modules\b|\bglobals\(\)/m;

/**
 * `rule` only in a file that also rebinds something: a thread that only does work of its own is
 * the package's business; one beside code that swaps functions can change what a test calls.
 */
function withRebinding(rule: CapabilityRule): CapabilityRule {
  return { ...rule, find: (text) => REBINDS.test(text) ? rule.find(text) : [] };
}

/** Python's capability rules. */
export const PYTHON_CAPABILITIES: CapabilityRules = {
  files: /\.pyi?$/,
  blank: blankPython,
  rules: [
    patternRule(
      "test-framework",
      "imports the test framework or the guard (pytest, _pytest, unittest, pluggy, a conftest) from the source",
      new RegExp(
        String
          .raw`^[ \t]*(?:import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*|from[ \t]+)${FRAMEWORK}\b|\b(?:__import__|import_module)\([ \t]*["']${FRAMEWORK}\b`,
        "gm",
      ),
    ),
    patternRule(
      "test-framework-probe",
      "checks whether a test framework is running (its name in sys.modules or sys.argv, a PYTEST_ variable)",
      new RegExp(String.raw`["']${FRAMEWORK}(?:[.:][\w.]*)?["']|\bPYTEST_\w+`, "g"),
    ),
    patternRule(
      "main-module",
      "reaches the __main__ module (where the guard runs)",
      /\bsys\.modules[ \t]*(?:\[[ \t]*|\.get\([ \t]*)["']__main__["']|^[ \t]*(?:import[ \t]+__main__\b|from[ \t]+__main__[ \t]+import\b)/gm,
    ),
    withoutIdiom(
      patternRule(
        "frames",
        "walks the call stack (its callers' frames, a traceback's frames, their locals or globals)",
        /\bsys\._getframe\b|\bsys\._current_frames\b|\binspect\.(?:currentframe|stack|getouterframes|getinnerframes|trace|getframeinfo)\b|^[ \t]*from[ \t]+(?:inspect|sys)[ \t]+import\b[^\n]*\b(?:currentframe|stack|getouterframes|_getframe)\b|\.(?:f_back|tb_frame|f_locals|f_globals)\b|\btraceback\.(?:extract_stack|walk_stack|format_stack|print_stack)\b/gm,
      ),
      MODULE_NAME,
    ),
    patternRule(
      "source-reading",
      "reads source code or test files (inspect.getsource, linecache, a code object's file, a test module's path)",
      /\binspect\.(?:getsource|getsourcelines|findsource|getsourcefile|getfile)\b|^[ \t]*from[ \t]+inspect[ \t]+import\b[^\n]*\b(?:getsource|getsourcelines|findsource)\b|\blinecache\b|\.co_filename\b|["'][^"'\n]*(?:\btest_[\w*]*\.py|_test\.py|\bconftest\.py|\btests?\/[^"'\n]*\.py)["']/gm,
    ),
    patternRule(
      "gc",
      "walks the garbage collector's objects (gc.get_objects, get_referrers, get_referents)",
      /\bgc\.(?:get_objects|get_referrers|get_referents)\b|^[ \t]*from[ \t]+gc[ \t]+import\b[^\n]*\b(?:get_objects|get_referrers|get_referents)\b/gm,
    ),
    patternRule(
      "tracing",
      "installs a trace or profile hook (sys.settrace, setprofile, sys.monitoring)",
      /\b(?:sys|threading)\.(?:settrace|setprofile|settrace_all_threads|setprofile_all_threads)\b|\bsys\.monitoring\b/g,
    ),
    patternRule(
      "ctypes",
      "uses ctypes (raw memory access)",
      /^[ \t]*(?:import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*|from[ \t]+)ctypes\b|["']ctypes["']|\bctypes\./gm,
    ),
    patternRule(
      "code-objects",
      "reads or replaces a function's code object (__code__, types.CodeType)",
      /\.__code__\b|\bCodeType\b/g,
    ),
    patternRule(
      "builtins",
      "rebinds builtins",
      /\bbuiltins\.\w+[ \t]*=(?!=)|__builtins__[ \t]*(?:\[[^\]\n]*\]|\.\w+)[ \t]*=(?!=)|\bsetattr\([ \t]*(?:builtins|__builtins__)\b|__builtins__(?:\.__dict__)?\.(?:update|__setitem__|setdefault)\(/g,
    ),
    withRebinding(patternRule(
      "threads",
      "starts a thread or timer beside code that rebinds functions or attributes (code that runs beside the tests and can swap what they call)",
      /\bthreading\.(?:Thread|Timer)\b|\b_thread\.start_new(?:_thread)?\b|^[ \t]*from[ \t]+threading[ \t]+import\b[^\n]*\b(?:Thread|Timer)\b|\bsignal\.(?:setitimer|alarm)\b/gm,
    )),
    patternRule(
      "always-equal",
      "defines __eq__ that returns True whatever it is compared with (an object equal to everything)",
      // The first statement of `def __eq__` (docstrings and comments are blank by now), or a lambda.
      /^[ \t]*def[ \t]+__eq__[ \t]*\([^)]*\)[^:\n]*:\s*return[ \t]+(?:True|1|not[ \t]+False)[ \t]*$|\b__eq__["']?[ \t]*[=:][ \t]*lambda\b[^:\n]*:[ \t]*(?:True|1)\b(?![ \t]*(?:if|and|or)\b)|^[ \t]*def[ \t]+__ne__[ \t]*\([^)]*\)[^:\n]*:\s*return[ \t]+(?:False|0)[ \t]*$/gm,
    ),
  ],
};
