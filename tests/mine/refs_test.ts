import { deepEqual, equal } from "node:assert/strict";
import { findReferences, primaryReference } from "../../lib/mine/refs.ts";
import { changeReadsLikeFix, changeText, readsLikeFix } from "../../lib/mine/titles.ts";

Deno.test("findReferences reads every form of issue reference", () => {
  const cases: [string, { kind: string; number: number; closing: boolean; repo?: string }[]][] = [
    ["Fix crash on empty input (#12)", [{ kind: "unknown", number: 12, closing: false }]],
    ["Fixes #45: stock goes negative", [{ kind: "unknown", number: 45, closing: true }]],
    ["closes: #3", [{ kind: "unknown", number: 3, closing: true }]],
    ["gh-7: fix slugify", [{ kind: "issue", number: 7, closing: false }]],
    ["Resolved GH-1234", [{ kind: "issue", number: 1234, closing: true }]],
    [
      "Fixes https://github.com/acme/shop/issues/23",
      [{ kind: "issue", number: 23, closing: true, repo: "acme/shop" }],
    ],
    ["See https://github.com/acme/shop/pull/9", [{
      kind: "pull",
      number: 9,
      closing: false,
      repo: "acme/shop",
    }]],
    ["fix other/repo#5", [{ kind: "unknown", number: 5, closing: true, repo: "other/repo" }]],
    [
      "Fixes #1, #2 and #3",
      [1, 2, 3].map((number) => ({ kind: "unknown", number, closing: true })),
    ],
    ["Use &#123; entities and a/b#c", []],
    ["Colour #fff is not an issue, #0 neither", []],
    ["Bump version to 2.0", []],
  ];
  for (const [text, expected] of cases) {
    const found = findReferences(text).map(({ url: _url, ...rest }) => rest);
    deepEqual(found, expected, text);
  }
});

Deno.test("primaryReference prefers a closed issue, then the title, then the merged pull request", () => {
  equal(primaryReference("Fix empty cart (#41)", "Fixes #40")?.number, 40);
  equal(primaryReference("Fix empty cart (#41)", "See #39")?.number, 41);
  equal(primaryReference("Fix empty cart", "Related to #39"), undefined);
  const merge = primaryReference("Handle zero units", "body", { pullRequest: 75 });
  deepEqual(merge, { kind: "pull", number: 75, closing: false });
  equal(primaryReference("Fix x", "Closes #30", { pullRequest: 34 })?.number, 30);
  equal(primaryReference("Fix x (other/repo#5)", "", { slug: "acme/shop" }), undefined);
  equal(primaryReference("Fix x (acme/shop#5)", "", { slug: "acme/shop" })?.number, 5);
});

Deno.test("readsLikeFix accepts fix words and rejects look-alikes", () => {
  for (
    const title of [
      "Fix crash on empty input",
      "fix(parser): handle tabs",
      "Fixes #45",
      "Bugfix: rounding",
      "Crash when the file is empty",
      "Regression in 2.0 parsing",
      "Handle broken pipes",
      "Error on unicode names",
      "fix-restock-zero",
      "fix_restock_zero",
      // Go's crash word (BurntSushi/toml cf35bea, 0a9f2b0).
      "Don't panic in encoder on unsupported types",
      "Panic when a table key is empty",
    ]
  ) equal(readsLikeFix(title), true, title);
  for (
    const title of [
      "Add fixtures for parsing",
      "Prefix routes",
      "Debug logging",
      "Bump version",
      "Add CSV export",
      "Add MustParse, which panics on errors",
      "Panic instead of os.Exit for illegal states",
    ]
  ) {
    equal(readsLikeFix(title), false, title);
  }
});

Deno.test("changeText reads a GitHub merge commit's pull request title from its body", () => {
  const text = changeText(
    "Merge pull request #34 from octo/fix-discount-stacking\n\nFix discounts stacking beyond 100%\n\nCloses #30\n",
  );
  deepEqual(text, {
    title: "Fix discounts stacking beyond 100%",
    body: "Closes #30",
    pullRequest: 34,
    branch: "fix-discount-stacking",
  });
  deepEqual(changeText("Fix x (#3)\n\nbody\n"), { title: "Fix x (#3)", body: "body" });
  equal(changeText("Merge branch 'fix-y' into main").branch, "fix-y");
});

Deno.test("changeReadsLikeFix counts the merged branch's name and refuses reverts", () => {
  equal(
    changeReadsLikeFix(
      changeText("Merge pull request #75 from octo/fix-restock-zero\n\nHandle zero units"),
    ),
    true,
  );
  equal(
    changeReadsLikeFix(changeText("Merge pull request #76 from octo/feature\n\nAdd export")),
    false,
  );
  equal(changeReadsLikeFix(changeText('Revert "Fix crash on empty input (#12)"')), false);
});
