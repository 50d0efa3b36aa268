import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { UsageError } from "../../lib/errors.ts";
import { REPORT_FORMATS } from "../../lib/report/mod.ts";
import { parseInvocation } from "../../lib/cli/args.ts";
import { COMMANDS, type FlagsOf } from "../../lib/cli/commands.ts";

/** `true` only when A and B are the same type (not merely assignable either way). */
type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

// Checked by `deno check`: each line fails to compile if a command's flag types drift.
const runFlagsAreTyped: Exact<FlagsOf<"run">, {
  task: string[];
  "tasks-only": boolean;
  "no-race": boolean;
  "retry-failed": boolean;
  shard?: string;
  quiet: boolean;
  config?: string;
  "no-color": boolean;
  help: boolean;
}> = true;
const reportFlagsAreTyped: Exact<FlagsOf<"report">, {
  format?: "terminal" | "markdown" | "json" | "html";
  output?: string;
  open: boolean;
  config?: string;
  "no-color": boolean;
  help: boolean;
}> = true;
const doctorHasOnlyTheGlobalFlags: Exact<FlagsOf<"doctor">, {
  config?: string;
  "no-color": boolean;
  help: boolean;
}> = true;

Deno.test("FlagsOf gives each command its own flags, derived from the command table", () => {
  ok(runFlagsAreTyped && reportFlagsAreTyped && doctorHasOnlyTheGlobalFlags);
});

Deno.test("parseInvocation gives absent booleans as false and an absent repeatable flag as []", () => {
  deepEqual(parseInvocation(["run"]), {
    kind: "command",
    command: "run",
    flags: {
      task: [],
      "tasks-only": false,
      "no-race": false,
      "retry-failed": false,
      quiet: false,
      "no-color": false,
      help: false,
    },
    positionals: [],
  });
});

Deno.test("parseInvocation collects a repeated flag in order and narrows to the command's flags", () => {
  const invocation = parseInvocation(["run", "--task", "issue-1", "--no-race", "--task=issue-2"]);
  if (invocation.kind !== "command" || invocation.command !== "run") {
    throw new Error(`expected a run invocation, got ${JSON.stringify(invocation)}`);
  }
  // Narrowing on `command` gives run's flags: this assignment is checked by the compiler.
  const flags: FlagsOf<"run"> = invocation.flags;
  deepEqual(flags.task, ["issue-1", "issue-2"]);
  equal(flags["no-race"], true);
  equal(flags["tasks-only"], false);
  equal(flags.config, undefined);
});

Deno.test("parseInvocation reads short flags, string values and positionals", () => {
  deepEqual(parseInvocation(["report", "-f", "json", "-o", "out.json", "-c", "b.toml"]), {
    kind: "command",
    command: "report",
    flags: {
      format: "json",
      output: "out.json",
      open: false,
      config: "b.toml",
      "no-color": false,
      help: false,
    },
    positionals: [],
  });
  deepEqual(
    parseInvocation(["evidence", "--tests", "t/*.py", "--tests", "*_spec.py", "--json", "repo"]),
    {
      kind: "command",
      command: "evidence",
      flags: {
        tests: ["t/*.py", "*_spec.py"],
        json: true,
        "no-color": false,
        help: false,
      },
      positionals: ["repo"],
    },
  );
});

Deno.test("parseInvocation reads the global flags before the command as after it", () => {
  const after = parseInvocation(["doctor", "--config", "b.toml", "--no-color"]);
  for (
    const argv of [
      ["-c", "b.toml", "doctor", "--no-color"],
      ["--config=b.toml", "--no-color", "doctor"],
      ["--no-color", "-cb.toml", "doctor"],
    ]
  ) {
    deepEqual(parseInvocation(argv), after, argv.join(" "));
  }
  // A flag before the command that only the command knows stays an error; so does -c alone.
  throws(() => parseInvocation(["--force", "init"]), /unknown option --force/);
  throws(() => parseInvocation(["-c"]), (error) => {
    ok(error instanceof UsageError);
    equal(error.message, "-c needs a value");
    return true;
  });
});

Deno.test("parseInvocation rejects a --format outside its choices as a usage error with a hint", () => {
  throws(() => parseInvocation(["report", "--format", "pdf"]), (error) => {
    ok(error instanceof UsageError);
    equal(error.message, 'unknown report format "pdf"');
    equal(error.hint, "--format is one of: terminal, markdown, json, html.");
    return true;
  });
  throws(() => parseInvocation(["report", "--format="]), UsageError);
});

Deno.test("parseInvocation lets --help win over a bad flag value", () => {
  deepEqual(parseInvocation(["report", "--format", "pdf", "--help"]), {
    kind: "help",
    command: "report",
  });
});

Deno.test("the report command's --format choices are the formats the report renders to", () => {
  deepEqual(COMMANDS.report.flags.format.choices, REPORT_FORMATS);
});
