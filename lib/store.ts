/**
 * The results store: `.bugbout/` beside `bugbout.toml`. Every file is JSON written atomically
 * (temp file + rename) and validated when read back, so a corrupt or foreign file gives a clear
 * error naming it. A lock file keeps two bouts off the same results.
 *
 * Requires `--allow-read` and `--allow-write` on the results directory.
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import type { Validator } from "./validator.ts";
import { LockedError, StoreError } from "./errors.ts";
import { processExists } from "./pids.ts";
import { isMissing, lstatIfExists, readTextIfExists, removeIfExists } from "./fs.ts";

/** Write `data` as JSON to `path` atomically: readers see the old file or the new one, never half. */
export async function writeJsonAtomic(path: string, data: unknown): Promise<void> {
  await writeTextAtomic(path, JSON.stringify(data, null, 1) + "\n");
}

/** Write text to `path` atomically (temp file in the same directory, fsync, rename). */
export async function writeTextAtomic(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const file = await Deno.open(temp, { write: true, create: true, truncate: true });
  try {
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    while (at < bytes.length) at += await file.write(bytes.subarray(at));
    await file.sync();
  } finally {
    file.close();
  }
  await Deno.rename(temp, path);
}

/** Describe where a zod validation failed, for a person. */
export function describeIssues(
  error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] },
  limit = 3,
): string {
  return error.issues.slice(0, limit).map((issue) => {
    const at = issue.path.length ? issue.path.join(".") : "(top level)";
    return `${at}: ${issue.message}`;
  }).join("; ");
}

/**
 * Read a JSON file and validate it. Returns `undefined` when the file does not exist; throws a
 * {@linkcode StoreError} naming the file when it is not JSON or not of the expected shape.
 */
export async function readJson<T>(
  path: string,
  schema: Validator<T>,
  what = "bugbout results",
): Promise<T | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new StoreError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new StoreError(
      `${path} is corrupt: it is not valid JSON (${(error as Error).message}).`,
      {
        hint: `Delete it and run again; bugbout recomputes what it held.`,
      },
    );
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new StoreError(
      `${path} is not a file of ${what} that this bugbout can read: ${
        describeIssues(parsed.error)
      }.`,
      { hint: `It may come from another version or another tool. Move it away and run again.` },
    );
  }
  return parsed.data;
}

/** The `.bugbout/` results directory of one project. */
export class ResultsDir {
  /** Absolute path of the directory. */
  readonly path: string;
  /** The results directory at `path` (nothing is created until {@linkcode ResultsDir.ensure}). */
  constructor(path: string) {
    this.path = path;
  }

  /** Create the directory and its self-ignoring `.gitignore`. */
  async ensure(): Promise<void> {
    await Deno.mkdir(this.path, { recursive: true });
    const ignore = join(this.path, ".gitignore");
    if (!(await lstatIfExists(ignore))) await Deno.writeTextFile(ignore, "*\n");
  }

  /** Absolute path of a file inside the results directory. */
  file(...parts: string[]): string {
    return join(this.path, ...parts);
  }

  /** Write a JSON file inside the directory atomically. */
  async write(name: string, data: unknown): Promise<void> {
    await writeJsonAtomic(this.file(name), data);
  }

  /** Read and validate a JSON file inside the directory; undefined when absent. */
  read<T>(name: string, schema: Validator<T>, what?: string): Promise<T | undefined> {
    return readJson(this.file(name), schema, what);
  }

  /** Path relative to the current directory, for messages. */
  display(name = ""): string {
    return relative(Deno.cwd(), this.file(name)) || ".";
  }

  /**
   * Take the results lock. Refuses politely when another live bugbout holds it; takes over a lock
   * left by a process that no longer exists. Returns a disposable that releases it.
   */
  async lock(): Promise<AsyncDisposable & { release(): Promise<void> }> {
    await this.ensure();
    const path = this.file("lock");
    const me = JSON.stringify({ pid: Deno.pid, started: processStart(Deno.pid), at: new Date() });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const file = await Deno.open(path, { write: true, createNew: true });
        await file.write(new TextEncoder().encode(me));
        file.close();
        const release = async () => {
          const text = await readTextIfExists(path);
          if (text !== undefined && lockHolder(text).pid === Deno.pid) await removeIfExists(path);
        };
        return { release, [Symbol.asyncDispose]: release };
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
      const holder = lockHolder((await readTextIfExists(path)) ?? "");
      if (holder.pid && holder.pid !== Deno.pid && isAlive(holder.pid, holder.started ?? null)) {
        throw new LockedError(
          `Another bugbout (pid ${holder.pid}) is using ${this.display()}.`,
          { hint: "Wait for it to finish, or stop it; results are never shared between runs." },
        );
      }
      // Stale: the holder is gone (killed). Take it over.
      await removeIfExists(path);
    }
    throw new LockedError(`Cannot take the lock on ${this.display()}.`);
  }
}

/** The start time of a process (field 22 of /proc/pid/stat), to tell a reused pid apart. */
function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch (error) {
    if (isMissing(error)) return null; // gone, or no /proc (macOS)
    throw error;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
}

/** Who holds a lock, from its file's text; a file cut short or garbled holds nobody (stale). */
function lockHolder(text: string): { pid?: number; started?: string | null } {
  try {
    const held = JSON.parse(text);
    return held && typeof held === "object" ? held : {};
  } catch (error) {
    if (error instanceof SyntaxError) return {};
    throw error;
  }
}

function isAlive(pid: number, started: string | null): boolean {
  if (!processExists(pid)) return false;
  if (started === null) return true;
  const now = processStart(pid);
  return now === null || now === started;
}
