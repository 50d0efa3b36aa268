/**
 * Limits on what a confined command consumes, in two layers:
 *
 * - the kernel's, set inside the sandbox with `prlimit` just before the command starts:
 *   `RLIMIT_NPROC` (processes and threads; inside bubblewrap's user namespace, or under the
 *   sandbox's own user when bugbout runs as root, it counts the sandbox's tasks alone),
 *   `RLIMIT_DATA` (each process's heap and private mappings; unlike `RLIMIT_AS` it leaves alone
 *   the address space Node, Deno and the JVM reserve up front) and `RLIMIT_FSIZE` (each file).
 *   These hold however fast the command is.
 * - a meter on the host that samples the sandbox's processes (threads and resident memory of all
 *   of them together) and the growth of its writable paths (bytes, and entries: a walk that stops
 *   one entry past the file limit, so a tree of millions of files is never walked to the end), and
 *   stops the whole sandbox when one reaches its limit, saying which: a total that no per-process
 *   limit can express, and a name for why the command ended.
 *
 * Requires `--allow-read` (`/proc`, the writable paths).
 *
 * @module
 */

import { join } from "node:path";
import type { LimitHit, Limits } from "./types.ts";
import { isMissing } from "../fs.ts";
import { outermost } from "./_paths.ts";

/** Processes (and threads) a confined command may have when the confinement names no limit. */
export const DEFAULT_PROCESSES = 1024;

/** How often the meter samples processes and memory, in milliseconds. */
const PROCESS_INTERVAL_MS = 500;
/** The least time between two walks of the writable paths, in milliseconds. */
const DISK_INTERVAL_MS = 1000;
/**
 * The least time between two counts of the writable paths' entries, in milliseconds: a count reads
 * directories only (no `lstat` of each entry), so it can run more often than the disk walk.
 */
const FILES_INTERVAL_MS = 500;

/** The `prlimit` arguments (after the program) that set `limits` on the command that follows. */
export function prlimitArgs(limits: Limits): string[] {
  const args: string[] = [];
  if (limits.processes !== undefined) args.push(`--nproc=${limits.processes}`);
  if (limits.memoryMb !== undefined) args.push(`--data=${mib(limits.memoryMb)}`);
  if (limits.diskMb !== undefined) args.push(`--fsize=${mib(limits.diskMb)}`);
  return args;
}

function mib(n: number): number {
  return Math.max(1, Math.floor(n * 1024 * 1024));
}

/** What a walk of a command's writable paths found. */
export interface TreeUsage {
  /** Bytes of disk the entries take (each inode once). */
  bytes: number;
  /** Entries seen: files, directories, links and others, the paths themselves included. */
  entries: number;
  /** True when the walk stopped at its bound with entries still unseen. */
  cut: boolean;
}

/**
 * What the entries under `paths` take (each inode once, links not followed), walking at most
 * `maxEntries` entries: a tree an agent filled with millions of files is never walked to the end.
 * Each directory is one asynchronous read, each entry one asynchronous `lstat`, so the walk leaves
 * the event loop to others between them.
 */
export async function treeUsage(
  paths: readonly string[],
  maxEntries = Infinity,
): Promise<TreeUsage> {
  const seen = new Set<string>();
  const usage: TreeUsage = { bytes: 0, entries: 0, cut: false };
  const visit = async (path: string) => {
    if (usage.entries >= maxEntries) {
      usage.cut = true;
      return;
    }
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch (error) {
      // Gone meanwhile, or a directory the command made unreadable: what can be seen counts.
      if (isMissing(error) || error instanceof Deno.errors.PermissionDenied) return;
      throw error;
    }
    const key = `${info.dev}:${info.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    usage.entries++;
    usage.bytes += info.blocks !== null ? info.blocks * 512 : info.size;
    if (!info.isDirectory) return;
    try {
      for await (const entry of Deno.readDir(path)) {
        await visit(join(path, entry.name));
        if (usage.cut) return;
      }
    } catch (error) {
      if (isMissing(error) || error instanceof Deno.errors.PermissionDenied) return;
      throw error;
    }
  };
  for (const path of paths) {
    await visit(path);
    if (usage.cut) break;
  }
  return usage;
}

/**
 * How many entries lie under `paths` (the paths themselves included, a path inside another once),
 * counting no further than `max`: one asynchronous read of each directory, no `lstat` (what the
 * directory says of each entry decides whether it is one to read; links are never followed).
 */
export async function countTree(
  paths: readonly string[],
  max = Infinity,
): Promise<{ entries: number; cut: boolean }> {
  let entries = 0;
  const dirs: string[] = [];
  for (const path of outermost(paths)) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch (error) {
      if (isMissing(error) || error instanceof Deno.errors.PermissionDenied) continue;
      throw error;
    }
    entries++;
    if (info.isDirectory) dirs.push(path);
  }
  while (dirs.length > 0) {
    if (entries > max) return { entries: max, cut: true };
    const dir = dirs.pop()!;
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (++entries > max) return { entries: max, cut: true };
        if (entry.isDirectory) dirs.push(join(dir, entry.name));
      }
    } catch (error) {
      // Gone meanwhile, or made unreadable: what can be seen counts.
      if (isMissing(error) || error instanceof Deno.errors.PermissionDenied) continue;
      throw error;
    }
  }
  return { entries, cut: entries > max };
}

/** Bytes of disk the entries under `paths` take (each inode once, links not followed). */
export async function diskUsage(paths: readonly string[]): Promise<number> {
  return (await treeUsage(paths)).bytes;
}

/**
 * How long one look at the process table serves every meter, in milliseconds: just under the
 * interval, so meters sampling side by side share one pass over `/proc` per round.
 */
const TABLE_FRESH_MS = PROCESS_INTERVAL_MS - 100;
let table: { at: number; children: Promise<Map<number, number[]>> } | undefined;

/** Every process's children, from one pass over `/proc`, shared by meters sampling together. */
function processTable(): Promise<Map<number, number[]>> {
  const now = performance.now();
  if (table && now - table.at < TABLE_FRESH_MS) return table.children;
  const children = (async () => {
    const found = new Map<number, number[]>();
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const stat = await readProc(`/proc/${entry.name}/stat`);
      if (!stat) continue;
      // The name in parentheses may hold spaces and parentheses; the fields after it do not.
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = found.get(parent) ?? [];
      list.push(Number(entry.name));
      found.set(parent, list);
    }
    return found;
  })();
  table = { at: now, children };
  return children;
}

/** Threads and resident bytes of `pid`'s descendants (not `pid` itself), from `/proc` (Linux). */
export async function processUsage(pid: number): Promise<{ tasks: number; rssBytes: number }> {
  const children = await processTable();
  let tasks = 0;
  let rssBytes = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const at = queue.pop()!;
    queue.push(...children.get(at) ?? []);
    if (at === pid) continue; // the launcher (bwrap) itself is bugbout's, not the command's
    const status = await readProc(`/proc/${at}/status`);
    if (!status) continue;
    tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    rssBytes += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  }
  return { tasks, rssBytes };
}

async function readProc(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    // The process ended meanwhile (ESRCH when it went between open and read): it no longer counts.
    if (isMissing(error) || (error as { code?: string }).code === "ESRCH") return undefined;
    throw error;
  }
}

/** Options for {@linkcode Meter.start}. */
export interface MeterOptions {
  /** The limits to watch; a missing one is not watched. */
  limits: Limits;
  /** Host paths whose growth counts against `diskMb`. */
  paths: readonly string[];
  /** Called once, with the first limit reached. */
  onHit: (hit: LimitHit) => void;
}

/**
 * Watches one confined command: its processes once {@linkcode Meter.watch} names the launcher's
 * pid (Linux only), and the growth of its writable paths since {@linkcode Meter.start}.
 */
export class Meter {
  #hit: LimitHit | undefined;
  #failure: unknown;
  #stopped = false;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #busy = new Set<Promise<void>>();

  private constructor(
    readonly options: MeterOptions,
    private readonly baseline: { disk: TreeUsage; entries: number },
  ) {}

  /** Measure the writable paths as they are now (the baseline), then start watching them. */
  static async start(options: MeterOptions): Promise<Meter> {
    const { diskMb, files } = options.limits;
    const disk = diskMb !== undefined
      ? await treeUsage(options.paths)
      : { bytes: 0, entries: 0, cut: false };
    const entries = files !== undefined ? (await countTree(options.paths)).entries : 0;
    const meter = new Meter(options, { disk, entries });
    if (files !== undefined) meter.#schedule(() => meter.#checkFiles(), FILES_INTERVAL_MS);
    if (diskMb !== undefined) meter.#schedule(() => meter.#checkDisk(), DISK_INTERVAL_MS);
    return meter;
  }

  /** The limit reached so far, if any. */
  get hit(): LimitHit | undefined {
    return this.#hit;
  }

  /** Watch the processes under `pid` (the sandbox's launcher). */
  watch(pid: number): void {
    const { processes, memoryMb } = this.options.limits;
    if (Deno.build.os !== "linux" || (processes === undefined && memoryMb === undefined)) return;
    this.#schedule(async () => {
      const usage = await processUsage(pid);
      if (processes !== undefined && usage.tasks >= processes) this.#reach("processes");
      else if (memoryMb !== undefined && usage.rssBytes >= memoryMb * 1024 * 1024) {
        this.#reach("memory");
      }
      return PROCESS_INTERVAL_MS;
    }, PROCESS_INTERVAL_MS);
  }

  /**
   * Stop watching; a last look at the writable paths decides whether they were filled (with
   * bytes or with files). Throws what a sample ran into (an I/O error), if anything.
   */
  async stop(): Promise<LimitHit | undefined> {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    await Promise.all(this.#busy);
    if (this.#failure !== undefined) throw this.#failure;
    const { diskMb, files } = this.options.limits;
    if (this.#hit === undefined && files !== undefined) await this.#checkFiles();
    if (this.#hit === undefined && diskMb !== undefined) await this.#checkDisk();
    return this.#hit;
  }

  /** Count the writable paths' entries, no further than the file limit, against the start. */
  async #checkFiles(): Promise<number> {
    const started = performance.now();
    const now = await countTree(
      this.options.paths,
      this.baseline.entries + this.options.limits.files!,
    );
    if (now.cut) this.#reach("files");
    // A large tree is counted less often, so counting never takes much of the machine.
    return Math.max(FILES_INTERVAL_MS, 4 * (performance.now() - started));
  }

  /**
   * Walk the writable paths for their size. With a file limit too the walk goes no further than
   * it allows (past it, the files are what stopped the command).
   */
  async #checkDisk(): Promise<number> {
    const { diskMb, files } = this.options.limits;
    const started = performance.now();
    const bound = files !== undefined ? this.baseline.disk.entries + files : Infinity;
    const now = await treeUsage(this.options.paths, bound);
    if (now.cut) this.#reach("files");
    else if (now.bytes - this.baseline.disk.bytes >= diskMb! * 1024 * 1024) this.#reach("disk");
    // A large tree is walked less often, so the walk never takes much of the machine.
    return Math.max(DISK_INTERVAL_MS, 4 * (performance.now() - started));
  }

  #reach(hit: LimitHit): void {
    if (this.#hit !== undefined) return;
    this.#hit = hit;
    this.options.onHit(hit);
  }

  /** Run `sample` after `delay` ms, then again after what it returns, until stopped or a hit. */
  #schedule(sample: () => Promise<number>, delay: number): void {
    if (this.#stopped || this.#hit !== undefined || this.#failure !== undefined) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const done: Promise<void> = sample().then(
        (next) => this.#schedule(sample, next),
        // Kept for stop() to throw: a failing sample must not take the process down.
        (error) => void (this.#failure ??= error),
      ).finally(() => this.#busy.delete(done));
      this.#busy.add(done);
    }, delay);
    this.#timers.add(timer);
  }
}
