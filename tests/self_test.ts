import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import {
  describeStart,
  detectStart,
  helperCommand,
  INTERNAL_COMMANDS,
  SCRIPT_FLAGS,
  type StartFacts,
} from "../lib/self.ts";
import { ROOT } from "./_helpers.ts";

const DENO = "/usr/bin/deno";

const CASES: [string, StartFacts, ReturnType<typeof detectStart>][] = [
  [
    "a compiled executable is itself, whatever its embedded module paths say",
    {
      standalone: true,
      execPath: "/usr/local/bin/bugbout",
      moduleUrl: "file:///tmp/deno-compile-bugbout/lib/self.ts",
    },
    { kind: "compiled", executable: "/usr/local/bin/bugbout", entry: "/usr/local/bin/bugbout" },
  ],
  [
    "a bundle is the one file every module was put into",
    { standalone: false, execPath: DENO, moduleUrl: "file:///opt/bugbout/dist/bugbout.js" },
    { kind: "bundle", executable: DENO, entry: "/opt/bugbout/dist/bugbout.js" },
  ],
  [
    "the source is bugbout's main.ts beside lib/",
    { standalone: false, execPath: DENO, moduleUrl: "file:///src/bug%20bout/lib/self.ts" },
    { kind: "source", executable: DENO, entry: "/src/bug bout/main.ts" },
  ],
  [
    "the JSR package is the source too, by URL",
    {
      standalone: false,
      execPath: DENO,
      moduleUrl: "https://jsr.io/@bugbout/cli/0.2.0/lib/self.ts",
    },
    { kind: "source", executable: DENO, entry: "https://jsr.io/@bugbout/cli/0.2.0/main.ts" },
  ],
];

for (const [name, facts, expected] of CASES) {
  Deno.test(`detectStart(): ${name}`, () => {
    deepEqual(detectStart(facts), expected);
  });
}

Deno.test("detectStart() finds this test process running bugbout from source", () => {
  deepEqual(detectStart(), {
    kind: "source",
    executable: Deno.execPath(),
    entry: join(ROOT, "main.ts"),
  });
});

Deno.test("a compiled bugbout re-runs itself with the internal command; Deno runs the script", () => {
  const [compiled, bundle, source] = CASES.map(([, facts]) => detectStart(facts));
  const script = "/run/bugbout/bridge.js";
  deepEqual(helperCommand(compiled, INTERNAL_COMMANDS.bridge, script), [
    "/usr/local/bin/bugbout",
    "__bridge",
  ]);
  for (const start of [bundle, source]) {
    deepEqual(helperCommand(start, INTERNAL_COMMANDS.bridge, script), [
      DENO,
      ...SCRIPT_FLAGS,
      script,
    ]);
  }
});

Deno.test("describeStart() names how bugbout was started and from where", () => {
  const lines = CASES.map(([, facts]) => describeStart(detectStart(facts)));
  equal(lines[0], "started as a compiled executable: /usr/local/bin/bugbout");
  equal(lines[1], "started from a bundle: /opt/bugbout/dist/bugbout.js");
  equal(lines[2], "started from source: /src/bug bout/main.ts");
});
