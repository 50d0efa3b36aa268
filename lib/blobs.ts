/**
 * Read files out of git's object store in one `git cat-file --batch` process per request, by
 * blob id or by `rev:path`, remembering every text read, so each blob is read (and decoded) once
 * however many commits share it.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitRun } from "./git.ts";

const HEADER = /^([0-9a-f]{40,64}) (\w+) (\d+)$/;

/** Reads blobs, each at most once. */
export class BlobReader {
  #texts = new Map<string, string | undefined>();
  #reading = new Map<string, Promise<void>>();
  #decoder = new TextDecoder();
  /** Blobs read from git so far (each counted once). */
  blobsRead = 0;
  /** `git cat-file` processes started so far. */
  processes = 0;

  /** A reader of `repo`'s objects; `signal` stops a read under way. */
  constructor(readonly repo: string, readonly signal?: AbortSignal) {}

  /** The text of an object already read, or undefined. */
  cached(name: string): string | undefined {
    return this.#texts.get(name);
  }

  /** True when an object was read already (absent ones included). */
  has(name: string): boolean {
    return this.#texts.has(name);
  }

  /**
   * The text of each object (a blob id or `rev:path`); an absent path, or an object that is not
   * a blob, reads as undefined. One git process for whatever was not read before.
   */
  async read(names: Iterable<string>): Promise<Map<string, string | undefined>> {
    const wanted = [...new Set(names)];
    const missing = wanted.filter((n) => !this.#texts.has(n) && !this.#reading.has(n));
    // Names another read is fetching already are waited for, not fetched twice.
    const waiting = new Set(wanted.map((n) => this.#reading.get(n)).filter((p) => p));
    if (missing.length) {
      const fetching = this.#fetch(missing);
      for (const name of missing) this.#reading.set(name, fetching);
      try {
        await fetching;
      } finally {
        for (const name of missing) this.#reading.delete(name);
      }
    }
    await Promise.all(waiting);
    return new Map(wanted.map((n) => [n, this.#texts.get(n)]));
  }

  async #fetch(names: string[]): Promise<void> {
    this.processes++;
    const result = await gitRun(["cat-file", "--batch"], {
      cwd: this.repo,
      stdin: names.join("\n") + "\n",
      maxOutputBytes: 1024 * 1024 * 1024,
      stdoutBytes: true,
      signal: this.signal,
    });
    const bytes = result.stdoutBytes!;
    let at = 0;
    for (const name of names) {
      const eol = bytes.indexOf(10, at);
      if (eol < 0) break;
      const header = this.#decoder.decode(bytes.subarray(at, eol));
      at = eol + 1;
      const match = header.match(HEADER);
      if (!match) {
        this.#texts.set(name, undefined); // "<name> missing" or "ambiguous"
        continue;
      }
      const size = Number(match[3]);
      let text: string | undefined;
      if (match[2] === "blob") {
        text = this.#texts.get(match[1]);
        if (text === undefined) {
          text = this.#decoder.decode(bytes.subarray(at, at + size));
          this.blobsRead++;
          this.#texts.set(match[1], text);
        }
      }
      this.#texts.set(name, text);
      at += size + 1;
    }
  }
}
