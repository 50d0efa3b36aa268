/**
 * The harness: a Node module bugbout writes next to each run and starts in the sandbox as
 * `node harness.mjs`. It reads its settings (with the run's secret) from stdin before anything of
 * the tree is loaded, then drives the project's own vitest, jest or `node:test` **in its own
 * process** through their programmatic APIs, while the tests run in worker processes the runner
 * forks. Every finished test becomes one line on stdout, `@@bugbout <json>\t<hmac>`, signed with
 * the secret, which never leaves the harness's memory: code under test, in another process, can
 * write to the same stdout but cannot sign.
 *
 * Forcing workers: vitest runs with `pool: "forks"` (never `threads`, which would share the
 * harness's address space); jest gets `workerIdleMemoryLimit`, which makes it use workers even
 * for a single test file (it would otherwise run that file in band, in the harness's process);
 * `node:test`'s `run()` always runs each file in a child process.
 *
 * Written without template literals so that it can live in a TypeScript string.
 *
 * @module
 */

/** The mark that starts every record of the results channel. */
export const MARK = "@@bugbout ";

/** File name of the harness in the run directory. */
export const HARNESS_FILE = "bugbout-harness.mjs";
/** File name of the jest reporter in the run directory. */
export const JEST_REPORTER_FILE = "bugbout-jest-reporter.cjs";

/** The jest reporter: loaded by jest in the harness's process, it hands results to the harness. */
export const JEST_REPORTER_SOURCE = String.raw`"use strict";
const hand = globalThis[Symbol.for("bugbout.jest")];
module.exports = class BugboutReporter {
  onTestResult(test, result) { if (hand) hand(result); }
  getLastError() { return undefined; }
};
`;

/** The harness's source. */
export const HARNESS_SOURCE = String
  .raw`// bugbout harness: runs the tree's tests and signs what it saw.
import { readFileSync, writeSync } from "node:fs";
import { createHmac, createSecretKey } from "node:crypto";
import { createRequire } from "node:module";
import { isAbsolute, join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const settings = JSON.parse(readFileSync(0, "utf8"));
const key = createSecretKey(Buffer.from(settings.key, "hex"));
settings.key = "";
const MARK = "@@bugbout ";
let seq = 0;
const out = 1;

function emit(record) {
  record.n = seq++;
  const body = JSON.stringify(record);
  const tag = createHmac("sha256", key).update(body).digest("hex");
  // The leading newline keeps the record apart from a line the tests left unfinished.
  const line = Buffer.from("\n" + MARK + body + "\t" + tag + "\n");
  let at = 0;
  while (at < line.length) {
    try {
      at += writeSync(out, line, at);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
}

function short(text) {
  const s = String(text == null ? "" : text).replace(/\u001b\[[0-9;]*m/g, "");
  const first = s.split("\n").map((l) => l.trim()).filter((l) => l)[0] || "";
  return first.slice(0, 300);
}

const root = settings.root;
const nm = settings.nodeModules;
function rel(file) {
  const path = isAbsolute(file) ? relative(root, file) : file;
  return path.split("\\").join("/");
}

function packageEntry(name, subpath) {
  const pkg = JSON.parse(readFileSync(join(nm, name, "package.json"), "utf8"));
  let entry = subpath === "." ? (pkg.exports && pkg.exports["."]) || pkg.main || "index.js"
    : pkg.exports && pkg.exports[subpath];
  while (entry && typeof entry === "object") {
    entry = entry.import || entry.node || entry.default || entry.require;
  }
  if (typeof entry !== "string") throw new Error("cannot find " + name + " " + subpath);
  return { path: join(nm, name, entry), version: pkg.version };
}

async function runVitest() {
  const entry = packageEntry("vitest", "./node");
  emit({ k: "hello", runner: "vitest", version: entry.version, node: process.version });
  const { startVitest } = await import(pathToFileURL(entry.path).href);
  const sent = new Set();
  let ctx;
  const names = (task) => {
    const path = [];
    for (let t = task; t && t.type !== "file" && !t.filepath; t = t.suite) {
      // vitest 1 holds a file's tests in an unnamed suite of its own, which is no suite of the
      // file's: its empty name would put " >  > " in every id.
      if (t.type === "suite" && t.name === "" && !t.suite) continue;
      path.unshift(t.name);
    }
    return path;
  };
  const report = (task, final) => {
    if (!task || (task.type !== "test" && task.type !== "custom") || sent.has(task.id)) return;
    const state = task.result && task.result.state;
    let o;
    if (state === "pass") o = "passed";
    else if (state === "fail") o = "failed";
    else if (task.mode === "skip" || task.mode === "todo" || state === "skip" || state === "todo") {
      o = final || state ? "skipped" : undefined;
    } else if (final) o = "error";
    if (!o) return;
    sent.add(task.id);
    const errors = (task.result && task.result.errors) || [];
    emit({
      k: "test",
      f: rel(task.file ? task.file.filepath : ""),
      p: names(task),
      o,
      ms: Math.round((task.result && task.result.duration) || 0),
      m: errors.length ? short(errors[0].message || errors[0].stack) : undefined,
    });
  };
  const walk = (task) => {
    if (task.tasks) for (const t of task.tasks) walk(t);
    else report(task, true);
  };
  const reporter = {
    onInit(c) { ctx = c; },
    onTaskUpdate(packs) {
      for (const pack of packs || []) report(ctx && ctx.state.idMap.get(pack[0]), false);
    },
    onFinished(files, errors) {
      for (const file of files || []) {
        walk(file);
        const r = file.result;
        if (r && r.state === "fail" && r.errors && r.errors.length) {
          emit({ k: "file-error", f: rel(file.filepath), m: short(r.errors[0].message) });
        }
      }
      for (const e of errors || []) emit({ k: "note", m: short(e && (e.message || e)) });
    },
  };
  const vitest = await startVitest("test", settings.files.map((f) => join(root, f)), {
    root,
    watch: false,
    run: true,
    reporters: [reporter],
    pool: "forks",
    maxWorkers: settings.maxWorkers,
    minWorkers: 1,
    passWithNoTests: true,
    cache: false,
    coverage: { enabled: false },
    testNamePattern: settings.pattern ? new RegExp(settings.pattern) : undefined,
  });
  if (vitest) await vitest.close();
}

async function runJest() {
  const entry = packageEntry("jest", ".");
  emit({ k: "hello", runner: "jest", version: entry.version, node: process.version });
  globalThis[Symbol.for("bugbout.jest")] = (result) => {
    const f = rel(result.testFilePath);
    if (result.testExecError) {
      emit({ k: "file-error", f, m: short(result.testExecError.message) });
    }
    for (const a of result.testResults || []) {
      const o = a.status === "passed" ? "passed" : a.status === "failed" ? "failed" : "skipped";
      emit({
        k: "test",
        f,
        p: (a.ancestorTitles || []).concat([a.title]),
        o,
        ms: Math.round(a.duration || 0),
        m: a.failureMessages && a.failureMessages.length ? short(a.failureMessages[0]) : undefined,
      });
    }
  };
  const require = createRequire(join(nm, "jest", "package.json"));
  const jest = require(entry.path);
  await jest.runCLI({
    _: settings.files.map((f) => join(root, f)),
    $0: "jest",
    runTestsByPath: true,
    reporters: [settings.jestReporter],
    testNamePattern: settings.pattern || undefined,
    ci: true,
    watch: false,
    watchAll: false,
    watchman: false,
    cache: false,
    coverage: false,
    maxWorkers: settings.maxWorkers,
    workerIdleMemoryLimit: "4GB",
    passWithNoTests: true,
    silent: true,
  }, [root]);
}

async function runNode() {
  emit({ k: "hello", runner: "node --test", version: process.version, node: process.version });
  const { run } = await import("node:test");
  const stacks = new Map();
  const stream = run({
    files: settings.files.map((f) => join(root, f)),
    concurrency: settings.maxWorkers,
    testNamePatterns: settings.nodePatterns.length
      ? settings.nodePatterns.map((p) => new RegExp(p)) : undefined,
  });
  for await (const event of stream) {
    const d = event.data || {};
    if (!d.file) continue;
    const f = rel(d.file);
    if (event.type === "test:start") {
      const stack = stacks.get(f) || [];
      stack.length = d.nesting;
      stack.push(d.name);
      stacks.set(f, stack);
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const details = d.details || {};
    if (details.type === "suite") continue;
    const error = details.error;
    // A file's own test (named by its path) fails when the file cannot run.
    if (d.nesting === 0 && (d.name === f || d.name === d.file || rel(d.name) === f)) {
      if (event.type === "test:fail") {
        emit({ k: "file-error", f, m: short(error && error.cause ? error.cause.message || error.cause : error && error.message) });
      }
      continue;
    }
    const stack = (stacks.get(f) || []).slice(0, d.nesting);
    let o = "passed";
    if (d.skip !== undefined || d.todo !== undefined) o = "skipped";
    else if (event.type === "test:fail") {
      const kind = error && error.failureType;
      o = kind === "testCodeFailure" || kind === "testTimeoutFailure" ? "failed" : "error";
    }
    emit({
      k: "test",
      f,
      p: stack.concat([d.name]),
      o,
      ms: Math.round(details.duration_ms || 0),
      m: o === "failed" || o === "error"
        ? short(error && error.cause ? error.cause.message || error.cause : error && error.message)
        : undefined,
    });
  }
}

const runners = { vitest: runVitest, jest: runJest, node: runNode };
let code = 0;
try {
  await runners[settings.runner]();
} catch (error) {
  emit({ k: "crash", m: short(error && (error.stack || error.message || error)) });
  code = 1;
}
emit({ k: "end", code });
process.exit(0);
`;
