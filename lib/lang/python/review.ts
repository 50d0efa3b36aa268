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

import { parseToml, TomlError } from "../../deps.ts";
import { canonicalJson } from "../../hash.ts";
import { gained } from "../shared.ts";
import type { PatchReview, ReviewedPath } from "../types.ts";
import type { PackageBaseline } from "../capabilities.ts";
import { parseIni } from "./pytest_rules.ts";

/** An import of pytest, in any form: code under test has no business reaching the runner. */
export const PYTEST_IMPORT: RegExp =
  /^\s*(?:import\s+_?pytest\b|from\s+_?pytest\b)|__import__\(\s*["']_?pytest/gm;
/** A pytest hook defined at any depth: only a plugin has reason to, and the code under test is not one. */
export const PYTEST_HOOK: RegExp = /^\s*def\s+pytest_\w+\s*\(/gm;

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

function configFlag({ path, before, after, verb: how }: ReviewedPath): string | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name === "conftest.py") return `${how} ${path} (a conftest.py)`;
  if (/^\.?pytest\.(?:ini|toml)$/.test(name)) {
    return `${how} ${path} (pytest configuration)`;
  }
  if (name === "tox.ini" || name === "setup.cfg" || name === "pyproject.toml") {
    const settings = [pytestSection(name, before), pytestSection(name, after)];
    return settings[0] === settings[1] ? undefined : `edits the pytest settings in ${path}`;
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
 * Review a patch's paths (classified with today's rules): what scoring flags and what it does not
 * apply, as the module's documentation says. With `base` (the source files of B's package), source
 * reaching pytest is flagged only when no file of B's package already did (a pytest plugin's own
 * package imports pytest).
 */
export function reviewPythonPatch(
  paths: readonly ReviewedPath[],
  base?: PackageBaseline,
): PatchReview {
  const flags: string[] = [];
  const ignored: PatchReview["ignored"] = [];
  for (const change of paths) {
    const { path, kind } = change;
    if (kind === "source") {
      if (gained(change, PYTEST_IMPORT, base)) {
        flags.push(`imports pytest from the source: ${path}`);
      }
      if (gained(change, PYTEST_HOOK, base)) {
        flags.push(`defines pytest hooks in the source: ${path}`);
      }
      continue;
    }
    ignored.push({ path, reason: REASONS[kind] });
    if (kind === "config") {
      const flag = configFlag(change);
      if (flag) flags.push(flag);
    } else if (kind === "test" && change.verb !== "adds") {
      if (gained(change, MARKERS)) {
        flags.push(`adds skip/xfail markers to the repository's tests in ${path}`);
      }
    }
  }
  return { flags: [...new Set(flags)], ignored };
}
