/**
 * A compact way to write cross-examination matrices in tests: one row per test, one letter per
 * tree. Letters: P passed, F failed, E error, S skipped, X xfailed, - not-run.
 *
 * @module
 */

import { type Matrix, matrixSchema, type Outcome } from "../../lib/records.ts";

const LETTERS: Record<string, Outcome> = {
  P: "passed",
  F: "failed",
  E: "error",
  S: "skipped",
  X: "xfailed",
  "-": "not-run",
};

/** A tree in a test matrix: its id, or its id with a status other than `ok`. */
export type TreeSpec = string | { id: string; status: Matrix["trees"][number]["status"] };

/** A test matrix: trees, then rows `[test id, author, letters]`. */
export interface MatrixSpec {
  task?: string;
  /** Ids "B", "B#2", ... are B repeats; any other id is the patch of the agent of that name. */
  trees: TreeSpec[];
  /** `[test, author, "F F P -"]`; author "repository" is the project's suite. */
  tests: [string, string, string][];
  /** Authors that are examiners (every other non-repository author is a contestant). */
  examiners?: string[];
  unstableOnB?: string[];
}

/** Build a valid {@linkcode Matrix} from a {@linkcode MatrixSpec}. */
export function matrixOf(spec: MatrixSpec): Matrix {
  const trees = spec.trees.map((t) => {
    const { id, status } = typeof t === "string" ? { id: t, status: "ok" as const } : t;
    const base = id === "B" || id.startsWith("B#");
    return base ? { id, kind: "base" as const, status } : {
      id,
      kind: "patch" as const,
      agent: id,
      status,
      message: status === "ok" ? undefined : "x",
    };
  });
  const cells: Matrix["cells"] = {};
  for (const [test, , letters] of spec.tests) {
    const row = letters.split(/\s+/).filter((l) => l !== "");
    if (row.length !== trees.length) {
      throw new Error(`Cannot build row ${test}: ${row.length} cells for ${trees.length} trees`);
    }
    cells[test] = {};
    row.forEach((letter, i) => {
      const outcome = LETTERS[letter];
      if (!outcome) throw new Error(`Cannot build row ${test}: unknown letter ${letter}`);
      if (trees[i].status !== "ok" && outcome !== "not-run") {
        throw new Error(`Cannot build row ${test}: tree ${trees[i].id} did not run`);
      }
      cells[test][trees[i].id] = outcome;
    });
  }
  const examiners = new Set(spec.examiners ?? []);
  return matrixSchema.parse({
    version: 1,
    kind: "matrix",
    task: spec.task ?? "issue-1",
    inputsKey: "k",
    trees,
    tests: spec.tests.map(([id, author]) => ({
      id,
      author,
      authorRole: author === "repository"
        ? "repository"
        : examiners.has(author)
        ? "examiner"
        : "contestant",
    })),
    cells,
    unstableOnB: spec.unstableOnB ?? [],
    runs: [],
  });
}
