/**
 * The bug-or-feature decision from evidence first (issue #23, classes 2–5): what the diff
 * touches outweighs a title's typing words, "fixes #N" counts after "Allow", a bare merge subject
 * reads only its branch and is no statement, a reworded message is no task, conventional-commit
 * types decide, and changelog sections end at a heading the miner does not know.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { changelogKind, readChangelog } from "../../lib/mine/changelog.ts";
import { gapToml } from "../fixtures/gaps.ts";
import { changelogSections, codeMoved, evidenceOverWords } from "../fixtures/shapes.ts";
import { mineHistory } from "./_history.ts";

Deno.test("what the diff touches decides typing-only fixes, not the title's words", async () => {
  await using m = await mineHistory(evidenceOverWords, { toml: gapToml() });
  // "Fix annotations of ..." with code: a task; with annotations only: typing-only.
  equal(m.task("annotationsFix")?.id, "issue-30");
  deepEqual(
    [m.excluded("annotationsOnly")?.reason, m.excluded("annotationsOnly")?.detail],
    ["typing-only", "changes only type annotations in shop/cart.py"],
  );
  // A bare merge subject's branch (fix-types) does not make a typing-only change a task.
  equal(m.excluded("bareTypes")?.reason, "typing-only");
});

Deno.test('"fixes #N" after "Allow" counts, a bare merge subject is no statement, a reworded message is no task', async () => {
  await using m = await mineHistory(evidenceOverWords, { toml: gapToml() });
  equal(m.task("allowFixes")?.id, "issue-32");
  const bare = m.excluded("bareReal");
  equal(bare?.reason, "no-statement");
  match(bare?.detail ?? "", /Merge pull request #35 from octo\/fix-rounding/);
  deepEqual(
    [m.excluded("reworded")?.reason, m.excluded("reworded")?.detail],
    ["message-only", "changes only the wording of messages in shop/cart.py"],
  );
});

Deno.test("a conventional-commit type ranks with the changelog: refactor leaves a change out, fix makes it one", async () => {
  await using m = await mineHistory(evidenceOverWords, { toml: gapToml() });
  const refactor = m.result.file.leftOut?.["not-a-fix"]?.find((e) =>
    e.startsWith(m.commits.refactor.slice(0, 12))
  );
  equal(refactor, `${m.commits.refactor.slice(0, 12)} type refactor`);
  deepEqual(m.task("fixType")?.evidence, [
    { rule: "type", says: "bug", detail: "a conventional commit of type fix" },
  ]);
});

Deno.test("a changelog entry under a heading of its own words counts, and an unknown heading ends the search", async () => {
  await using m = await mineHistory(changelogSections, { toml: gapToml() });
  deepEqual(m.task("underFixes")?.evidence, [
    {
      rule: "changelog",
      says: "bug",
      detail: 'its entry in CHANGES.rst is under "Fixes for metadata and licenses"',
    },
  ]);
  // Under "Behavior changes:" below "Features:": the changelog says nothing; the title decides.
  deepEqual(m.task("underUnknown")?.evidence?.map((e) => e.rule), ["title"]);
});

/** The changelog of a real project's style, before and after an entry is added. */
function entry(before: string, after: string) {
  return changelogKind(before, after);
}

Deno.test("changelog sections read in every heading style found on real projects", () => {
  // towncrier's reStructuredText (pytest-dev/pytest-xdist's CHANGELOG.rst).
  const towncrier = "pytest-xdist 3.6.0 (2024-04-19)\n===============================\n\n" +
    "Features\n--------\n\n- `#1027`_: a feature.\n\nBug Fixes\n---------\n\n- `#1024`_: a fix.\n";
  equal(
    entry(towncrier, towncrier.replace("- `#1024`_", "- `#1030`_: another.\n- `#1024`_")),
    "bug",
  );
  equal(
    entry(towncrier, towncrier.replace("- `#1027`_", "- `#1031`_: new.\n- `#1027`_")),
    "feature",
  );
  // Markdown with a version heading and sections (jorisroovers/gitlint's CHANGELOG.md), and an
  // unknown section ("General") that ends the search.
  const gitlint = "# v0.9.0 (2017-12-03)\n\n## Features\n\n- Rule x\n\n## General\n\n- Docs\n\n" +
    "## Bugfixes\n\n- Crash on y\n";
  equal(entry(gitlint, gitlint.replace("- Crash on y", "- Crash on z\n- Crash on y")), "bug");
  equal(entry(gitlint, gitlint.replace("- Docs", "- Faster CI\n- Docs")), undefined);
  // Markdown subsections: one of other words under "### Bug Fixes" is part of it; under an
  // unknown section, it is not.
  const sub = "## 2.0.0\n\n### Features\n\n- a\n\n### Bug Fixes\n\n#### CLI\n\n- b\n\n" +
    "#### Parser\n\n- c\n\n### General\n\n#### Docs\n\n- d\n";
  equal(entry(sub, sub.replace("- c", "- x\n- c")), "bug");
  equal(entry(sub, sub.replace("- d", "- x\n- d")), undefined);
  // keep-a-changelog ("### Fixed") and conventional-changelog ("### Bug Fixes").
  const keep = "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- a\n\n### Fixed\n\n- b\n";
  equal(entry(keep, keep.replace("- b", "- c\n- b")), "bug");
  const conventional = "## [1.2.0](https://x)\n\n### Features\n\n* a\n\n### Bug Fixes\n\n* b\n";
  equal(entry(conventional, conventional.replace("* b", "* c\n* b")), "bug");
  // Bold headings (pytest-dev/pytest-mock's CHANGELOG.rst).
  const bold = "3.14.0\n------\n\n**Packaging**\n\n- wheels\n\n**Bug fixes**\n\n- a\n";
  equal(entry(bold, bold.replace("- a", "- b\n- a")), "bug");
  equal(entry(bold, bold.replace("- wheels", "- sdist\n- wheels")), undefined);
  // A colon heading of its own words, and "Behavior changes" that stays neutral.
  const colon = "2.1\n---\n\nFeatures:\n\n- a\n\nBehavior changes:\n\n- b\n\n" +
    "Fixes for metadata and licenses:\n\n- c\n";
  equal(entry(colon, colon.replace("- c", "- d\n- c")), "bug");
  equal(entry(colon, colon.replace("- b", "- e\n- b")), undefined);
  // towncrier's own section names in reStructuredText: "Improved Documentation" and
  // "Trivial/Internal Changes" are no bug fixes, and end the search (pytest's CHANGELOG.rst).
  const sections =
    "pytest 7.0.0 (2022-02-03)\n=========================\n\nFeatures\n--------\n\n" +
    "- `#1`: f.\n\nImproved Documentation\n----------------------\n\n- `#2`: d.\n\n" +
    "Trivial/Internal Changes\n~~~~~~~~~~~~~~~~~~~~~~~~\n\n- `#3`: t.\n";
  equal(entry(sections, sections.replace("- `#2`", "- `#9`: x.\n- `#2`")), undefined);
  equal(entry(sections, sections.replace("- `#3`", "- `#9`: x.\n- `#3`")), undefined);
  // Colon headings of the usual words.
  const usual = "1.0\n---\n\nFeatures:\n\n- a\n\nBug fixes:\n\n- b\n\nFixed:\n- c\n";
  equal(entry(usual, usual.replace("- b", "- x\n- b")), "bug");
  equal(entry(usual, usual.replace("- c", "- x\n- c")), "bug");
  // A list nested under an item that names its section (jorisroovers/gitlint 0.14's CHANGELOG.md):
  // the item decides for the entries below it, not for those beside it.
  const nested = "# Changelog #\n\n## v0.14.0 (TBD) ##\n- **New Rule**: x\n- Bugfixes:\n" +
    "  -  Options can be None.\n- New `RegexOption`\n";
  equal(
    entry(nested, nested.replace("  -  Options", "  -  Ignore rules: no None.\n  -  Options")),
    "bug",
  );
  equal(
    entry(nested, nested.replace("- New `Regex", "- Python 3.9 support\n- New `Regex")),
    undefined,
  );
  // A line edited in its markup only is no new entry (gitlint cb94a49: a feature that put
  // backticks into a bug fix's entry).
  const edited = nested.replace("- New `Regex", "- **New Rule**: y\n- New `Regex")
    .replace("be None", "be `None`");
  equal(entry(nested, edited), undefined);
  // An entry wrapped anew is no new entry either (pallets/click 6a1c0d0: the old entry's first
  // line, now ending before its references, beside the new entry).
  const jinjaLike =
    "Version 8.1.8\n-------------\n\n-   Don't discard pager arguments by correctly " +
    "using subprocess.Popen. :issue:`3039` :pr:`3055`\n-   Fix EOF handling. :issue:`2939`\n";
  // What is recorded of it is the new entry, not the wrapped line's rest.
  deepEqual(
    readChangelog(
      jinjaLike,
      jinjaLike.replace(
        "subprocess.Popen. :issue:`3039` :pr:`3055`\n",
        "``subprocess.Popen``. :issue:`3039`\n    :pr:`3055`\n-   Replace ``UNSET`` defaults by ``None``.\n",
      ),
    ),
    { entry: "-   Replace ``UNSET`` defaults by ``None``." },
  );
  // An item of other words above a nested list is an entry's start: the section above decides.
  const intro = "Bug fixes\n---------\n\n- Parsing:\n  - a\n";
  equal(entry(intro, intro.replace("  - a", "  - b\n  - a")), "bug");
  // No sections, an entry that says what now works (pytest 0a26132's CHANGELOG.rst, 3.0.7;
  // pytest 8a41b26's "again accepts", click 8a4ce84's "no longer silently drop").
  const patch = "3.0.7 (unreleased)\n==================\n\n* Fix regression, x.\n\n* Ignore y.\n";
  equal(
    entry(
      patch,
      patch.replace("* Ignore y.", "* ``-o`` now correctly overrides z.\n\n* Ignore y."),
    ),
    "bug",
  );
  for (const words of ["again accepts unicode", "no longer silently drops zero"]) {
    equal(
      entry(patch, patch.replace("* Ignore y.", `* \`\`ids\`\` ${words}.\n\n* Ignore y.`)),
      "bug",
    );
  }
  // No sections at all (pallets/jinja's CHANGES.rst): the entry's own first word.
  const jinja = "Version 3.1.5\n-------------\n\nReleased 2024-12-21\n\n-   Fix a. :issue:`1`\n";
  equal(entry(jinja, jinja.replace("-   Fix a.", "-   Fix b. :issue:`2`\n-   Fix a.")), "bug");
});

Deno.test("code moved or indented anew is no typing-only change, whatever its lines read as a set", async () => {
  await using m = await mineHistory(codeMoved, { toml: gapToml() });
  // pallets/click 9c456ec: two blocks swapped, a blank line added above them.
  equal(m.task("swapped")?.id, "issue-50");
  // pytest 917ce9a: a loop moved out of a block to another place.
  equal(m.task("movedOut")?.id, "issue-51");
  // pytest 93fdad2: a line indented into the block above.
  equal(m.task("indented")?.id, "issue-52");
  // Annotations changed in two hunks, nothing else: typing-only still.
  deepEqual(
    [m.excluded("annotated")?.reason, m.excluded("annotated")?.detail],
    ["typing-only", "changes only type annotations in shop/cart.py"],
  );
});
