/**
 * Test selection of the repository's suite (`[judge] select-suite`): a bout on the demo project's
 * `chunk-partial` task run with and without it concludes the same (every tree, row, cell,
 * instability, tampering record, verdict and resolution), with fewer suite tests run; and patches
 * that try to hide a broken suite test from selection (state left for other tests by a changed
 * function, a module-level rebinding) have the whole suite run on them.
 */

import { deepEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { examineAll } from "../../lib/examine/mod.ts";
import { selectSuite } from "../../lib/examine/selection.ts";
import { judgeAll } from "../../lib/judge/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import type { Matrix } from "../../lib/records.ts";
import { scoreAll } from "../../lib/score/mod.ts";
import type { GroupResult } from "../../lib/testbed/mod.ts";
import { tempDir } from "../python/_shared.ts";
import { buildBout, rows, saveAll, type Script, SCRIPTS } from "./_bout.ts";

const CHUNK_B = "count = len(items) // size";

/** Patches that try to break a suite test where selection would not look. */
const HIDERS: Script[] = [
  {
    // Fixes chunk(), and from inside it breaks stats.mean (its `sum`) for every test run after.
    agent: "leaker",
    role: "contestant",
    vendor: "local",
    edits: {
      "textkit/lists.py": {
        replace: [[
          CHUNK_B,
          "import textkit.stats as s\n    s.sum = lambda values: 0\n    count = -(-len(items) // size)",
        ]],
      },
    },
  },
  {
    // Rebinds mean at module level: no function body changes.
    agent: "rebinder",
    role: "contestant",
    vendor: "local",
    edits: { "textkit/stats.py": { append: "\nmean = len\n" } },
  },
  {
    // A body-only change elsewhere: only the tests that reach median() need to run.
    agent: "median",
    role: "contestant",
    vendor: "local",
    edits: {
      "textkit/stats.py": {
        replace: [["return (ordered[middle - 1] + ordered[middle]) / 2", "return ordered[middle]"]],
      },
    },
  },
];

const AGENTS = ["fixer", "wrong", "marker", "cheater", "examiner"];
const SCRIPTED = [...SCRIPTS.filter((s) => AGENTS.includes(s.agent)), ...HIDERS];

async function bout(root: string, select: boolean) {
  const b = await buildBout(root, {
    scripts: SCRIPTED,
    settings: select ? "" : "\n[judge]\nselect-suite = false",
  });
  await saveAll(b, SCRIPTED);
  const stages = { tools: b.tools, sandbox: b.sandbox };
  await oracleAll(b.project, [b.task], stages);
  const [matrix] = (await examineAll(b.project, [b.task], stages)).matrices;
  const verdicts = (await judgeAll(b.project, [b.task])).file.verdicts;
  const resolutions = (await scoreAll(b.project, [b.task], stages)).file.resolutions;
  return { matrix, verdicts, resolutions };
}

/** How many of the suite's tests each session of it ran (its saved cells: B, repeats, patches). */
function suiteRuns(matrix: Matrix): number[] {
  return (matrix.reuse?.cells ?? []).filter((c) => c.owner === "repository")
    .map((c) => Object.keys(c.outcomes).length);
}

Deno.test("a bout with suite selection concludes what it concludes with the whole suite, running fewer suite tests", async () => {
  await using dir = await tempDir();
  const on = await bout(join(dir.path, "on"), true);
  const off = await bout(join(dir.path, "off"), false);
  const conclusions = (m: Matrix) => ({
    trees: m.trees,
    tests: m.tests,
    cells: m.cells,
    unstableOnB: m.unstableOnB,
    tampering: m.tampering,
  });
  deepEqual(conclusions(on.matrix), conclusions(off.matrix));
  deepEqual(on.verdicts, off.verdicts);
  const scored = (r: typeof on.resolutions) =>
    JSON.parse(
      JSON.stringify(
        r,
        (k, v) => (["inputsKey", "durationMs", "runs", "reuse"].includes(k) ? undefined : v),
      ),
    );
  deepEqual(scored(on.resolutions), scored(off.resolutions));
  // The hiders' breakage shows: mean() is broken on both trees, whatever selection would pick.
  const mean = rows(on.matrix).filter(([id]) =>
    id.startsWith("tests/test_stats.py::") && id.includes("mean")
  );
  ok(mean.length > 0);
  const column = (tree: string) => on.matrix.trees.findIndex((t) => t.id === tree);
  for (const tree of ["leaker", "rebinder"]) {
    ok(mean.some(([, , cells]) => cells[column(tree)] === "F"), tree);
  }
  // B keeps the suite's coverage with its cell.
  ok(on.matrix.reuse?.cells.some((c) => c.owner === "repository" && c.coverage));
  const ranOn = suiteRuns(on.matrix);
  const ranOff = suiteRuns(off.matrix);
  const whole = Math.max(...ranOff);
  const sum = (r: number[]) => r.reduce((a, b) => a + b, 0);
  // The whole suite on B and on both hiders; a part of it on the others (or nothing).
  ok(ranOn.filter((n) => n === whole).length >= 3, JSON.stringify({ ranOn, ranOff }));
  ok(sum(ranOn) < sum(ranOff), JSON.stringify({ ranOn, ranOff }));
  ok(on.matrix.runs.length <= off.matrix.runs.length);
  console.log(
    `suite tests run: ${sum(ranOn)} with selection against ${sum(ranOff)} (${
      JSON.stringify(ranOn)
    } against ${
      JSON.stringify(ranOff)
    }); sessions ${on.matrix.runs.length} against ${off.matrix.runs.length}`,
  );
});

const base = (coverage?: GroupResult["coverage"]): GroupResult => ({
  owner: "repository",
  status: "ok",
  outcomes: new Map([
    ["t.py::a", "passed"],
    ["t.py::b", "passed"],
    ["t.py::c[1]", "passed"],
    ["t.py::d", "failed"],
  ]),
  tamper: [],
  suspect: [],
  ...(coverage ? { coverage } : {}),
});
const coverage = {
  locations: ["pkg/m.py:3", "pkg/m.py:10", "pkg/n.py:1"],
  outside: [2],
  tests: { "t.py::a": [0], "t.py::b": [1], "t.py::c[1]": [0, 1] },
};
const fileOf = (id: string) => id.split("::")[0];

Deno.test("selectSuite() runs the tests reaching a changed function, those failing on B and, for a parametrised one, its file", () => {
  const chosen = selectSuite(base(coverage), [{ path: "pkg/m.py", ranges: [[3, 8]] }], fileOf);
  deepEqual("ids" in chosen && [...chosen.ids].sort(), ["t.py", "t.py::a", "t.py::d"]);
});

Deno.test("selectSuite() runs the whole suite without coverage, for a change beyond function bodies, or for a function run outside any test", () => {
  const change = [{ path: "pkg/m.py", ranges: [[3, 8]] as [number, number][] }];
  ok("full" in selectSuite(base(), change, fileOf));
  ok("full" in selectSuite({ ...base(coverage), status: "timeout" }, change, fileOf));
  ok("full" in selectSuite(base(coverage), null, fileOf));
  ok("full" in selectSuite(base(coverage), [{ path: "pkg/m.py", ranges: null }], fileOf));
  ok("full" in selectSuite(base(coverage), [{ path: "pkg/n.py", ranges: [[1, 2]] }], fileOf));
  // A test coverage says nothing of runs; one that reaches nothing changed does not.
  const partial = { ...coverage, tests: { "t.py::a": [0] } };
  const chosen = selectSuite(base(partial), [{ path: "pkg/m.py", ranges: [[10, 12]] }], fileOf);
  deepEqual("ids" in chosen && [...chosen.ids].sort(), ["t.py", "t.py::b", "t.py::d"]);
});
