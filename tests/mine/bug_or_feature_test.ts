import { deepEqual, equal, ok } from "node:assert/strict";
import { changelogKind, fragmentKind, isChangelogFile } from "../../lib/mine/changelog.ts";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { featuresAndFixes, gapToml, referencesAndRepeats } from "../fixtures/gaps.ts";
import { mineHistory } from "./_history.ts";

Deno.test("features are told from bugs: fix words only in prose, the changelog entry decides, and every rule's count is kept", async () => {
  await using m = await mineHistory(featuresAndFixes, { toml: gapToml() });
  const ids = m.result.file.tasks.map((t) => t.id);
  // Fix words inside identifiers or backticks, or an error word in a feature's title: no fix.
  for (const key of ["identifier", "backticks", "errorFeature"]) {
    equal(m.task(key), undefined, key);
  }
  // A "fix" whose changelog fragment or CHANGES.rst entry is a feature.
  equal(m.excluded("fragmentFeature")?.reason, "feature-in-changelog");
  equal(m.excluded("sectionFeature")?.reason, "feature-in-changelog");
  // Titles that do not say fix, whose changelog says bug fix: tasks, with the evidence.
  deepEqual(ids, ["issue-27", "issue-26", "issue-24"]);
  deepEqual(m.task("fragmentBug")!.evidence, [
    { rule: "changelog", says: "bug", detail: "adds changelog/24.bugfix.rst" },
  ]);
  deepEqual(m.task("sectionBug")!.evidence, [
    { rule: "changelog", says: "bug", detail: 'its entry in CHANGES.rst is under "Bug fixes"' },
  ]);
  deepEqual(m.task("plainFix")!.evidence, [
    { rule: "title", says: "bug", detail: '"TypeError when a price is None (#27)"' },
  ]);
  deepEqual(m.result.file.counts, { "not-a-fix": 4, "feature-in-changelog": 2 });
});

Deno.test("GitHub labels that say feature leave a fix out, and labels that say bug are evidence", async () => {
  await using server = startFakeGithub({
    repository: "acme/shop",
    items: [
      { number: 5, title: "Crash on unicode names", body: "It crashes.", labels: ["enhancement"] },
      { number: 226, title: "Empty lists", body: "Totals of [] fail.", labels: ["type: bug"] },
    ],
  });
  await using m = await mineHistory(referencesAndRepeats, {
    toml: gapToml(`github = "acme/shop"\ngithub-api = "${server.url}"\n`),
  });
  // Both changes naming #5 read the same issue, and its label.
  equal(m.excluded("oldFive")?.reason, "feature-label");
  equal(m.excluded("newFive")?.reason, "feature-label");
  deepEqual(m.task("closesIssue")!.evidence!.map((e) => [e.rule, e.says]), [
    ["title", "bug"],
    ["label", "bug"],
  ]);
  equal(m.task("closesIssue")!.statementSource, "issue");
  equal(m.result.file.counts["feature-label"], 2);
});

Deno.test("fragmentKind, isChangelogFile and changelogKind read towncrier fragments and changelog sections", () => {
  equal(fragmentKind("changelog/1234.bugfix.rst"), "bug");
  equal(fragmentKind("changes/99.feature.md"), "feature");
  equal(fragmentKind("newsfragments/12.fix"), "bug");
  equal(fragmentKind("changelog/1234.doc.rst"), undefined);
  equal(fragmentKind("doc/whatsnew/fragments/10719.false_positive"), "bug");
  equal(fragmentKind("doc/whatsnew/fragments/10982.new_check"), "feature");
  equal(fragmentKind("docs/changelog.rst"), undefined);
  ok(isChangelogFile("CHANGES.rst") && isChangelogFile("docs/changelog.md"));
  ok(!isChangelogFile("shop/changes.py"));
  const before = "# Changelog\n\n## 2.0\n\n### Fixed\n\n- old fix\n\n### Added\n\n- old thing\n";
  equal(changelogKind(before, before.replace("- old fix\n", "- new fix\n- old fix\n")), "bug");
  equal(
    changelogKind(before, before.replace("- old thing\n", "- shiny\n- old thing\n")),
    "feature",
  );
  equal(
    changelogKind(
      "History\n\n1.0\n\n- Fixed x.\n",
      "History\n\n1.1\n\n- Fix y.\n\n1.0\n\n- Fixed x.\n",
    ),
    "bug",
  );
  equal(changelogKind(before, before), undefined);
});
