/**
 * Host-side checks of the race tests: hashes of trees (to prove nothing changed), processes by a
 * marker in their command line, files holding a canary, entries that are not plain files, and
 * waiting for a condition.
 *
 * @module
 */

import { join } from "node:path";

/** Every entry under `dir` (lstat, links not followed) with a hash of its content or target. */
export async function treeHashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for await (const entry of Deno.readDir(join(dir, rel))) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      const full = join(dir, path);
      const info = await Deno.lstat(full);
      if (info.isSymlink) out[path] = `link:${await Deno.readLink(full)}`;
      else if (info.isDirectory) {
        out[path] = `dir:${info.mode?.toString(8)}`;
        await walk(path);
      } else {
        const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(full));
        const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"));
        out[path] = `file:${info.mode?.toString(8)}:${info.nlink}:${hex.join("")}`;
      }
    }
  };
  await walk("");
  return out;
}

/** Pids of processes whose command line contains `marker`. */
export async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(marker)) found.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Every file under `dir` (recursively, links not followed) whose bytes contain `needle`. */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const bytes = new TextEncoder().encode(needle);
  const found: string[] = [];
  const walk = async (path: string) => {
    let entries;
    try {
      entries = await Array.fromAsync(Deno.readDir(path));
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(path, entry.name);
      if (entry.isDirectory) await walk(full);
      else if (entry.isFile && contains(await Deno.readFile(full), bytes)) found.push(full);
    }
  };
  await walk(dir);
  return found;
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  if (needle.length === 0) return true;
  outer: for (let i = 0; i <= haystack.length - needle.length; i++) {
    if (haystack[i] !== needle[0]) continue;
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Entries under `dir` (recursively, links not followed) that are neither files nor directories. */
export async function oddEntries(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    const info = await Deno.lstat(path);
    if (info.isDirectory) found.push(...await oddEntries(path));
    else if (!info.isFile) found.push(path);
  }
  return found;
}

/** Wait until `check` holds, at most `ms` milliseconds; whether it held. */
export async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await check();
}

/** Set the environment variables `names` to `value` in this process; returns the undo. */
export function withEnv(names: readonly string[], value: string): () => void {
  const saved = names.map((name) => [name, Deno.env.get(name)] as const);
  for (const name of names) Deno.env.set(name, value);
  return () => {
    for (const [name, old] of saved) {
      if (old === undefined) Deno.env.delete(name);
      else Deno.env.set(name, old);
    }
  };
}
