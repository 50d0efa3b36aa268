/**
 * What scoring refuses to apply from a patch, and the tricks it notices. Only source changes are
 * applied; everything else is listed in `ignored` with the reason. Flagged:
 *
 * - `conftest.py`, `pytest.ini` / `pytest.toml`, the pytest section of `tox.ini` / `setup.cfg` /
 *   `pyproject.toml`, `sitecustomize.py` / `usercustomize.py`, `.pth` files and pytest plugins
 *   (`pytest_*.py`), added, edited, deleted or renamed, wherever they are (a `pytest.toml` inside
 *   the package is the configuration of the tests beneath it): they change how tests run or what
 *   Python imports;
 * - skip and xfail markers added to a test module that exists on B (the maintainers' tests);
 * - a source change that imports pytest or defines a pytest hook (`def pytest_...`): code under
 *   test has no business reaching the runner, and a module pytest loads as a plugin could fake a
 *   pass. Such changes are still applied — they may be legitimate — but the report shows them.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import { parseToml, TomlError } from "../deps.ts";
import { canonicalJson } from "../hash.ts";
import { parseIni, PYTEST_HOOK, PYTEST_IMPORT } from "../lang/python/mod.ts";
import type { PatchFile } from "../records.ts";
import { type FileChange, type PathRules, stateText } from "../testbed/mod.ts";
import { changeVerb, gained, reviewedPaths } from "./review.ts";

/** A file of a patch that scoring does not apply, and why. */
export interface IgnoredFile {
  /** The path. */
  path: string;
  /** Why it is not applied. */
  reason: string;
}

/** What scoring makes of a patch's files. */
export interface PatchReview {
  /** Tricks noticed, one line each. */
  flags: string[];
  /** Files not applied, and why. */
  ignored: IgnoredFile[];
}

const MARKERS =
  /pytest\.mark\.(?:skip|skipif|xfail)\b|pytest\.(?:skip|xfail|importorskip)\s*\(|unittest\.skip\w*|@(?:skip|skipIf|skipUnless|expectedFailure|xfail)\b/g;

/** The pytest settings a configuration file holds, as comparable text (undefined: none). */
export function pytestSection(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (name === "pyproject.toml") {
    try {
      const data = parseToml(text) as { tool?: { pytest?: unknown } };
      return data.tool?.pytest === undefined ? undefined : canonicalJson(data.tool.pytest);
    } catch (error) {
      if (error instanceof TomlError) return `unparsable:${text}`;
      throw error;
    }
  }
  const section = parseIni(text).get(name === "setup.cfg" ? "tool:pytest" : "pytest");
  return section ? canonicalJson(Object.fromEntries(section)) : undefined;
}

function configFlag(path: string, change: FileChange): string | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const how = changeVerb(change);
  if (name === "conftest.py") return `${how} ${path} (a conftest.py)`;
  if (/^\.?pytest\.(?:ini|toml)$/.test(name)) {
    return `${how} ${path} (pytest configuration)`;
  }
  if (name === "tox.ini" || name === "setup.cfg" || name === "pyproject.toml") {
    const before = pytestSection(name, stateText(change.before));
    const after = pytestSection(name, stateText(change.after));
    return before === after ? undefined : `edits the pytest settings in ${path}`;
  }
  if (name === "sitecustomize.py" || name === "usercustomize.py") {
    return `${how} ${path} (an import hook)`;
  }
  if (name.endsWith(".pth")) return `${how} ${path} (a .pth file)`;
  if (/^pytest_.*\.py$/.test(name)) return `${how} ${path} (a pytest plugin)`;
  return undefined;
}

const REASONS = {
  config: "pytest configuration or an import hook: never applied when scoring",
  test: "a test change: scoring runs the maintainers' tests",
  other: "outside the package: only source changes are applied",
} as const;

/**
 * Review a patch's files (`changes` holds each path before and after, from `patchedFiles`). Paths
 * are classified again with today's rules.
 */
export function reviewPatch(
  files: readonly PatchFile[],
  changes: ReadonlyMap<string, FileChange>,
  rules: PathRules,
): PatchReview {
  const flags: string[] = [];
  const ignored: IgnoredFile[] = [];
  for (const { path, kind, change } of reviewedPaths(files, changes, rules)) {
    if (kind === "source") {
      if (gained(change, PYTEST_IMPORT)) flags.push(`imports pytest from the source: ${path}`);
      if (gained(change, PYTEST_HOOK)) flags.push(`defines pytest hooks in the source: ${path}`);
      continue;
    }
    ignored.push({ path, reason: REASONS[kind] });
    if (kind === "config") {
      const flag = configFlag(path, change);
      if (flag) flags.push(flag);
    } else if (kind === "test" && change.before.kind === "file") {
      if (gained(change, MARKERS)) {
        flags.push(`adds skip/xfail markers to the repository's tests in ${path}`);
      }
    }
  }
  return { flags: [...new Set(flags)], ignored };
}
