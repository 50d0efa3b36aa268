/**
 * The judge's policies, and how one policy judges one patch alone (the merge gate).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { Policy } from "../lib/config.ts";
import { BugboutError } from "../lib/errors.ts";
import { agentOfName, describeFinding, type GateStop, type Verdict } from "../lib/records.ts";
import {
  type Breakage,
  breakages,
  cellOf,
  examinerBreakages,
  firstTampering,
  isOtherAuthor,
  type MatrixFacts,
  type MatrixTest,
  type MatrixTree,
  patchAuthor,
} from "./rules.ts";
import { type AuthorVoice, voiceKey, type Voices, voicesOf } from "./voices.ts";

/** An agent of the bout, as the judge needs to know it. */
export interface AgentInfo {
  /** The agent's configured name (the author of its tests, the id of its patch). */
  name: string;
  /**
   * Who makes the model, e.g. `openai`; compared case-insensitively by `cross-vendor`. Empty or
   * `unknown` (what the configuration holds when it could not tell) makes the agent a vendor of
   * its own.
   */
  vendor: string;
  /** Whether it fixes (contestant) or only writes tests (examiner). */
  role: "contestant" | "examiner";
  /** The adapter type (`codex`, `command`, ...): with `model`, its voice when the vendor is unknown. */
  type?: string;
  /** The configured model, if any. */
  model?: string;
}

/** One cell that decided (part of) a verdict. */
export type EvidenceCell = Verdict["patches"][string]["evidence"][number];

/** What a policy asks of a patch. */
export interface PolicyRule {
  /** `half`: support (mean per-author pass rate) at least 0.5; `all`: every reproduction passes. */
  threshold: "half" | "all";
  /** Whether tests by an author of the patch agent's own vendor are set aside. */
  excludeSameVendor: boolean;
  /** Whether any examiner guard the patch does not keep passing rejects it (no quorum). */
  guardExaminerTests: boolean;
}

/**
 * Every policy. All of them apply rules 1 to 4: only independent reproductions support a patch, a
 * patch with none is not approved, and a repository test broken under the quorum rejects it.
 *
 * - `majority`: support of at least 0.5, where support is the mean over independent voices
 *   (`judge/voices.ts`: one per vendor, examiners apart, identical patches as one) of each
 *   voice's mean over its authors of their pass rates on their own reproductions (so an author
 *   with many tests weighs no more than one with a single test, and a vendor with many agents no
 *   more than one with a single agent).
 * - `unanimous`: every independent reproduction passes on the patch.
 * - `strict`: as `unanimous`, and the patch keeps passing every examiner guard: each test by an
 *   examiner that is stable on B and passes on every B repeat that ran. Examiners write tests with
 *   the issue in hand and no patch in sight, so a test of theirs that passes on B asserts behaviour
 *   the issue does not ask to change; unlike repository tests there is no quorum, which is what
 *   makes the policy strict.
 * - `cross-vendor`: as `majority`, but an author whose vendor equals the patch agent's vendor is
 *   not independent. An author (or patch agent) missing from the agent list, or whose vendor is
 *   unknown, counts as a vendor of its own: two agents nobody named a vendor for are not thereby
 *   the same maker.
 */
export const POLICY_RULES: Readonly<Record<Policy, PolicyRule>> = {
  majority: { threshold: "half", excludeSameVendor: false, guardExaminerTests: false },
  unanimous: { threshold: "all", excludeSameVendor: false, guardExaminerTests: false },
  strict: { threshold: "all", excludeSameVendor: false, guardExaminerTests: true },
  "cross-vendor": { threshold: "half", excludeSameVendor: true, guardExaminerTests: false },
};

/** One independent author's reproductions on a patch. */
export interface AuthorSupport {
  /** The author. */
  author: string;
  /** Reproductions of theirs that pass on the patch. */
  passed: number;
  /** Reproductions of theirs, in all. */
  total: number;
}

/** One independent voice's reproductions on a patch (see `judge/voices.ts`). */
export interface VoiceSupport extends AuthorVoice {
  /** Its authors that wrote reproductions, in matrix order. */
  authors: string[];
  /** Mean over its authors of their pass rates on the patch. */
  rate: number;
  /** Whether it supports the patch: the policy's threshold met by its own reproductions. */
  supports: boolean;
}

/** How a policy judged one patch alone. */
export interface Assessment {
  /** The patch tree's id. */
  tree: string;
  /** The name of the attempt the patch belongs to (the agent's, or `codex#2` for a repeat). */
  agent: string;
  /** The merge gate: whether the policy approves this patch on its own. */
  approved: boolean;
  /** The rule that stopped it (the first that failed); null when approved. */
  stoppedBy: GateStop | null;
  /** Mean over independent authors of their pass rates; 0 when there is none. */
  support: number;
  /** Per independent author, in matrix order of their first test. */
  authors: AuthorSupport[];
  /** Per independent voice, in matrix order of their first test; support is their mean rate. */
  voices: VoiceSupport[];
  /** Authors whose reproductions were set aside as the patch agent's own vendor (`cross-vendor`). */
  sameVendor: string[];
  /** The decision in words. */
  reason: string;
  /** The cells that decided it: independent reproductions and counted breakages, on the patch. */
  evidence: EvidenceCell[];
}

/** The rule of a policy, or a clear error for a name no policy has. */
export function policyRule(policy: string): PolicyRule {
  const rule = (POLICY_RULES as Record<string, PolicyRule | undefined>)[policy];
  if (!rule) {
    throw new BugboutError(`Cannot judge with policy "${policy}": no such policy`, {
      hint: `Use one of: ${Object.keys(POLICY_RULES).join(", ")}.`,
    });
  }
  return rule;
}

/** Judge one patch alone under a policy: the merge gate. */
export function assessPatch(
  facts: MatrixFacts,
  patch: MatrixTree,
  options: {
    policy: Policy;
    agents: readonly AgentInfo[];
    /** Tree id → fingerprint of its source changes (`patchFingerprint`), to find identical patches. */
    fingerprints?: Readonly<Record<string, string>>;
    /** The matrix's voices, when the caller has them already. */
    voices?: Voices;
  },
): Assessment {
  const rule = policyRule(options.policy);
  // The patch is known by its attempt's name (`codex#2`); independence is the agent's (`codex`).
  const agent = patchAuthor(patch);
  const base = {
    tree: patch.id,
    agent: patch.id,
    support: 0,
    authors: [],
    voices: [],
    sameVendor: [],
    evidence: [],
  };
  const verdict = (approved: boolean, why: string) =>
    `${approved ? "approved" : "not approved"} under ${options.policy}: ${why}`;
  // The attempt's own tests are by the author its tree is named after (`codex`, `codex#2`).
  const tampered = facts.tamperers.trees.get(patch.id) ?? facts.tamperers.authors.get(patch.id);
  if (tampered) {
    const byCode = facts.tamperers.trees.has(patch.id);
    const whose = byCode ? "its code" : "its tests";
    return {
      ...base,
      approved: false,
      stoppedBy: byCode ? "code-tampered" : "tests-tampered",
      reason: verdict(false, `${whose} tampered with the grading: ${firstTampering(tampered)}`),
    };
  }
  // The capability review: a patch whose source uses what B's package never did is never approved.
  if (patch.suspect?.length) {
    const more = patch.suspect.length > 1 ? ` and ${patch.suspect.length - 1} more` : "";
    return {
      ...base,
      approved: false,
      stoppedBy: "suspect",
      reason: verdict(
        false,
        `its source uses what B's package never did: ${describeFinding(patch.suspect[0])}${more}`,
      ),
    };
  }
  if (patch.status !== "ok") {
    const detail = patch.message ? `${patch.status}: ${patch.message}` : patch.status;
    return {
      ...base,
      approved: false,
      stoppedBy: "tree-not-run",
      reason: verdict(false, `its tree did not run (${detail})`),
    };
  }

  const vendorOf = vendorsOf(options.agents);
  const voices = options.voices ?? voicesOf(facts, options.agents, options.fingerprints);
  // Agents whose patch is this very patch cannot vouch for it: their tests that pass on it are set
  // aside like its own. One that fails on it is a statement against their own patch, and counts.
  const samePatch = voices.sameAs(patch.id);
  const own: MatrixTest[] = [];
  const twins: MatrixTest[] = [];
  const sameVendor: MatrixTest[] = [];
  const independent: MatrixTest[] = [];
  for (const test of facts.reproductions) {
    if (!isOtherAuthor(test, patch)) own.push(test);
    else if (
      samePatch.has(agentOfName(test.author)) &&
      cellOf(facts.matrix, test.id, patch.id) === "passed"
    ) twins.push(test);
    else if (rule.excludeSameVendor && vendorOf(test.author) === vendorOf(agent)) {
      sameVendor.push(test);
    } else independent.push(test);
  }

  const setAside: string[] = [];
  if (own.length > 0) setAside.push(`${count(own.length, "own test")} not counted`);
  if (twins.length > 0) {
    setAside.push(
      `${count(twins.length, "test")} by ${
        listOf(unique(twins.map((t) => t.author)))
      } (same patch) passing on it not counted`,
    );
  }
  if (sameVendor.length > 0) {
    setAside.push(
      `${count(sameVendor.length, "test")} by ${
        listOf(unique(sameVendor.map((t) => t.author)))
      } (same vendor) not counted`,
    );
  }
  const aside = setAside.length > 0 ? `; ${setAside.join("; ")}` : "";

  const sameVendorAuthors = unique(sameVendor.map((t) => t.author));
  if (independent.length === 0) {
    const why = facts.baseRuns.length === 0
      ? `no run of the unfixed tree completed, so no test can reproduce the bug${
        baseTrouble(facts)
      }`
      : facts.reproductions.length === 0
      ? "no agent-written test fails on the unfixed tree"
      : "every test that fails on the unfixed tree is set aside for this patch";
    return {
      ...base,
      approved: false,
      stoppedBy: "no-reproduction",
      sameVendor: sameVendorAuthors,
      reason: verdict(false, `no independent reproduction: ${why}${aside}`),
    };
  }

  const evidence: EvidenceCell[] = [];
  const byAuthor = new Map<string, AuthorSupport>();
  for (const test of independent) {
    const outcome = cellOf(facts.matrix, test.id, patch.id);
    evidence.push(cellFor(test, patch, outcome));
    const entry = byAuthor.get(test.author) ?? { author: test.author, passed: 0, total: 0 };
    entry.total += 1;
    if (outcome === "passed") entry.passed += 1;
    byAuthor.set(test.author, entry);
  }
  const authors = [...byAuthor.values()];
  const byVoice = new Map<string, { voice: AuthorVoice; members: AuthorSupport[] }>();
  for (const a of authors) {
    const voice = voices.of(a.author);
    const entry = byVoice.get(voiceKey(voice)) ?? { voice, members: [] };
    entry.members.push(a);
    byVoice.set(voiceKey(voice), entry);
  }
  const half = (rate: number) => rate >= 0.5 - 1e-12;
  const voiceSupport: VoiceSupport[] = [...byVoice.values()].map(({ voice, members }) => {
    const rate = members.reduce((sum, a) => sum + a.passed / a.total, 0) / members.length;
    const all = members.every((a) => a.passed === a.total);
    return {
      ...voice,
      authors: members.map((a) => a.author),
      rate,
      supports: rule.threshold === "half" ? half(rate) : all,
    };
  });
  // Each voice weighs the same however many authors and tests it holds.
  const support = voiceSupport.reduce((sum, v) => sum + v.rate, 0) / voiceSupport.length;
  const passed = authors.reduce((sum, a) => sum + a.passed, 0);
  const meets = rule.threshold === "half" ? half(support) : passed === independent.length;
  const merged = voiceSupport.filter((v) => v.authors.length > 1);
  const inVoices = merged.length === 0
    ? ""
    : `, from ${count(voiceSupport.length, "voice")} (${
      merged.map((v) => `${v.authors.join(", ")} as one: ${v.by} ${v.name}`).join("; ")
    })`;

  const parts = [
    `passes ${passed} of ${count(independent.length, "independent reproduction")} by ${
      count(authors.length, "author")
    } (${
      authors.map((a) => `${a.author} ${a.passed}/${a.total}`).join(", ")
    })${inVoices}, support ${support.toFixed(2)}${
      meets ? "" : rule.threshold === "half" ? ", below the 0.50 needed" : ", short of all of them"
    }${aside}`,
  ];

  const broken = breakages(facts, patch, options.fingerprints);
  const counted = broken.filter((b) => b.counted);
  const waived = broken.filter((b) => !b.counted);
  for (const b of counted) evidence.push(cellFor(b.test, patch, b.outcome));
  if (counted.length > 0) {
    parts.push(`breaks ${listOf(counted.map(brokenText))}`);
  }
  if (waived.length > 0) {
    parts.push(`also changes ${listOf(waived.map(brokenText))}: no quorum, not counted`);
  }

  const examinerBroken = rule.guardExaminerTests ? examinerBreakages(facts, patch) : [];
  for (const b of examinerBroken) evidence.push(cellFor(b.test, patch, b.outcome));
  if (examinerBroken.length > 0) {
    parts.push(
      `breaks examiners' tests that pass on the unfixed tree: ${
        listOf(examinerBroken.map((b) => `${b.test.id} (${b.outcome})`))
      }`,
    );
  }

  const stoppedBy: GateStop | null = !meets
    ? "too-little-support"
    : counted.length > 0
    ? "breaks-repository-test"
    : examinerBroken.length > 0
    ? "breaks-examiner-test"
    : null;
  const approved = stoppedBy === null;
  return {
    ...base,
    approved,
    stoppedBy,
    support,
    authors,
    voices: voiceSupport,
    sameVendor: sameVendorAuthors,
    evidence,
    reason: verdict(approved, parts.join("; ")),
  };
}

/** What `cross-vendor` takes for an unknown vendor (compared after trimming and lowercasing). */
const UNKNOWN_VENDORS = new Set(["", "unknown"]);

/**
 * Each agent's vendor as `cross-vendor` compares them: trimmed and lowercased; an agent missing
 * from the list or of unknown vendor gets a vendor of its own, which no other agent shares.
 */
export function vendorsOf(agents: readonly AgentInfo[]): (name: string) => string {
  const vendors = new Map(agents.map((a) => [a.name, a.vendor.trim().toLowerCase()]));
  return (name) => {
    const vendor = vendors.get(agentOfName(name));
    return vendor === undefined || UNKNOWN_VENDORS.has(vendor) ? `\0${name}` : vendor;
  };
}

/**
 * Why `cross-vendor` could not decide, for the verdict's reason (which the report shows): the
 * agents that took part come from a single vendor, so no agent's test is independent of any
 * patch; or, when the judge abstains, whose tests were set aside as a patch agent's own vendor.
 * Also names agents of unknown vendor, each counted as a vendor of its own. Null for every other
 * policy, and when there is nothing to say.
 */
export function vendorNote(
  policy: Policy,
  agents: readonly AgentInfo[],
  facts: MatrixFacts,
  assessments: readonly Assessment[],
  abstained: boolean,
): string | null {
  if (!policyRule(policy).excludeSameVendor || assessments.length === 0) return null;
  const vendorOf = vendorsOf(agents);
  // The agents that took part: every patch's agent and every author of a reproduction.
  const names = unique([
    ...assessments.map((a) => a.agent),
    ...facts.reproductions.map((t) => t.author),
  ]);
  const notes: string[] = [];
  const unknown = names.filter((n) => vendorOf(n).startsWith("\0"));
  if (unknown.length > 0) {
    notes.push(
      `the vendor of ${listOf(unknown)} is unknown, so ${
        unknown.length === 1 ? "it counts" : "each counts"
      } as a vendor of its own (set \`vendor\` to say who makes the model)`,
    );
  }
  const vendors = unique(names.map(vendorOf));
  if (names.length > 1 && vendors.length === 1) {
    notes.push(
      `every agent here is of vendor ${vendors[0]}, so no agent's test counts for another's ` +
        `patch (give agents of another vendor, or use policy majority)`,
    );
  } else if (abstained) {
    const setAside = assessments.filter((a) => !a.approved && a.sameVendor.length > 0)
      .map((a) => `${listOf(a.sameVendor)}'s for ${a.agent} (${vendorOf(a.agent)})`);
    if (setAside.length > 0) {
      notes.push(`tests set aside as the patch agent's own vendor: ${listOf(setAside)}`);
    }
  }
  return notes.length > 0 ? `cross-vendor: ${notes.join("; ")}` : null;
}

function cellFor(test: MatrixTest, tree: MatrixTree, outcome: EvidenceCell["outcome"]) {
  return { test: test.id, author: test.author, tree: tree.id, outcome };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** A list for a sentence: at most three items, then how many more. */
export function listOf(items: readonly string[]): string {
  if (items.length <= 3) return items.join(", ");
  return `${items.slice(0, 3).join(", ")} and ${items.length - 3} more`;
}

function brokenText(b: Breakage): string {
  const keep = b.others === 1 ? "other patch keeps" : "other patches keep";
  return `${b.test.id} (${b.outcome}; ${b.kept} of ${b.others} ${keep} it passing)`;
}

/** Why B did not run, in words: " (B: tampered: changed files of the tree under test (x))". */
function baseTrouble(facts: MatrixFacts): string {
  const b = facts.matrix.trees.find((t) => t.kind === "base" && t.status !== "ok");
  if (!b) return "";
  const message = b.message?.split("\n")[0].trim();
  return ` (${b.id}: ${b.status}${message ? `: ${message}` : ""})`;
}
