/**
 * The toy language's runner: a test file `tests/<name>.t` holds one test a line,
 * `name: <shell command>`, and a test passes when its command exits 0 with the project's
 * `calc.sh` sourced. A shell harness of ours runs them in the sandbox and prints one line per
 * test, `TEST <id> pass|fail`; a test's own output never reaches that stream.
 *
 * It implements the whole `TestRunner` interface with nothing but what `lib/lang/` offers every
 * language, so that the seam can be shown to hold for a language bugbout has never heard of.
 *
 * @module
 */

import { kindByRunner, readTestsStatically, reviewByRunner } from "../../../lib/lang/shared.ts";
import type {
  AuthorFileChange,
  AuthorFileReading,
  FileTests,
  PatchFinding,
  PatchKind,
  PatchReview,
  ReviewedPath,
  RunnerEnv,
  RunnerGroupRun,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../../../lib/lang/types.ts";
import type { Outcome } from "../../../lib/records.ts";

/** The harness: each entry is a test file (every test in it) or `file::name` (that one). */
const HARNESS = `
for entry in "$@"; do
  file=\${entry%%::*}
  only=""
  case "$entry" in *::*) only=\${entry#*::};; esac
  if [ ! -f "$file" ]; then echo "TEST $entry error"; continue; fi
  while IFS= read -r line; do
    case "$line" in ""|"#"*) continue;; esac
    name=\${line%%:*}
    cmd=\${line#*:}
    if [ -n "$only" ] && [ "$name" != "$only" ]; then continue; fi
    if ( . ./calc.sh; eval "$cmd" ) >/dev/null 2>&1 </dev/null; then
      echo "TEST $file::$name pass"
    else
      echo "TEST $file::$name fail"
    fi
  done < "$file"
done
`;

/** The tests a toy test file names, in order, with each one's line. */
function testsOf(path: string, text: string): Map<string, string> {
  const tests = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = line.match(/^([A-Za-z_][A-Za-z0-9_]*):(.*)$/);
    if (m) tests.set(`${path}::${m[1]}`, m[2]);
  }
  return tests;
}

/** The toy language's runner (see the module's documentation). */
export class ToyRunner implements TestRunner {
  readonly language = "toy";
  readonly name = "toy-sh";
  readonly reportsStaticIds = true;
  readonly panicEndsRun = false;
  readonly sharesTrees = false;
  readonly appliesAuthorConfig = false;
  readonly runsByFile = true;

  isTestFile(path: string): boolean {
    return path.startsWith("tests/") && path.endsWith(".t");
  }
  isConfig(path: string): boolean {
    return path === "toy.conf";
  }
  classify(path: string, packageDir: string): PatchKind {
    return kindByRunner(this, path, packageDir);
  }
  runsFile(path: string): boolean {
    return this.isTestFile(path);
  }
  fileOf(id: string): string {
    const at = id.indexOf("::");
    return at < 0 ? id : id.slice(0, at);
  }
  within(id: string, test: string): boolean {
    return id === test;
  }
  changedTests(path: string, before: string | null, after: string): FileTests {
    const now = testsOf(path, after);
    const then = before === null ? new Map<string, string>() : testsOf(path, before);
    return {
      tests: [...now.keys()],
      changed: [...now].filter(([id, line]) => then.get(id) !== line).map(([id]) => id),
    };
  }
  readTests(files: readonly AuthorFileChange[]): Promise<AuthorFileReading[]> {
    return Promise.resolve(readTestsStatically(this, files));
  }
  suite(files: readonly string[]): Promise<string[]> {
    return Promise.resolve(files.filter((f) => this.isTestFile(f)));
  }
  besidePath(path: string, author: string): string {
    return path.replace(/\.t$/, `.bugbout-${author}.t`);
  }
  besideSource(_path: string, source: string): string {
    return source;
  }
  besideId(id: string, author: string): string {
    const file = this.fileOf(id);
    return this.besidePath(file, author) + id.slice(file.length);
  }
  besideOwns(id: string, beside: string): boolean {
    return id !== beside && this.fileOf(id) === beside;
  }
  review(paths: readonly ReviewedPath[]): PatchReview {
    return reviewByRunner(this, paths, { markers: /^#\s*skip/gm, source: [] });
  }
  patchFlags(): PatchFinding[] {
    return [];
  }
  prepare(): Promise<RunnerEnv> {
    return Promise.resolve({ key: "toy-1", readable: [], env: {}, describe: "sh" });
  }

  async run(options: RunnerRunOptions): Promise<RunnerRun> {
    const started = performance.now();
    const groups: RunnerGroupRun[] = [];
    for (const group of options.groups) groups.push(await this.#group(options, group));
    const outcomes = Object.assign({}, ...groups.map((g) => g.outcomes));
    const bad = groups.find((g) => g.status !== "ok");
    return {
      status: bad?.status ?? "ok",
      ...(bad?.message ? { message: bad.message } : {}),
      outcomes,
      durations: {},
      tamper: [],
      suspect: [],
      exitCode: null,
      durationMs: Math.round(performance.now() - started),
      groups,
    };
  }

  async #group(options: RunnerRunOptions, group: readonly string[]): Promise<RunnerGroupRun> {
    const done = (
      status: RunnerGroupRun["status"],
      outcomes: Record<string, Outcome>,
      message?: string,
    ) => ({
      status,
      complete: status === "ok",
      outcomes,
      durations: {},
      tamper: [],
      suspect: [],
      ...(message ? { message } : {}),
    });
    let result;
    try {
      result = await options.sandbox.run(["/bin/sh", "-c", HARNESS, "toy", ...group], {
        workdir: options.tree,
        writable: [],
        readable: [],
        deny: options.deny ? [...options.deny] : undefined,
        network: "none",
        env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", ...options.extraEnv },
        timeoutMs: options.timeoutMs,
        memoryMb: options.memoryMb,
        maxOutputBytes: 1024 * 1024,
        signal: options.signal,
      });
    } catch (error) {
      return done(
        "infra-error",
        {},
        `the sandbox could not run toy-sh: ${(error as Error).message}`,
      );
    }
    const outcomes: Record<string, Outcome> = {};
    for (const line of result.stdout.split("\n")) {
      const m = line.match(/^TEST (\S+) (pass|fail|error)$/);
      if (m) outcomes[m[1]] = m[2] === "pass" ? "passed" : m[2] === "fail" ? "failed" : "error";
    }
    if (result.timedOut) return done("timeout", outcomes, "toy-sh did not finish in time");
    return done("ok", outcomes);
  }
}
