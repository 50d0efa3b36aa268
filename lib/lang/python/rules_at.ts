/**
 * pytest's discovery rules as they were at each commit: the configuration files at the
 * repository's root are followed back through history (a change that touched one says where its
 * version before the change is: the blob when the log gave it, else `parent:path`), and each
 * version is read and parsed once.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { git } from "../../git.ts";
import type { PathChange } from "../../history.ts";
import type { ObjectReader } from "../types.ts";
import { CONFIG_FILES, DEFAULT_RULES, type PytestRules, rulesFromFile } from "./pytest_rules.ts";

const CONFIG = new Set(CONFIG_FILES);

/** True for a configuration file pytest may read its settings from (at the repository's root). */
export function isConfigFile(path: string): boolean {
  return CONFIG.has(path);
}

/** A quick look at a log line: could it name a configuration file at all? */
export function mayBeConfigLine(line: string): boolean {
  return line.endsWith(".toml") || line.endsWith(".ini") || line.endsWith(".cfg");
}

/** Follows the root configuration files back through history, one change at a time, newest first. */
export class RulesHistory {
  #blobs: Map<string, string>;
  #key: string;
  #rules = new Map<string, PytestRules>();
  #files = new Map<string, PytestRules | null>();

  private constructor(blobs: Map<string, string>) {
    this.#blobs = blobs;
    this.#key = RulesHistory.#keyOf(blobs);
  }

  /** Start from the configuration files at `rev`. */
  static async at(repo: string, rev: string): Promise<RulesHistory> {
    const listing = await git(["ls-tree", "--full-tree", rev, "--", ...CONFIG_FILES], {
      cwd: repo,
    });
    const blobs = new Map<string, string>();
    for (const line of listing.split("\n")) {
      const match = line.match(/^\d+ blob ([0-9a-f]+)\t(.+)$/);
      if (match && CONFIG.has(match[2])) blobs.set(match[2], match[1]);
    }
    return new RulesHistory(blobs);
  }

  static #keyOf(blobs: Map<string, string>): string {
    return CONFIG_FILES.map((name) => blobs.get(name) ?? "").join("\n");
  }

  /**
   * Step over one change: returns the key of the configuration in force after it (at G); the
   * history then stands before it (at B).
   */
  step(files: readonly PathChange[], parent?: string): string {
    const atG = this.#key;
    let touched = false;
    const before = (f: PathChange, path: string) =>
      f.oldBlob ?? (parent ? `${parent}:${path}` : undefined);
    for (const f of files) {
      if (CONFIG.has(f.path)) {
        touched = true;
        // Added here (or renamed into place): absent before; otherwise its version before.
        const was = before(f, f.path);
        if (f.status === "A" || f.status === "R" || f.status === "C") this.#blobs.delete(f.path);
        else if (was) this.#blobs.set(f.path, was);
      }
      const was = f.oldPath && before(f, f.oldPath);
      if (f.oldPath && f.oldPath !== f.path && CONFIG.has(f.oldPath) && was) {
        touched = true;
        this.#blobs.set(f.oldPath, was);
      }
    }
    if (touched) this.#key = RulesHistory.#keyOf(this.#blobs);
    return atG;
  }

  /** The key of the configuration where the history stands now (at HEAD before any step). */
  get key(): string {
    return this.#key;
  }

  /**
   * The rules of a configuration right away, when every file it names has been read already;
   * undefined when some file still has to be read.
   */
  known(key: string, reader: ObjectReader): PytestRules | undefined {
    const known = this.#rules.get(key);
    if (known) return known;
    const names = this.#names(key);
    const texts = new Map<string, string | undefined>();
    for (const name of names) {
      if (!name) continue;
      if (!reader.has(name)) return undefined;
      texts.set(name, reader.cached(name));
    }
    return this.#decide(key, names, texts);
  }

  #names(key: string): string[] {
    return key.split("\n");
  }

  #decide(key: string, names: string[], texts: Map<string, string | undefined>): PytestRules {
    let rules = DEFAULT_RULES;
    for (const [i, file] of CONFIG_FILES.entries()) {
      const blob = names[i];
      if (!blob) continue;
      const fileKey = `${file}:${blob}`;
      let found = this.#files.get(fileKey);
      if (found === undefined) {
        const text = texts.get(blob);
        found = text === undefined ? null : rulesFromFile(file, text) ?? null;
        this.#files.set(fileKey, found);
      }
      if (found) {
        rules = found;
        break;
      }
    }
    this.#rules.set(key, rules);
    return rules;
  }

  /** Every file a configuration `step` returned refers to (to read them all at once). */
  blobsOf(key: string): string[] {
    return this.#names(key).filter(Boolean);
  }

  /**
   * The rules of a configuration `step` returned, its files read with `reader` (each file parsed
   * once, each configuration decided once).
   */
  async rules(key: string, reader: ObjectReader): Promise<PytestRules> {
    const known = this.#rules.get(key);
    if (known) return known;
    const names = this.#names(key);
    return this.#decide(key, names, await reader.read(names.filter(Boolean)));
  }
}
