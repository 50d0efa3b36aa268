/**
 * What `bugbout init` writes for a Python project: the `[project]` lines from its layout (the
 * package, the tests directory, the Python and test dependencies it declares), and what it
 * noticed.
 *
 * Requires `--allow-read` (the tree).
 *
 * @module
 */

import { BugboutError } from "../../errors.ts";
import type { Detected, InitConfig, ProjectDetection } from "../types.ts";
import { detectLayout } from "./layout.ts";

/** A tree with a Python package (a directory with `__init__.py`), where its tests lie. */
export async function detectPython(tree: string): Promise<Detected | undefined> {
  const layout = await detectLayout(tree);
  if (!layout.isPython || !layout.source) return undefined;
  return {
    language: "python",
    runner: "pytest",
    evidence: `the package ${layout.source}`,
    source: layout.source,
    ...(layout.tests ? { tests: layout.tests } : {}),
  };
}

/** The `[project]` lines and notes for the Python project `found` describes. */
export async function pythonInitConfig({ tree }: ProjectDetection): Promise<InitConfig> {
  const layout = await detectLayout(tree);
  if (!layout.isPython || !layout.source) {
    throw new BugboutError(
      layout.isPython
        ? `Found Python files in ${tree} but no package directory (a directory with __init__.py).`
        : `${tree} does not look like a Python project: no .py files were found.`,
      {
        hint: layout.isPython
          ? `Write bugbout.toml by hand with [project] source = "path/to/package".`
          : "bugbout replays fixes of Python projects tested with pytest, Go modules and " +
            "JavaScript/TypeScript projects tested with vitest, jest or node --test; run init " +
            "in one.",
      },
    );
  }
  const q = (s: string) => JSON.stringify(s);
  const lines = [
    "# The package directory, relative to the repository root.",
    `source = ${q(layout.source)}`,
  ];
  if (layout.sourceReason) {
    lines.push(
      `# Chosen because ${layout.sourceReason}; other candidates: ${
        layout.otherSources.join(", ")
      }.`,
    );
  }
  lines.push(
    "# The tests directory.",
    layout.tests
      ? `tests = ${q(layout.tests)}`
      : `# tests = "tests"   (no tests directory was found)`,
    "# The repository to mine: this directory, or a git URL to clone.",
    `# repository = "."`,
    `# github = "owner/name"       # where issues live, when origin is not on GitHub`,
    layout.requiresPython
      ? `# python = "3.x"              # default: a Python on this machine that satisfies ${
        q(layout.requiresPython.spec)
      } (${layout.requiresPython.from})`
      : `# python = "3.x"              # default: the Python uv finds on this machine`,
    ...(layout.testDependencies
      ? [
        `# What the tests need besides the project (from ${layout.testDependencies.from});`,
        "# `bugbout doctor` checks that they install.",
        `test-dependencies = [${layout.testDependencies.requirements.map(q).join(", ")}]`,
      ]
      : [`# test-dependencies = ["pytest"]`]),
    `# pytest-args = []`,
    `# env = { DATABASE_URL = "sqlite://" }`,
  );
  const notes: string[] = [];
  if (layout.sourceReason) notes.push(`Package: ${layout.source} (${layout.sourceReason}).`);
  if (layout.testDependencies) {
    notes.push(
      `Test dependencies: ${layout.testDependencies.requirements.length} from ` +
        `${layout.testDependencies.from}.`,
    );
  }
  if (!layout.tests) notes.push("No tests directory found; set [project] tests.");
  const summary: [string, string][] = [
    ["package", layout.source],
    ["tests", layout.tests ?? "(none found)"],
    [
      "python",
      layout.requiresPython
        ? `${layout.requiresPython.spec} (from ${layout.requiresPython.from})`
        : "not declared",
    ],
  ];
  return { lines, summary, notes };
}
