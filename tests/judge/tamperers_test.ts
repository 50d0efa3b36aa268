/**
 * Who is blamed for a change of the tree's files, decided by comparing with B: what an author's
 * session does on B as well is that author's tests' doing (the repository's suite's: nobody's
 * tampering), what happens only on a patch's tree is that patch's code.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { judge } from "../../judge/mod.ts";
import { tamperers } from "../../judge/rules.ts";
import type { Matrix, Tampering } from "../../lib/records.ts";
import { matrixOf } from "./_helpers.ts";

const changed = (where: string) => [{ what: "changed files of the tree under test", where }];

function withTampering(tampering: Omit<Tampering, "suspect" | "blame">[]): Matrix {
  const matrix = matrixOf({
    trees: ["B", "fixer", "writer"],
    tests: [["e1", "eve", "F P P"], ["r1", "repository", "P P P"]],
    examiners: ["eve"],
  });
  return { ...matrix, tampering: tampering.map((t) => ({ ...t, suspect: [], blame: [] })) };
}

function blamed(matrix: Matrix) {
  const found = tamperers(matrix);
  return { trees: [...found.trees.keys()].sort(), authors: [...found.authors.keys()].sort() };
}

Deno.test("a file the repository's suite changes on B and on every patch blames nobody", () => {
  const data = changed("tests/examples/example.toml");
  const matrix = withTampering(
    ["B", "fixer", "writer"].map((tree) => ({ tree, author: "repository", events: data })),
  );
  deepEqual(blamed(matrix), { trees: [], authors: [] });
});

Deno.test("a file changed only on one patch's tree, in every session on it, blames that patch", () => {
  const data = changed("tests/examples/example.toml");
  const matrix = withTampering([
    { tree: "writer", author: "repository", events: data },
    { tree: "writer", author: "eve", events: data },
  ]);
  deepEqual(blamed(matrix), { trees: ["writer"], authors: [] });
});

Deno.test("a file an agent's tests change on B and on the patches blames that author, not the trees", () => {
  const data = changed("tests/examples/example.toml");
  const matrix = withTampering(
    ["B", "fixer", "writer"].map((tree) => ({ tree, author: "eve", events: data })),
  );
  deepEqual(blamed(matrix), { trees: [], authors: ["eve"] });
});

Deno.test("the suite's own change on B does not excuse a patch that changes another file too", () => {
  const matrix = withTampering([
    { tree: "B", author: "repository", events: changed("tests/examples/example.toml") },
    { tree: "fixer", author: "repository", events: changed("tests/examples/example.toml") },
    {
      tree: "writer",
      author: "repository",
      events: changed("tests/examples/example.toml, tests/conftest.py"),
    },
  ]);
  deepEqual(blamed(matrix), { trees: ["writer"], authors: [] });
});

Deno.test("when B did not run, every patch's rejection names B's trouble", () => {
  const matrix = matrixOf({
    trees: [{ id: "B", status: "tampered" }, "fixer"],
    tests: [["e1", "eve", "- P"]],
    examiners: ["eve"],
  });
  matrix.trees[0].message = "changed files of the tree under test (tests/data.toml)\nmore";
  const verdict = judge(matrix, { policy: "majority", agents: [] });
  equal(verdict.pick, null);
  match(
    verdict.patches.fixer.reason,
    /no run of the unfixed tree completed.*\(B: tampered: changed files of the tree under test \(tests\/data\.toml\)\)/,
  );
});
