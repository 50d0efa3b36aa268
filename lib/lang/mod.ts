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
import { addLanguageName, type Language } from "../records.ts";
import { closest } from "../suggest.ts";
import { go } from "./go/mod.ts";
import { node } from "./node/mod.ts";
import { python } from "./python/mod.ts";
import type { Detected, LanguageSpec } from "./types.ts";

export type * from "./types.ts";
export { LANGUAGES } from "../records.ts";

/** The built-in languages, in the order detection tries them. */
const BUILT_IN: readonly LanguageSpec[] = [python, go, node];

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
 * The languages other than Python found at the root of `tree`, each with its runner and what it
 * was told by: a `go.mod`, a `package.json` with a test runner. (Python is `init`'s own layout
 * detection: a package directory and pytest's configuration.)
 */
export async function detectOtherLanguages(tree: string): Promise<Detected[]> {
  const found = await Promise.all(
    languages().filter((l) => l.name !== "python").map((l) => l.detect(tree)),
  );
  return found.filter((d) => d !== undefined);
}

/**
 * The runner of a tree (JavaScript's reads the project's runner configuration from `tree`,
 * Python's pytest's discovery rules).
 */
export async function openRunner(language: Language, tree: string) {
  return await languageOf(language).openRunner(tree);
}

// -- Mining -----------------------------------------------------------------------------------
export {
  type MiningRunner,
  openRunnerMiner,
  runnerAt,
  type RunnerCode,
  type TestMarks,
} from "./mining.ts";
