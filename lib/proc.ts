/**
 * The one subprocess wrapper. Argv is always an array, never a shell string; every call has an
 * explicit environment policy, a timeout, an optional abort signal and capped output.
 *
 * Requires `--allow-run` for the programs it starts.
 *
 * @module
 */

import { BugboutError } from "./errors.ts";
import { statIfExists } from "./fs.ts";

/** What a finished process left behind. */
export interface ProcResult {
  /** Exit code; 128+n when killed by signal n. */
  code: number;
  /** Captured standard output (the tail when it exceeded the cap). */
  stdout: string;
  /** Standard output undecoded, in place of `stdout`, when `stdoutBytes` was asked for. */
  stdoutBytes?: Uint8Array;
  /** Captured standard error (the tail when it exceeded the cap). */
  stderr: string;
  /** Bytes the process wrote to stdout and stderr, whether kept or not. */
  outputBytes: number;
  /** True when some output was dropped because of the cap. */
  truncated: boolean;
  /** True when the wall-clock timeout killed the process. */
  timedOut: boolean;
  /** True when the abort signal stopped the process. */
  aborted: boolean;
  /** Wall-clock duration in milliseconds. */
  durationMs: number;
}

/** Where to send a stream besides the in-memory tail. */
export interface LogSink {
  /** File to write the stream into (created or truncated). */
  path: string;
  /** Stop writing to the file after this many bytes; the rest is drained and counted. */
  capBytes: number;
}

/** Options for {@linkcode run}. */
export interface RunOptions {
  /** Working directory. Defaults to the current one. */
  cwd?: string;
  /** Environment variables to set. */
  env?: Record<string, string>;
  /** Start from an empty environment (only `env` is passed). Use wherever secrets could leak. */
  clearEnv?: boolean;
  /** Data for stdin; by default stdin is `/dev/null`. */
  stdin?: string | Uint8Array;
  /** Kill the process (its whole group) after this many milliseconds. */
  timeoutMs?: number;
  /** Stop the process (its whole group) when this signal aborts. */
  signal?: AbortSignal;
  /** Keep at most this many bytes of each stream in memory (the tail). Default 4 MiB. */
  maxOutputBytes?: number;
  /** Also write stdout to a file, up to a cap. */
  stdoutLog?: LogSink;
  /** Also write stderr to a file, up to a cap. */
  stderrLog?: LogSink;
  /** Exit codes that are not failures. Default `[0]`; `"any"` never throws for an exit code. */
  okCodes?: number[] | "any";
  /** Start the process in its own session so a timeout can kill its whole process group. */
  ownGroup?: boolean;
  /** Return stdout as bytes, not text (for output framed by byte counts: `git cat-file`). */
  stdoutBytes?: boolean;
  /** Called with the process id once the process has started (to watch what it consumes). */
  onSpawn?: (pid: number) => void;
}

/** A process ended with an exit code the caller did not accept. */
export class ProcError extends BugboutError {
  /** The result of the failed process. */
  readonly result: ProcResult;
  /** The argv that was run. */
  readonly argv: readonly string[];
  constructor(argv: readonly string[], result: ProcResult) {
    const what = result.timedOut
      ? `timed out after ${Math.round(result.durationMs / 1000)}s`
      : `exited with code ${result.code}`;
    const detail = (result.stderr.trim() || result.stdout.trim()).split("\n").slice(-12).join("\n");
    super(`${argv[0]} ${what}${detail ? `:\n${detail}` : ""}`);
    this.name = "ProcError";
    this.result = result;
    this.argv = argv;
  }
}

/** The program to run does not exist. */
export class NotInstalledError extends BugboutError {
  constructor(program: string, hint?: string) {
    super(`Cannot run ${program}: it is not installed or not on PATH.`, { hint });
    this.name = "NotInstalledError";
  }
}

const DEFAULT_MAX = 4 * 1024 * 1024;

/** A byte buffer that keeps only the last `cap` bytes written to it. */
class Tail {
  #chunks: Uint8Array[] = [];
  #size = 0;
  total = 0;
  constructor(readonly cap: number) {}
  push(chunk: Uint8Array) {
    this.total += chunk.length;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size - this.#chunks[0].length >= this.cap) {
      this.#size -= this.#chunks.shift()!.length;
    }
  }
  get truncated() {
    return this.total > this.cap;
  }
  bytes(): Uint8Array {
    const all = new Uint8Array(this.#size);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    return all.subarray(Math.max(0, all.length - this.cap));
  }
  text(): string {
    return new TextDecoder().decode(this.bytes());
  }
}

async function drain(
  stream: ReadableStream<Uint8Array>,
  tail: Tail,
  sink?: LogSink,
): Promise<boolean> {
  let file: Deno.FsFile | undefined;
  let written = 0;
  let fileTruncated = false;
  if (sink) file = await Deno.open(sink.path, { write: true, create: true, truncate: true });
  try {
    for await (const chunk of stream) {
      tail.push(chunk);
      if (file && written < sink!.capBytes) {
        const part = chunk.subarray(0, sink!.capBytes - written);
        await file.write(part);
        written += part.length;
        if (part.length < chunk.length) fileTruncated = true;
      } else if (file) {
        fileTruncated = true;
      }
    }
  } finally {
    if (file) {
      if (fileTruncated) {
        await file.write(new TextEncoder().encode("\n[bugbout: output truncated at the cap]\n"));
      }
      file.close();
    }
  }
  return fileTruncated;
}

function killTree(child: Deno.ChildProcess, group: boolean) {
  try {
    if (group) Deno.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof TypeError)) throw error;
    // already gone (ESRCH), or already reaped
  }
}

/** Send `signal` to `pid`; false when it is gone. */
function signalPid(pid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(pid, signal);
    return true;
  } catch {
    return false; // gone, or not ours to signal
  }
}

/** The pids `pid`'s threads started, from Linux's /proc (none elsewhere, or once it is gone). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
      for (const word of text.split(/\s+/)) if (word) found.push(Number(word));
    }
  } catch {
    // not Linux, or the process is gone: nothing to walk
  }
  return found;
}

/**
 * Stop every descendant of a running `pid`, whichever group or session it moved to, then kill
 * them. A process that left the group before it could bind its fate to its parent (bwrap's child
 * does `setsid` and only then asks to die with bwrap) is out of reach of a group kill once its
 * parent is dead, so the tree is walked while the parent still holds it; each one is stopped first
 * so that none can start another between the walk and the kill.
 */
function killDescendants(pid: number) {
  const seen = new Set<number>();
  let frontier = childrenOf(pid);
  while (frontier.length) {
    const next: number[] = [];
    for (const p of frontier) {
      if (seen.has(p)) continue;
      seen.add(p);
      if (signalPid(p, "SIGSTOP")) next.push(...childrenOf(p));
    }
    frontier = next;
  }
  for (const p of seen) signalPid(p, "SIGKILL");
}

/**
 * Run `argv` to completion and capture its output.
 *
 * Throws {@linkcode NotInstalledError} when the program is missing and {@linkcode ProcError} when
 * the exit code is not in `okCodes` (a timeout or abort is reported in the result, and also throws
 * unless `okCodes` is `"any"`).
 */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<ProcResult> {
  if (argv.length === 0) throw new BugboutError("Cannot run an empty command.");
  const started = performance.now();
  const maxOut = options.maxOutputBytes ?? DEFAULT_MAX;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: options.cwd,
      env: options.env,
      clearEnv: options.clearEnv ?? false,
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      detached: options.ownGroup ?? false,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new NotInstalledError(argv[0]);
    throw error;
  }
  const group = options.ownGroup ?? false;
  options.onSpawn?.(child.pid);
  let timedOut = false;
  let aborted = false;
  // Walked only while the child is unreaped, so that its pid cannot be another process's.
  let exited = false;
  const stopAll = () => {
    if (group && !exited) killDescendants(child.pid);
    killTree(child, group);
  };
  const timer = options.timeoutMs !== undefined
    ? setTimeout(() => {
      timedOut = true;
      stopAll();
    }, options.timeoutMs)
    : undefined;
  const onAbort = () => {
    aborted = true;
    stopAll();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const writing = options.stdin === undefined ? Promise.resolve() : (async () => {
    const writer = child.stdin.getWriter();
    try {
      const data = typeof options.stdin === "string"
        ? new TextEncoder().encode(options.stdin)
        : options.stdin!;
      await writer.write(data);
      await writer.close();
    } catch (error) {
      // The process closed stdin early; that is its business.
      if (!(error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.BadResource)) {
        throw error;
      }
    }
  })();
  const outTail = new Tail(maxOut);
  const errTail = new Tail(maxOut);
  try {
    const [outCut, errCut, status] = await Promise.all([
      drain(child.stdout, outTail, options.stdoutLog),
      drain(child.stderr, errTail, options.stderrLog),
      child.status.finally(() => exited = true),
      writing,
    ]);
    const result: ProcResult = {
      code: status.code,
      stdout: options.stdoutBytes ? "" : outTail.text(),
      ...(options.stdoutBytes ? { stdoutBytes: outTail.bytes() } : {}),
      stderr: errTail.text(),
      outputBytes: outTail.total + errTail.total,
      truncated: outTail.truncated || errTail.truncated || outCut || errCut,
      timedOut,
      aborted,
      durationMs: Math.round(performance.now() - started),
    };
    const ok = options.okCodes ?? [0];
    if (ok !== "any" && (timedOut || aborted || !ok.includes(status.code))) {
      throw new ProcError(argv, result);
    }
    return result;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    // A group leader that exited may have left children holding nothing we wait on; make sure.
    if (group) killTree(child, true);
  }
}

/** Run a command and return its stdout, trimmed of the final newline. Throws on failure. */
export async function output(argv: readonly string[], options: RunOptions = {}): Promise<string> {
  const result = await run(argv, options);
  return result.stdout.replace(/\n$/, "");
}

/**
 * Stream a command's stdout as lines, without holding the whole output in memory. Throws a
 * {@linkcode ProcError} after the last line when the process fails.
 */
export async function* lines(
  argv: readonly string[],
  options: Pick<RunOptions, "cwd" | "env" | "clearEnv" | "signal"> = {},
): AsyncGenerator<string> {
  for await (const batch of lineBatches(argv, options)) yield* batch;
}

/**
 * Stream a command's stdout as batches of lines (each batch what one read brought in), for
 * readers of large outputs: one await per batch instead of one per line. Throws a
 * {@linkcode ProcError} after the last batch when the process fails.
 */
export async function* lineBatches(
  argv: readonly string[],
  options: Pick<RunOptions, "cwd" | "env" | "clearEnv" | "signal"> = {},
): AsyncGenerator<string[]> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: options.cwd,
      env: options.env,
      clearEnv: options.clearEnv ?? false,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: options.signal,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new NotInstalledError(argv[0]);
    throw error;
  }
  const started = performance.now();
  const errTail = new Tail(64 * 1024);
  const errDone = drain(child.stderr, errTail);
  let finished = false;
  let status: Deno.CommandStatus;
  try {
    let rest = "";
    for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
      const last = text.lastIndexOf("\n");
      if (last < 0) {
        rest += text;
        continue;
      }
      const batch = (rest + text.slice(0, last)).split("\n");
      rest = text.slice(last + 1);
      yield batch;
    }
    if (rest) yield [rest];
    finished = true;
  } finally {
    if (!finished) killTree(child, false);
    status = await child.status;
    await errDone;
  }
  if (status.code !== 0) {
    throw new ProcError(argv, {
      code: status.code,
      stdout: "",
      stderr: errTail.text(),
      outputBytes: errTail.total,
      truncated: false,
      timedOut: false,
      aborted: options.signal?.aborted ?? false,
      durationMs: Math.round(performance.now() - started),
    });
  }
}

/** Find an executable on PATH (like `command -v`), or undefined. */
export async function which(program: string, path = Deno.env.get("PATH") ?? ""): Promise<
  string | undefined
> {
  if (program.includes("/")) return (await statIfExists(program))?.isFile ? program : undefined;
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const candidate = `${dir}/${program}`;
    const info = await statIfExists(candidate);
    if (info?.isFile && info.mode !== null && (info.mode & 0o111) !== 0) return candidate;
  }
  return undefined;
}
