/**
 * Reading the guard's results channel (see `_guard.ts`): every line is a JSON record, a tab and
 * the HMAC-SHA256 of the JSON under the session's secret. Records carry their group (`g`, -1 for
 * the guard's own) and a sequence number per group (`n`) that must run 0, 1, 2, ... without a gap
 * or a repeat. A line that fails either check is a forgery: something in the session wrote to the
 * channel, and the group it appeared in is charged with it.
 *
 * Pure (but for the HMAC); no permissions.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import type { Coverage, GuardEvent, Observation, Outcome } from "../../records.ts";

export type { GuardEvent } from "../../records.ts";

/** What the channel says about one group of tests (one author's, on one tree). */
export interface GroupReport {
  /** The group's child process started pytest. */
  begun: boolean;
  /** pytest's exit code as the group's child reported it after the session ended. */
  endCode?: number;
  /** How the child process ended, as the guard saw it (killed when its time was up). */
  exit?: { code?: number; signal?: number; timedOut?: boolean };
  /** Node ids collected, when collection finished. */
  collected?: string[];
  /** Modules (node ids) that failed to collect, with the error's first line. */
  collectErrors: { id: string; message: string; traceback?: string }[];
  /** Every test that finished: its outcome, seconds and failure line. */
  done: Map<string, { outcome: Outcome; seconds: number; message?: string; traceback?: string }>;
  /** The last test that started and did not finish. */
  running?: string;
  /** Tampering: never a pass from this group. */
  tamper: GuardEvent[];
  /** Things worth a look that are not tampering by themselves. */
  suspect: GuardEvent[];
  /** With `observe`: what each test saw of the code under test, by id. */
  observed?: Record<string, Observation[]>;
  /** With `cover`: what each test reached of the tree's code (only when recorded whole). */
  coverage?: Coverage;
}

/** A whole session's channel. */
export interface Channel {
  /** The guard started (and says which Python and pytest). */
  hello?: { python: string; pytest: string; groups: number };
  /** The guard finished every group it was given. */
  bye: boolean;
  /** One report per group, in order. */
  groups: GroupReport[];
  /** Tampering that belongs to no group (a forged line before the first group began). */
  tamper: GuardEvent[];
  /** A group changed files of the tree that decide what Python runs; the guard then stopped. */
  treeChanged?: { group: number; paths: string[] };
}

function emptyGroup(): GroupReport {
  return { begun: false, collectErrors: [], done: new Map(), tamper: [], suspect: [] };
}

const OUTCOMES = new Set(["passed", "failed", "error", "skipped", "xfailed"]);

/**
 * HMAC-SHA256 under `key` (hex, at most 64 bytes), with the keyed inner and outer states made
 * once and copied for each message (RFC 2104; the same tags as Python's `hmac`).
 */
function hmacSha256(key: string): (message: string) => string {
  const block = new Uint8Array(64);
  block.set(key.match(/../g)!.map((h) => parseInt(h, 16)));
  const inner: Hash = createHash("sha256").update(block.map((b) => b ^ 0x36));
  const outer: Hash = createHash("sha256").update(block.map((b) => b ^ 0x5c));
  return (message) => outer.copy().update(inner.copy().update(message).digest()).digest("hex");
}

/** Read a channel's text, checking every record against `key` (hex). */
export function readChannel(text: string, key: string, groups: number): Channel {
  const tagOf = hmacSha256(key);
  const channel: Channel = {
    bye: false,
    groups: Array.from({ length: groups }, emptyGroup),
    tamper: [],
  };
  const next = new Map<number, number>();
  /** The group whose child was running when a line arrived: forged lines are charged to it. */
  let current = -1;
  const charge = (event: GuardEvent) => {
    const group = channel.groups[current];
    (group ? group.tamper : channel.tamper).push(event);
  };
  for (const line of text.split("\n")) {
    if (!line) continue;
    const tab = line.lastIndexOf("\t");
    const body = tab < 0 ? line : line.slice(0, tab);
    const tag = tab < 0 ? "" : line.slice(tab + 1);
    // (No timing attack to fear: whoever wrote the line has exited before it is read.)
    if (tag !== tagOf(body)) {
      charge({
        what: "wrote to the results channel",
        where: "the results channel",
        detail: body.slice(0, 200),
      });
      continue;
    }
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(body);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      charge({ what: "wrote to the results channel", where: "the results channel" });
      continue;
    }
    const g = Number(record.g);
    const n = Number(record.n);
    if (!Number.isInteger(g) || g < -1 || g >= groups || n !== (next.get(g) ?? 0)) {
      charge({
        what: "forged a record of the results channel",
        where: "the results channel",
        detail: body.slice(0, 200),
      });
      continue;
    }
    next.set(g, n + 1);
    if (g === -1) {
      readGuardRecord(channel, record);
      if (record.k === "group-end") current = -1;
      continue;
    }
    current = g;
    readGroupRecord(channel.groups[g], record);
  }
  return channel;
}

function readGuardRecord(channel: Channel, record: Record<string, unknown>) {
  switch (record.k) {
    case "hello":
      channel.hello = {
        python: String(record.python),
        pytest: String(record.pytest),
        groups: Number(record.groups),
      };
      break;
    case "group-end": {
      const group = channel.groups[Number(record.group)];
      if (group) {
        group.exit = typeof record.signal === "number"
          ? { signal: record.signal, ...(record.timedOut === true ? { timedOut: true } : {}) }
          : { code: Number(record.code) };
      }
      break;
    }
    case "tree-changed":
      channel.treeChanged = {
        group: Number(record.group),
        paths: Array.isArray(record.paths) ? record.paths.map(String) : [],
      };
      break;
    case "bye":
      channel.bye = true;
      break;
  }
}

function event(record: Record<string, unknown>): GuardEvent {
  return {
    what: String(record.what),
    where: String(record.where),
    ...(record.detail ? { detail: String(record.detail) } : {}),
  };
}

function readGroupRecord(group: GroupReport, record: Record<string, unknown>) {
  if (group.endCode !== undefined) {
    // Nothing of a group's own may follow its end: something wrote after pytest was done.
    group.tamper.push({ what: "wrote to the results channel after its session ended", where: "" });
    return;
  }
  switch (record.k) {
    case "begin":
      group.begun = true;
      break;
    case "collected":
      if (Array.isArray(record.ids)) group.collected = record.ids.map(String);
      break;
    case "collect-error":
      group.collectErrors.push({
        id: String(record.id),
        message: String(record.m ?? ""),
        ...(record.t ? { traceback: String(record.t) } : {}),
      });
      break;
    case "start":
      group.running = String(record.id);
      break;
    case "done": {
      const id = String(record.id);
      const outcome = String(record.o);
      if (!OUTCOMES.has(outcome)) break;
      if (group.done.has(id)) {
        group.tamper.push({ what: "reported a test twice", where: id });
        break;
      }
      group.done.set(id, {
        outcome: outcome as Outcome,
        seconds: Number(record.s ?? 0),
        ...(record.m ? { message: String(record.m) } : {}),
        ...(record.t ? { traceback: String(record.t) } : {}),
      });
      if (group.running === id) group.running = undefined;
      break;
    }
    case "tamper":
      group.tamper.push(event(record));
      break;
    case "suspect":
      group.suspect.push(event(record));
      break;
    case "coverage": {
      const { locs, outside, tests } = record;
      const numbers = (v: unknown) => Array.isArray(v) && v.every((n) => Number.isInteger(n));
      if (
        record.complete === true && Array.isArray(locs) && numbers(outside) &&
        tests !== null && typeof tests === "object" && Object.values(tests).every(numbers)
      ) {
        group.coverage = {
          locations: locs.map(String),
          outside: outside as number[],
          tests: tests as Record<string, number[]>,
        };
      }
      break;
    }
    case "observed": {
      const calls = Array.isArray(record.calls) ? record.calls.filter(isObservation) : [];
      (group.observed ??= {})[String(record.id)] = calls;
      break;
    }
    case "end":
      group.endCode = Number(record.code);
      break;
  }
}

function isObservation(value: unknown): value is Observation {
  return Array.isArray(value) && value.length === 4 && typeof value[0] === "string" &&
    (value[1] === "r" || value[1] === "x") && typeof value[2] === "string" &&
    typeof value[3] === "number";
}
