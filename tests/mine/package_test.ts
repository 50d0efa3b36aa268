import { deepEqual, equal } from "node:assert/strict";
import { sortFiles } from "../../lib/lang/python/mod.ts";
import type { PathChange } from "../../lib/history.ts";
import { pythonPathFor } from "../../lib/lang/python/layout.ts";
import { inPackage, packageBefore, PackageTracker } from "../../lib/lang/python/mod.ts";
import { DEFAULT_RULES } from "../../lib/lang/python/pytest_rules.ts";

const R = (oldPath: string, path: string): PathChange => ({ status: "R", oldPath, path });
const A = (path: string): PathChange => ({ status: "A", path });
const D = (path: string): PathChange => ({ status: "D", path });
const M = (path: string): PathChange => ({ status: "M", path });

Deno.test("packageBefore follows a package back through the moves that made it", () => {
  const cases: [string, string, PathChange[], string][] = [
    ["pkg/ to src/pkg/", "src/pkg", [
      R("pkg/__init__.py", "src/pkg/__init__.py"),
      R("pkg/a.py", "src/pkg/a.py"),
    ], "pkg"],
    ["a renamed package", "newname", [R("oldname/__init__.py", "newname/__init__.py")], "oldname"],
    ["a module turned into a package", "src/pkg", [R("pkg.py", "src/pkg/__init__.py")], "pkg.py"],
    [
      "an empty __init__.py is not paired as a rename",
      "src/pkg",
      [A("src/pkg/__init__.py"), D("pkg/__init__.py"), R("pkg/a.py", "src/pkg/a.py")],
      "pkg",
    ],
    [
      "the other files agree when __init__.py changed too much",
      "src/pkg",
      [
        A("src/pkg/__init__.py"),
        R("lib/pkg2/a.py", "src/pkg/a.py"),
        R("lib/pkg2/b.py", "src/pkg/b.py"),
      ],
      "lib/pkg2",
    ],
    [
      "one file moved into the package is not a move",
      "pkg",
      [R("other/util.py", "pkg/util.py")],
      "pkg",
    ],
    ["an ordinary change", "pkg", [M("pkg/a.py")], "pkg"],
  ];
  for (const [name, after, files, before] of cases) {
    equal(packageBefore(after, files), before, name);
  }
});

Deno.test("PackageTracker says where the package was after and before each change, newest first", () => {
  const tracker = new PackageTracker("src/pkg");
  deepEqual(tracker.step([M("src/pkg/a.py")]), { atG: "src/pkg", atB: "src/pkg" });
  deepEqual(tracker.step([R("pkg/__init__.py", "src/pkg/__init__.py")]), {
    atG: "src/pkg",
    atB: "pkg",
  });
  deepEqual(tracker.step([M("pkg/a.py")]), { atG: "pkg", atB: "pkg" });
});

Deno.test("inPackage and pythonPathFor handle directories and single modules", () => {
  equal(inPackage("src/pkg/a.py", "src/pkg"), true);
  equal(inPackage("src/pkg.py", "src/pkg"), true);
  equal(inPackage("src/pkgx/a.py", "src/pkg"), false);
  equal(inPackage("pkg.py", "pkg.py"), true);
  equal(pythonPathFor("src/pkg"), "src");
  equal(pythonPathFor("pkg"), ".");
  equal(pythonPathFor("pkg.py"), ".");
  equal(pythonPathFor("lib/python/pkg"), "lib/python");
});

Deno.test("sortFiles splits source files, test modules and support files", () => {
  const files = sortFiles(
    {
      files: [
        M("src/pkg/a.py"),
        D("src/pkg/old.py"),
        M("src/pkg/data.json"),
        M("src/pkg/tests/test_inner.py"),
        A("tests/test_new.py"),
        M("tests/conftest.py"),
        A("tests/data/case.txt"),
        R("tests/test_old.py", "tests/test_renamed.py"),
        M("docs/index.md"),
        M("setup.py"),
      ],
    },
    { atG: "src/pkg", atB: "src/pkg" },
    DEFAULT_RULES,
    "tests",
  );
  const { testChanges, ...sorted } = files;
  deepEqual(testChanges.map((f) => f.path), [
    "src/pkg/tests/test_inner.py",
    "tests/test_new.py",
    "tests/test_renamed.py",
  ]);
  deepEqual(sorted, {
    sourceFiles: ["src/pkg/a.py", "src/pkg/old.py"],
    testModules: ["src/pkg/tests/test_inner.py", "tests/test_new.py", "tests/test_renamed.py"],
    supportFiles: ["tests/conftest.py", "tests/data/case.txt"],
    renamedFrom: { "tests/test_renamed.py": "tests/test_old.py" },
  });
});
