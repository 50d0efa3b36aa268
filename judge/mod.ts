/**
 * The judge: a pure function of one task's cross-examination matrix that approves or rejects
 * every patch on its own (the merge gate) and picks one patch, or abstains. It reads nothing but
 * the matrix and what it is told of the agents and their patches (vendors, adapters, models,
 * fingerprints: who counts as one voice), so it runs before anyone looks at the hidden tests or
 * the gold fix, and every verdict names the cells that decided it.
 *
 * Pure functions; no permissions needed.
 *
 * @example
 * ```ts ignore
 * import { judge } from "./judge/mod.ts";
 * const verdict = judge(matrix, { policy: "majority", agents });
 * verdict.pick; // "codex", or null when the judge abstains
 * ```
 *
 * @module
 */

import type { Policy } from "../lib/config.ts";
import type { Matrix, Verdict } from "../lib/records.ts";
import { type AgentInfo, assessPatch, policyRule, vendorNote } from "./policies.ts";
import { pickPatch } from "./pick.ts";
import { matrixFacts } from "./rules.ts";
import { MIN_VOICES, voicesOf } from "./voices.ts";

export {
  type AgentInfo,
  type Assessment,
  assessPatch,
  POLICY_RULES,
  vendorNote,
  vendorsOf,
} from "./policies.ts";
export type { EvidenceCell, PolicyRule, VoiceSupport } from "./policies.ts";
export { type Pick, pickPatch, supportingVoices } from "./pick.ts";
export {
  type AuthorVoice,
  MIN_VOICES,
  patchFingerprint,
  type VoiceAgent,
  type VoiceRule,
  type Voices,
  voicesOf,
} from "./voices.ts";
export {
  type Breakage,
  breakages,
  firstTampering,
  type MatrixFacts,
  matrixFacts,
  type Tamperers,
  tamperers,
} from "./rules.ts";

/** What the judge needs besides the matrix. */
export interface JudgeContext {
  /** The policy that approves patches. */
  policy: Policy;
  /** Every agent of the bout: their vendors, adapters and models decide who shares a voice. */
  agents: readonly AgentInfo[];
  /**
   * Patch tree id → fingerprint of its source changes (`patchFingerprint`): identical patches
   * are one voice. A tree without one is taken to be like no other.
   */
  fingerprints?: Readonly<Record<string, string>>;
}

/**
 * Judge one task: every patch of the matrix judged alone under the policy, then one pick or an
 * abstention. Throws a `BugboutError` for an unknown policy name.
 */
export function judge(matrix: Matrix, context: JudgeContext): Verdict {
  policyRule(context.policy);
  const facts = matrixFacts(matrix);
  const voices = voicesOf(facts, context.agents, context.fingerprints);
  const assessments = facts.patches.map((patch) =>
    assessPatch(facts, patch, { ...context, voices })
  );
  const picked = pickPatch(matrix.task, matrix, assessments);
  const { pick } = picked;
  // Why a policy that sets authors aside could not decide, where the pick's reason alone hides it.
  const note = vendorNote(context.policy, context.agents, facts, assessments, pick === null);
  return {
    task: matrix.task,
    policy: context.policy,
    pick,
    reason: note ? `${picked.reason}; ${note}` : picked.reason,
    minVoices: MIN_VOICES,
    patches: Object.fromEntries(
      assessments.map((a) => [
        a.agent,
        {
          approved: a.approved,
          stoppedBy: a.stoppedBy,
          support: a.support,
          voices: a.voices.map((v) => ({
            voice: v.name,
            by: v.by,
            examiner: v.examiner,
            authors: v.authors,
            rate: v.rate,
            supports: v.supports,
          })),
          reason: a.reason,
          evidence: a.evidence,
        },
      ]),
    ),
  };
}
