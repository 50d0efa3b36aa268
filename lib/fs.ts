/**
 * File-system reads where "not there" is an answer, not a failure. Each helper turns only
 * `NotFound` (and a path through a file, `NotADirectory`) into `undefined`; anything else —
 * permission denied, an I/O error, a full disk — is thrown as it is, so it is never mistaken for
 * "absent".
 *
 * Requires `--allow-read` (and `--allow-write` for {@linkcode removeIfExists}).
 *
 * @module
 */

/** True for the errors that mean the path does not exist. */
export function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

async function unlessMissing<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** The text of a file, or undefined when there is no such file. */
export function readTextIfExists(path: string | URL): Promise<string | undefined> {
  return unlessMissing(() => Deno.readTextFile(path));
}

/** The bytes of a file, or undefined when there is no such file. */
export function readIfExists(path: string | URL): Promise<Uint8Array | undefined> {
  return unlessMissing(() => Deno.readFile(path));
}

/** `Deno.stat`, or undefined when nothing is there. */
export function statIfExists(path: string | URL): Promise<Deno.FileInfo | undefined> {
  return unlessMissing(() => Deno.stat(path));
}

/** `Deno.lstat` (links not followed), or undefined when nothing is there. */
export function lstatIfExists(path: string | URL): Promise<Deno.FileInfo | undefined> {
  return unlessMissing(() => Deno.lstat(path));
}

/** The entries of a directory, or an empty list when there is no such directory. */
export async function readDirIfExists(path: string | URL): Promise<Deno.DirEntry[]> {
  return (await unlessMissing(() => Array.fromAsync(Deno.readDir(path)))) ?? [];
}

/** Remove a file or a whole tree; nothing there is fine. */
export async function removeIfExists(path: string | URL): Promise<void> {
  await unlessMissing(() => Deno.remove(path, { recursive: true }));
}

/** `Deno.realPath`, or undefined when the path does not exist. */
export function realPathIfExists(path: string | URL): Promise<string | undefined> {
  return unlessMissing(() => Deno.realPath(path));
}
