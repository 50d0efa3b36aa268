/**
 * Independent voices: which authors of tests count as one source of evidence. Agents of one
 * vendor share their blind spots, and agents that shipped the same patch share their mistake, so
 * counting them one by one would let a crowd of look-alikes outvote a few independent authors.
 *
 * - A contestant's voice is its vendor's; when the vendor is unknown, its adapter and model's
 *   (when it names a model), else its own.
 * - An examiner's voice is apart from every contestant's (it wrote its tests from the issue alone,
 *   without a patch in sight); examiners of one vendor share one.
 * - Contestants whose patches are identical (see {@linkcode patchFingerprint}) are one voice, and
 *   their tests never vouch for that patch: for it they are all its own author (a test of theirs
 *   that fails on it still counts against it).
 *
 * A pick needs at least {@linkcode MIN_VOICES} voices that support it.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { inputsKey } from "../lib/hash.ts";
import { agentOfName } from "../lib/records.ts";
import type { MatrixFacts } from "./rules.ts";

/** How many independent voices must support a patch before the judge picks it. */
export const MIN_VOICES = 2;

/** Why authors share a voice (the rule that grouped them). */
export type VoiceRule = "vendor" | "model" | "agent" | "same-patch";

/** An agent as the voice rules need to know it (a subset of the judge's `AgentInfo`). */
export interface VoiceAgent {
  /** The agent's configured name. */
  name: string;
  /** Who makes the model; empty or `unknown` when nobody said. */
  vendor: string;
  /** Contestant or examiner. */
  role: "contestant" | "examiner";
  /** The adapter type (`codex`, `command`, ...), when known. */
  type?: string;
  /** The configured model, when one was. */
  model?: string;
}

/** One voice: the authors it holds and the rule that made them one. */
export interface AuthorVoice {
  /** A readable name: the vendor, `adapter/model`, or the agent's name. */
  name: string;
  /** The rule that grouped its authors. */
  by: VoiceRule;
  /** Whether it is an examiners' voice. */
  examiner: boolean;
}

/** What the judge knows about voices in one matrix. */
export interface Voices {
  /** The voice of a test author (an attempt name such as `codex#2` is its agent's). */
  of(author: string): AuthorVoice;
  /** Agents whose patches are identical to this patch tree's (its own agent included). */
  sameAs(tree: string): Set<string>;
}

/** A key that tells voices apart (an examiners' voice never equals a contestants'). */
export function voiceKey(voice: AuthorVoice): string {
  return `${voice.examiner ? "examiner" : "contestant"}\0${voice.by}\0${voice.name}`;
}

const UNKNOWN = new Set(["", "unknown"]);

/**
 * The voices of a matrix's authors, from the agents' configuration and the patches'
 * fingerprints (tree id → {@linkcode patchFingerprint}; a tree without one is like no other).
 */
export function voicesOf(
  facts: MatrixFacts,
  agents: readonly VoiceAgent[],
  fingerprints: Readonly<Record<string, string>> = {},
): Voices {
  const info = new Map(agents.map((a) => [a.name, a]));
  const examiners = new Set(
    facts.matrix.tests.filter((t) => t.authorRole === "examiner").map((t) => agentOfName(t.author)),
  );
  for (const a of agents) if (a.role === "examiner") examiners.add(a.name);

  const base = (agent: string): { key: string; voice: AuthorVoice } => {
    const a = info.get(agent);
    const examiner = examiners.has(agent);
    const side = examiner ? "examiner" : "contestant";
    const vendor = a?.vendor.trim().toLowerCase() ?? "";
    if (!UNKNOWN.has(vendor)) {
      return { key: `${side}\0vendor\0${vendor}`, voice: { name: vendor, by: "vendor", examiner } };
    }
    if (a?.model) {
      const name = `${a.type ?? "agent"}/${a.model}`;
      return { key: `${side}\0model\0${name}`, voice: { name, by: "model", examiner } };
    }
    return { key: `${side}\0agent\0${agent}`, voice: { name: agent, by: "agent", examiner } };
  };

  // Identical patches: their agents are one group, and one voice.
  const byPrint = new Map<string, string[]>();
  const agentOfTree = new Map<string, string>();
  for (const tree of facts.patches) {
    const agent = agentOfName(tree.agent ?? tree.id);
    agentOfTree.set(tree.id, agent);
    const print = fingerprints[tree.id];
    if (print === undefined) continue;
    byPrint.set(print, [...(byPrint.get(print) ?? []), agent]);
  }

  // Union-find over base voice keys: an identical patch joins its authors' voices.
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    const p = parent.get(k) ?? k;
    if (p === k) return k;
    const root = find(p);
    parent.set(k, root);
    return root;
  };
  const voiceOfKey = new Map<string, AuthorVoice>();
  const keyOf = (agent: string) => {
    const { key, voice } = base(agent);
    if (!voiceOfKey.has(key)) voiceOfKey.set(key, voice);
    return key;
  };
  const joined = new Set<string>();
  for (const group of byPrint.values()) {
    const distinct = [...new Set(group)];
    if (distinct.length < 2) continue;
    const keys = distinct.map(keyOf);
    for (const k of keys.slice(1)) {
      const [a, b] = [find(keys[0]), find(k)];
      if (a !== b) {
        parent.set(b, a);
        joined.add(a);
      }
    }
  }
  const names = new Map<string, string[]>();
  for (const key of voiceOfKey.keys()) {
    const root = find(key);
    names.set(root, [...(names.get(root) ?? []), voiceOfKey.get(key)!.name]);
  }

  return {
    of(author: string): AuthorVoice {
      const root = find(keyOf(agentOfName(author)));
      const voice = voiceOfKey.get(root)!;
      if (!joined.has(root)) return voice;
      const name = [...new Set(names.get(root))].sort().join("+");
      return { name, by: "same-patch", examiner: false };
    },
    sameAs(tree: string): Set<string> {
      const own = agentOfTree.get(tree) ?? agentOfName(tree);
      const print = fingerprints[tree];
      const group = print === undefined ? [] : byPrint.get(print) ?? [];
      return new Set([own, ...group]);
    },
  };
}

/**
 * A fingerprint of a patch's source changes, the same for two patches that make the same changes
 * to the same files whatever their whitespace, hunk offsets, context lines or file order: per
 * changed file (by its new path, or old path when deleted), its removed and added lines in order,
 * with every whitespace character dropped and lines left empty by that ignored.
 */
export function patchFingerprint(diff: string): string {
  const files = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of diff.split("\n")) {
    const header = line.match(/^diff --git a\/(.*) b\/(.*)$/);
    if (header) {
      current = [];
      files.set(header[2], current);
      continue;
    }
    if (current === null) continue;
    if (line.startsWith("+++ ") || line.startsWith("--- ")) continue;
    if (/^(rename|new file|deleted file|old mode|new mode|Binary files)/.test(line)) {
      current.push(`#${line.replace(/\s+/g, "")}`);
      continue;
    }
    if (line.startsWith("+") || line.startsWith("-")) {
      const text = line.slice(1).replace(/\s+/g, "");
      if (text !== "") current.push(`${line[0]}${text}`);
    }
  }
  const changed = [...files].filter(([, lines]) => lines.length > 0).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0
  );
  return inputsKey(changed);
}
