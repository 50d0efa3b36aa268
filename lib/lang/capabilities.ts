/**
 * The capability review of a patch against B, the same in every language: what the patch's source
 * uses that B's package never did — reflection, frames, threads, the test framework's internals,
 * reads of test files. A use B's package already had, in any of its source files, is not new, so a
 * project that walks frames or starts threads for its own purposes is not flagged for doing so
 * again. Each language gives its rules ({@linkcode CapabilityRules}); a finding names the file,
 * the line and why.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { CapabilityFinding } from "../records.ts";
import type { CapabilityRule, CapabilityRules, PackageBaseline, ReviewedPath } from "./types.ts";

export type { CapabilityRule, CapabilityRules, PackageBaseline } from "./types.ts";

/**
 * Bumped when any language's capability rules change, so that saved matrices and resolutions are
 * reviewed again.
 */
export const CAPABILITY_RULES = 2;

/** A rule that finds every match of `pattern` (which must have the `g` flag). */
export function patternRule(id: string, reason: string, pattern: RegExp): CapabilityRule {
  return {
    id,
    reason,
    find(text) {
      return [...text.matchAll(pattern)].map((m) => {
        // A match that begins with blanks or newlines is a use where its first letter is.
        const lead = /^\s*/.exec(m[0])![0].length;
        return m.index + lead;
      });
    },
  };
}

/** The 1-based line of offset `at` in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

// A package is read once per set of rules, however many patches are reviewed against it.
const usesOf = new WeakMap<PackageBaseline, WeakMap<CapabilityRules, ReadonlySet<string>>>();

/** The ids of the rules that B's package uses somewhere (in any file `rules.files` takes). */
export function baselineUses(rules: CapabilityRules, base: PackageBaseline): ReadonlySet<string> {
  const known = usesOf.get(base)?.get(rules);
  if (known) return known;
  const used = new Set<string>();
  for (const [path, text] of base) {
    if (!rules.files.test(path)) continue;
    const blanked = rules.blank(text);
    for (const rule of rules.rules) {
      if (!used.has(rule.id) && rule.find(blanked).length > 0) used.add(rule.id);
    }
  }
  if (!usesOf.has(base)) usesOf.set(base, new WeakMap());
  usesOf.get(base)!.set(rules, used);
  return used;
}

/**
 * What the patch's source paths use that B's package never did: for each rule, a path whose text
 * after the patch uses it more often than before, when no file of `base` uses it at all. Every
 * use in such a path is a finding, in the order of the rules, then of the lines.
 */
export function reviewCapabilities(
  rules: CapabilityRules,
  paths: readonly ReviewedPath[],
  base: PackageBaseline,
): CapabilityFinding[] {
  const used = baselineUses(rules, base);
  const findings: CapabilityFinding[] = [];
  for (const path of paths) {
    if (path.kind !== "source" || path.after === undefined || !rules.files.test(path.path)) {
      continue;
    }
    const after = rules.blank(path.after);
    const before = path.before === undefined ? "" : rules.blank(path.before);
    for (const rule of rules.rules) {
      if (used.has(rule.id)) continue;
      const uses = rule.find(after);
      if (uses.length === 0 || uses.length <= rule.find(before).length) continue;
      const lines = [...new Set(uses.map((at) => lineAt(after, at)))];
      for (const line of lines) {
        findings.push({ file: path.path, line, capability: rule.id, reason: rule.reason });
      }
    }
  }
  return findings;
}

/**
 * Blank what matches `pattern` (comments), keeping newlines and lengths so offsets and lines stay
 * those of the original.
 */
export function blankMatches(text: string, pattern: RegExp): string {
  return text.replace(pattern, (m) => m.replace(/[^\n]/g, " "));
}
