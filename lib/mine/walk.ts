/**
 * The walk: first-parent history once, newest first, each change stepped over by its language's
 * miner, screened by the rules that need only its message and file names, and — if it passes —
 * sorted into source and test files as of that commit: right away when the miner knows how (most
 * changes stand under HEAD's configuration), else a few dozen at a time after one read of what
 * the miner needs first. As soon as the `limit` newest candidates are known, their test files are
 * read while the walk goes on.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import type { BlobReader } from "../blobs.ts";
import { type Change, firstParentBatches } from "../history.ts";
import type { ChangeMiner } from "../lang/mod.ts";
import { type Candidate, classifyFiles, screenChange, type Screened } from "./classify.ts";
import type { Ledger } from "./ledger.ts";
import { mergedLine } from "./branches.ts";

/**
 * A merge that says it brings one line into another: `Merge master into features`, `Merge from
 * master`, or a pull request of such a branch (`Merge pull request #5281 from
 * nicoddemus/merge-master-into-features`, its body `Merge master into features`).
 */
function mergesBack(message: string): boolean {
  const lines = message.split("\n").map((l) => l.trim()).filter(Boolean).slice(0, 3);
  return lines.some((line) =>
    /^Merge (?:remote-tracking )?(?:branch )?'?[\w./-]+'? into '?[\w./-]+'?(?:\s|$)/i.test(line) ||
    /^Merge (?:changes )?from '?[\w./-]+'?\s*$/i.test(line) ||
    /^Merge pull request #\d+ from \S+\/merge-[\w.-]+-into-[\w.-]+$/i.test(line)
  );
}

/** What the walk needs. */
export interface WalkOptions {
  /** The repository. */
  repo: string;
  /** Where the walk starts. */
  head: string;
  /** The project's language's miner. */
  miner: ChangeMiner;
  /** Reads what the miner needs. */
  objects: BlobReader;
  /** `[tasks] since`. */
  since?: Date;
  /** `[tasks] until`: newer changes are counted, not mined. */
  until?: Date;
  /** `[tasks] max-source-files`. */
  maxSourceFiles: number;
  /** `[tasks] limit`: how many candidates to read ahead while walking. */
  limit: number;
  /** The GitHub `owner/name`, to ignore references to other repositories. */
  slug?: string;
  /** Where left-out changes go. */
  ledger: Ledger;
  /** Start reading what examining the first candidates needs. */
  prefetch(batch: readonly Candidate[]): void;
  /** Commits another branch's walk read already: the walk ends at the first of them. */
  stopAt?: ReadonlySet<string>;
  /** Commits whose history is not walked (a merged line's walk ends where it forked). */
  not?: readonly string[];
  /** Called every 5,000 commits walked. */
  onProgress?(walked: number): void;
  /** Stop early. */
  signal?: AbortSignal;
}

/** What the walk found. */
export interface Walked {
  /** Commits walked. */
  walked: number;
  /** Every commit walked, newest first. */
  order: string[];
  /** The candidates, newest first. */
  candidates: Candidate[];
  /**
   * The merges of a maintenance line met on the way (`Merge branch 'stable'`): the line's tip
   * (the second parent), what it was merged into (the first) and the line's name.
   */
  merged: MergedLine[];
}

/** A maintenance line merged into the history walked. */
export interface MergedLine {
  /** The branch's name, as the merge's subject gives it. */
  name: string;
  /** The line's tip when it was merged. */
  head: string;
  /** The merge's first parent: the line's own commits are those it does not reach. */
  base: string;
}

/** A screened change, its place in the walk and where its miner says it stands. */
interface Survivor {
  screened: Screened;
  at: unknown;
  index: number;
}

/** Sorts survivors as their miner can, and reads ahead once the first `limit` are known. */
class Sorter {
  readonly found: { index: number; candidate: Candidate }[] = [];
  #pending: Survivor[] = [];
  #inflight: Survivor[] = [];
  #prefetched = false;
  #flushing: Promise<void> | undefined;

  constructor(readonly options: WalkOptions) {}

  add(survivor: Survivor): void {
    if (this.options.miner.needs(survivor.at).length === 0) this.#sort(survivor);
    else this.#pending.push(survivor);
    this.#startFirstBatch();
    if (!this.#prefetched && !this.#flushing && this.#pending.length >= 32) this.#flush();
  }

  /** Once the walk is over: sort every survivor still waiting. */
  async finish(): Promise<Candidate[]> {
    while (this.#flushing) await this.#flushing;
    const { miner, objects } = this.options;
    await objects.read(this.#pending.flatMap((s) => miner.needs(s.at)));
    for (const survivor of this.#pending) this.#sort(survivor);
    this.#pending = [];
    return this.found.sort((a, b) => a.index - b.index).map((c) => c.candidate);
  }

  #sort(survivor: Survivor): void {
    const { screened, index } = survivor;
    const { miner, ledger, maxSourceFiles } = this.options;
    const sorted = miner.sort(screened.change, survivor.at);
    const result = classifyFiles(screened, sorted, { maxSourceFiles });
    if (result.kind === "candidate") this.found.push({ index, candidate: result.candidate });
    else {
      ledger.exclude(
        { commit: screened.change.commit, title: result.title },
        result.reason,
        result.detail,
      );
    }
  }

  /**
   * The first batch is the `limit` newest candidates; it is settled once no survivor newer than
   * the last of them waits to be sorted. Then its test files are read while the walk goes on.
   */
  #startFirstBatch(): void {
    const { limit } = this.options;
    if (this.#prefetched || this.found.length < limit) return;
    this.found.sort((a, b) => a.index - b.index);
    const last = this.found[limit - 1].index;
    if ([...this.#inflight, ...this.#pending].some((s) => s.index < last)) return;
    this.#prefetched = true;
    this.options.prefetch(this.found.slice(0, limit).map((c) => c.candidate));
  }

  /** Sort the waiting survivors after one read of what they need (each read is a process). */
  #flush(): void {
    const { miner, objects } = this.options;
    this.#inflight = this.#pending;
    this.#pending = [];
    this.#flushing = (async () => {
      await objects.read(this.#inflight.flatMap((s) => miner.needs(s.at)));
      for (const survivor of this.#inflight) this.#sort(survivor);
    })().finally(() => {
      this.#inflight = [];
      this.#flushing = undefined;
      this.#startFirstBatch();
      if (!this.#prefetched && this.#pending.length) this.#flush();
    });
    this.#flushing.catch(() => {}); // awaited by finish()
  }
}

/**
 * Walk history once, newest first, applying the rules that need only messages and file names,
 * and sorting each change that passes them as soon as its miner can.
 */
export async function walkHistory(options: WalkOptions): Promise<Walked> {
  const { miner, ledger, since, until } = options;
  const sorter = new Sorter(options);
  const walked: Walked = { walked: 0, order: [], candidates: [], merged: [] };
  const step = (change: Change): boolean => {
    if (options.stopAt?.has(change.commit)) return false;
    walked.walked++;
    walked.order.push(change.commit);
    if (walked.walked % 5000 === 0) options.onProgress?.(walked.walked);
    const at = miner.step(change);
    if (change.parents.length > 1) {
      const name = mergedLine(change.message);
      if (name) walked.merged.push({ name, head: change.parents[1], base: change.parents[0] });
    }
    if (since && change.time * 1000 < since.getTime()) {
      ledger.count("before-since");
      return true;
    }
    // Newer than `until`: the miner has stepped past it (its state is history's), not mined.
    if (until && change.time * 1000 > until.getTime()) {
      ledger.count("after-until");
      return true;
    }
    // On a merged line, a merge of history walked already (`Merge master into features`)
    // brings in changes mined on their own.
    const back = options.not?.length && change.parents.length > 1 &&
      (options.stopAt?.has(change.parents[1]) || mergesBack(change.message));
    if (back) {
      ledger.exclude(
        { commit: change.commit, title: change.message.split("\n", 1)[0] },
        "same-change",
        `merges ${change.parents[1].slice(0, 10)} back into a merged line: its changes are mined ` +
          "where they landed",
      );
      return true;
    }
    const result = screenChange(change, { slug: options.slug });
    if (result.kind === "candidate") {
      sorter.add({ screened: result.candidate, at, index: walked.walked });
    } else {
      ledger.exclude({ commit: change.commit, title: result.title }, result.reason, result.detail);
    }
    return true;
  };
  const batches = firstParentBatches(options.repo, options.head, {
    signal: options.signal,
    since,
    ...(options.not?.length ? { not: options.not } : {}),
    // A branch whose walk ends where it joins one walked already reads as it goes (unless git
    // itself stops where it forked).
    stream: options.stopAt !== undefined && options.stopAt.size > 0 && !options.not?.length,
  });
  walk: for await (const batch of batches) {
    for (const change of batch) if (!step(change)) break walk;
  }
  walked.candidates = await sorter.finish();
  return walked;
}

/** What {@linkcode walkBranches} needs beside each branch's tip and miner. */
export type BranchWalkOptions = Omit<WalkOptions, "head" | "miner" | "stopAt" | "not"> & {
  /**
   * A miner for a merged maintenance line's tip: when given, the commits of each maintenance
   * line merged into a walked history (`Merge branch 'stable'`) are walked too, each as a
   * change of its own, from the line's tip at the merge back to where it forked.
   */
  openMiner?: (head: string) => Promise<ChangeMiner>;
};

/** How many merged maintenance lines are followed, at most. */
export const MAX_MERGED_LINES = 500;

/**
 * Walk each branch's first-parent history in turn, each until it reaches a commit an earlier
 * branch's walk read (where the histories join), with the branch's own miner; then, with
 * `openMiner`, each maintenance line merged into what was walked, from its tip at the merge to
 * where it forked (lines merged into those too). The candidates of all, newest first (by commit
 * time; the earlier branch's first on a tie).
 */
export async function walkBranches(
  branches: readonly { head: string; miner: ChangeMiner }[],
  options: BranchWalkOptions,
): Promise<Walked & { first: number; lines: string[] }> {
  const { openMiner, ...rest } = options;
  const seen = new Set<string>();
  const all: Walked & { first: number; lines: string[] } = {
    walked: 0,
    order: [],
    candidates: [],
    merged: [],
    first: 0,
    lines: [],
  };
  const queue: MergedLine[] = [];
  const add = (walked: Walked) => {
    for (const commit of walked.order) seen.add(commit);
    all.walked += walked.walked;
    all.order.push(...walked.order);
    all.candidates.push(...walked.candidates);
    all.merged.push(...walked.merged);
    queue.push(...walked.merged);
  };
  for (const [i, branch] of branches.entries()) {
    const walked = await walkHistory({
      ...rest,
      head: branch.head,
      miner: branch.miner,
      stopAt: seen,
      // Only the first branch's newest candidates are the first batch to read ahead.
      prefetch: i === 0 ? rest.prefetch : () => {},
    });
    if (i === 0) all.first = walked.walked;
    add(walked);
  }
  let followed = 0;
  while (openMiner && queue.length && followed < MAX_MERGED_LINES) {
    const line = queue.shift()!;
    if (seen.has(line.head)) continue;
    followed++;
    const walked = await walkHistory({
      ...rest,
      head: line.head,
      miner: await openMiner(line.head),
      stopAt: seen,
      not: [line.base],
      prefetch: () => {},
    });
    if (walked.walked > 0 && !all.lines.includes(line.name)) all.lines.push(line.name);
    add(walked);
  }
  if (branches.length > 1 || all.lines.length) all.candidates.sort((a, b) => b.time - a.time);
  return all;
}
