/**
 * Reading the harness's results channel (see `_harness.ts`): the sandbox's stdout, where every
 * record is `@@bugbout <json>\t<hmac>` on a line of its own, signed with the run's secret and
 * numbered 0, 1, 2, ... Anything else on stdout (what tests print) is ignored; a line that carries
 * the mark but fails the signature or the numbering is a forgery, and makes the group tampered.
 *
 * Pure (but for the HMAC); no permissions.
 *
 * @module
 */

import { createHmac } from "node:crypto";
import type { GuardEvent } from "../../records.ts";
import type { Outcome } from "../../records.ts";
import { MARK } from "./_harness.ts";

/** One test as the harness reported it. */
export interface ReportedTest {
  /** Its file, relative to the tree. */
  file: string;
  /** Its suites' names and its own. */
  path: string[];
  outcome: Outcome;
  ms: number;
  message?: string;
}

/** What one group's channel says. */
export interface NodeChannel {
  /** The harness started, and which runner (and version) it drove. */
  hello?: { runner: string; version: string };
  tests: ReportedTest[];
  /** Files that could not be loaded or run, with the error's first line. */
  fileErrors: Map<string, string>;
  /** Errors outside any test (unhandled rejections). */
  notes: string[];
  /** The runner itself threw (a config that cannot load, a runner that is missing). */
  crash?: string;
  /** The harness finished. */
  end: boolean;
  tamper: GuardEvent[];
  suspect: GuardEvent[];
}

const OUTCOMES = new Set(["passed", "failed", "error", "skipped", "xfailed"]);

/** Read a group's stdout, checking every record against `key` (hex). */
export function readNodeChannel(text: string, key: string): NodeChannel {
  const secret = new Uint8Array(key.match(/../g)!.map((h) => parseInt(h, 16)));
  const tagOf = (body: string) => createHmac("sha256", secret).update(body).digest("hex");
  const channel: NodeChannel = {
    tests: [],
    fileErrors: new Map(),
    notes: [],
    end: false,
    tamper: [],
    suspect: [],
  };
  let next = 0;
  for (const line of text.split("\n")) {
    const at = line.indexOf(MARK);
    if (at < 0) continue;
    const rest = line.slice(at + MARK.length);
    const tab = rest.lastIndexOf("\t");
    const body = tab < 0 ? rest : rest.slice(0, tab);
    const tag = tab < 0 ? "" : rest.slice(tab + 1).trim();
    if (tag !== tagOf(body)) {
      channel.tamper.push({
        what: "wrote a forged record to the results channel",
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
      channel.tamper.push({ what: "wrote to the results channel", where: "the results channel" });
      continue;
    }
    if (record.n !== next) {
      channel.tamper.push({
        what: "replayed or removed a record of the results channel",
        where: "the results channel",
        detail: `record ${record.n} where ${next} was due`,
      });
      continue;
    }
    next++;
    if (channel.end) {
      channel.tamper.push({
        what: "wrote to the results channel after the run ended",
        where: "the results channel",
      });
      continue;
    }
    readRecord(channel, record);
  }
  return channel;
}

function readRecord(channel: NodeChannel, record: Record<string, unknown>) {
  switch (record.k) {
    case "hello":
      channel.hello = { runner: String(record.runner), version: String(record.version) };
      break;
    case "test": {
      const outcome = String(record.o);
      if (!OUTCOMES.has(outcome) || !Array.isArray(record.p)) break;
      channel.tests.push({
        file: String(record.f),
        path: record.p.map(String),
        outcome: outcome as Outcome,
        ms: Number(record.ms ?? 0),
        ...(record.m ? { message: String(record.m) } : {}),
      });
      break;
    }
    case "file-error":
      channel.fileErrors.set(String(record.f), String(record.m ?? ""));
      break;
    case "note":
      channel.notes.push(String(record.m ?? ""));
      break;
    case "crash":
      channel.crash = String(record.m ?? "");
      break;
    case "end":
      channel.end = true;
      break;
  }
}
