/**
 * The languages bugbout serves, behind one door: the registry is the only code that names a
 * language. Every stage asks it for the {@linkcode LanguageSpec} of a project's
 * `[project] language` and works through that interface alone (`types.ts`); each language is a
 * folder beside this file (`python/`, `go/`, `node/`) and one line of {@linkcode BUILT_IN}.
 *
 * A program (or a test) can register a language of its own with {@linkcode registerLanguage}.
 *
 * Requires what the languages' members require; the registry itself needs nothing.
 *
 * @module
 */

import { BugboutError } from "../errors.ts";
import { addLanguageName, DEFAULT_LANGUAGE, type Language } from "../records.ts";
import { closest } from "../suggest.ts";
import { commandLanguage } from "./command/mod.ts";
import { go } from "./go/mod.ts";
import { node } from "./node/mod.ts";
import { python } from "./python/mod.ts";
import { rust } from "./rust/mod.ts";
import type { LanguageSpec, ProjectDetection } from "./types.ts";

export type * from "./types.ts";
export { LANGUAGES } from "../records.ts";

/** The built-in languages, in the order detection tries them. */
const BUILT_IN: readonly LanguageSpec[] = [python, go, node, rust, commandLanguage];

const registered = new Map<string, LanguageSpec>(BUILT_IN.map((l) => [l.name, l]));

/**
 * The language named `name` (`[project] language`). Throws a `BugboutError` naming the known ones
 * when there is none by that name.
 */
export function languageOf(name: Language): LanguageSpec {
  const found = registered.get(name);
  if (found) return found;
  const known = [...registered.keys()];
  const near = closest(name, known);
  throw new BugboutError(`No language is called "${name}".`, {
    hint: `${near ? `Did you mean "${near}"? ` : ""}The languages are ${known.join(", ")}.`,
  });
}

/** Every language bugbout knows now, built-in ones first. */
export function languages(): LanguageSpec[] {
  return [...registered.values()];
}

/**
 * Make `language` known to every stage and to the configuration, under its name (replacing a
 * language of the same name until taken back). Returns what takes it back.
 */
export function registerLanguage(language: LanguageSpec): () => void {
  const before = registered.get(language.name);
  registered.set(language.name, language);
  const forget = addLanguageName({ name: language.name, requires: language.requires });
  return () => {
    forget();
    if (before) registered.set(language.name, before);
    else registered.delete(language.name);
  };
}

/**
 * The language of the project in `tree`: the first language that recognises it, in the
 * registry's order (a Python package first: a Go or JavaScript project often carries a few
 * Python scripts, but a package directory decides), else the default language.
 */
export async function detectProject(tree: string): Promise<ProjectDetection> {
  const found = (await Promise.all(languages().map((l) => l.detect(tree))))
    .filter((d) => d !== undefined);
  if (found.length === 0) return { tree, language: DEFAULT_LANGUAGE, others: [] };
  return { tree, language: found[0].language, detected: found[0], others: found.slice(1) };
}

/**
 * The runner of a tree (JavaScript's reads the project's runner configuration from `tree`,
 * Python's pytest's discovery rules).
 */
export async function openRunner(language: Language, tree: string) {
  return await languageOf(language).openRunner(tree);
}

export { infraCause, mergeRepeats } from "./results.ts";
export { perTreeTools, RUNNERS_VERSION } from "./tools.ts";

// -- Mining -----------------------------------------------------------------------------------
export {
  type MiningRunner,
  openRunnerMiner,
  runnerAt,
  type RunnerCode,
  type TestMarks,
} from "./mining.ts";

// -- Capability review ------------------------------------------------------------------------
export {
  baselineUses,
  CAPABILITY_RULES,
  type CapabilityRule,
  type CapabilityRules,
  type PackageBaseline,
  patternRule,
  reviewCapabilities,
} from "./capabilities.ts";
