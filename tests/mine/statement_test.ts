import { equal, match, ok } from "node:assert/strict";
import { statementSources } from "../../lib/mine/access.ts";
import { titleStatement } from "../../lib/mine/clean.ts";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { gapToml } from "../fixtures/gaps.ts";
import { mineHistory } from "./_history.ts";
import type { RepoBuilder } from "../../lib/demo/repo.ts";

/** A fix whose message says how it was fixed, in its title and in its body. */
function telltale(repo: RepoBuilder) {
  repo.commit({
    message: "Initial",
    files: {
      "shop/__init__.py": "",
      "shop/cart.py": "def total(p):\n    return sum(p)\n",
      "tests/test_cart.py": "def test_a():\n    assert True\n",
    },
  });
  const fix = repo.commit({
    message: "Fix frozen carts losing items by moving the _items.append() after the setattr() " +
      "call (#31)\n\nThe append ran first, so a frozen cart raised half-way. Fix by moving the " +
      "_items.append() after the setattr() call.\n",
    files: {
      "shop/cart.py": "def total(p):\n    return sum(p or [])\n",
      "tests/test_cart.py": "def test_a():\n    assert True\n\n\ndef test_b():\n    assert 1\n",
    },
  });
  return { fix };
}

Deno.test("offline, a statement is the commit's title without references or how it was fixed", async () => {
  await using m = await mineHistory(telltale, { toml: gapToml() });
  const task = m.task("fix")!;
  equal(task.statement, "Fix frozen carts losing items");
  equal(task.statementSource, "commit");
  equal(
    statementSources(m.result.file.tasks),
    "1 from a commit title (the title only, without how it was fixed)",
  );
  ok(!/Issue texts read/.test(m.result.file.statementNote!));
});

Deno.test("the note never says issue texts were read from GitHub when none was", async () => {
  // GitHub knows no issue #31: every statement falls back to the commit's title.
  await using server = startFakeGithub({ repository: "acme/shop", items: [] });
  await using m = await mineHistory(telltale, {
    toml: gapToml(`github = "acme/shop"\ngithub-api = "${server.url}"\n`),
  });
  equal(m.task("fix")!.statementSource, "commit");
  const note = m.result.file.statementNote!;
  ok(!/Issue texts read/.test(note), note);
  match(note, /No issue text was read from GitHub acme\/shop/);
});

Deno.test("titleStatement keeps the problem and drops references, fix prefixes and how-clauses", () => {
  equal(
    titleStatement("Fix chunk() dropping the last partial chunk (#3)"),
    "Fix chunk() dropping the last partial chunk",
  );
  equal(titleStatement("fix(parser): handle tabs"), "Handle tabs");
  equal(titleStatement("Fix #123: wrong result for empty input"), "Wrong result for empty input");
  equal(titleStatement("Fix race in the cache; use a lock"), "Fix race in the cache");
  equal(
    titleStatement("Fix rounding of negative numbers (closes #12, #13)"),
    "Fix rounding of negative numbers",
  );
  equal(titleStatement("Avoid crash via an early return"), "Avoid crash");
  equal(titleStatement("Fixes #45"), "Fixes #45");
});
