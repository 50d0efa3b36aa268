import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { guessVendor, parseBudget, parseConfig } from "../lib/config.ts";
import { ConfigError } from "../lib/errors.ts";

async function withRepo(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "bugbout-config-" });
  try {
    await Deno.mkdir(join(dir, "src", "pkg"), { recursive: true });
    await Deno.writeTextFile(join(dir, "src", "pkg", "__init__.py"), "");
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const minimal = `[project]\nsource = "src/pkg"\n`;

Deno.test("parseConfig fills every default of the reference", async () => {
  await withRepo(async (dir) => {
    const config = await parseConfig(minimal, join(dir, "bugbout.toml"));
    equal(config.project.language, "python");
    equal(config.project.tests, "tests");
    equal(config.project.repository, dir);
    equal(config.project.githubApi, "https://api.github.com");
    equal(config.project.python, undefined);
    deepEqual(config.project.testDependencies, ["pytest"]);
    deepEqual(config.project.pytestArgs, []);
    equal(config.project.installProject, true);
    equal(config.tasks.limit, 20);
    equal(config.tasks.maxSourceFiles, 2);
    equal(config.tasks.reruns, 2);
    equal(config.run.sandbox, "auto");
    equal(config.run.timeout, 1800);
    deepEqual(config.run.quotas, {});
    ok(config.run.jobs >= 1);
    equal(config.judge.policy, "majority");
    equal(config.judge.runSuite, true);
    equal(config.judge.selectSuite, true);
    deepEqual(config.contestants, []);
  });
});

Deno.test("parseConfig names contestants, guesses vendors and defaults quotas", async () => {
  await withRepo(async (dir) => {
    const config = await parseConfig(
      minimal + `
[[contestants]]
agent = "codex"
model = "gpt-5.1-codex"
reasoning-effort = "high"

[[contestants]]
agent = "claude-code"

[[contestants]]
agent = "mini-swe-agent"
model = "ollama/qwen3-coder:30b"
quota = "local"

[[contestants]]
agent = "command"
name = "script-a"
command = ["true"]

[[contestants]]
agent = "command"
name = "script-b"
command = ["true"]

[[contestants]]
agent = "command"
name = "script-c"
command = ["true"]
quota = "script-a"

[[examiners]]
agent = "gemini-cli"
assignment = "specify"
`,
      join(dir, "bugbout.toml"),
    );
    deepEqual(config.contestants.map((c) => [c.name, c.vendor, c.quota]), [
      ["codex/gpt-5.1-codex", "openai", "codex"],
      ["claude-code", "anthropic", "claude-code"],
      ["mini-swe-agent/ollama/qwen3-coder:30b", "alibaba", "local"],
      // Commands share no account: each has a lane of its own unless told otherwise.
      ["script-a", "unknown", "script-a"],
      ["script-b", "unknown", "script-b"],
      ["script-c", "unknown", "script-a"],
    ]);
    deepEqual(config.contestants[0].options, { "reasoning-effort": "high" });
    equal(config.examiners[0].assignment, "specify");
    equal(config.examiners[0].vendor, "google");
  });
});

Deno.test("guessVendor reads model names", () => {
  const table: [string | undefined, string][] = [
    ["gpt-5.1", "openai"],
    ["o4-mini", "openai"],
    ["gpt-5.1-codex-max", "openai"],
    ["sonnet", "anthropic"],
    ["claude-opus-4-1", "anthropic"],
    ["gemini-2.5-pro", "google"],
    ["qwen3-coder-plus", "alibaba"],
    ["openai/gpt-4o", "openai"],
    ["ollama/llama3.1", "meta"],
    ["deepseek-chat", "deepseek"],
    ["mystery-model", "unknown"],
    [undefined, "unknown"],
  ];
  for (const [model, vendor] of table) equal(guessVendor(model), vendor, String(model));
});

/** One kind of bad input per row: the file text and a pattern its message must match. */
const BAD: [string, string, RegExp][] = [
  ["TOML syntax error", `[project]\nsource = src/pkg\n`, /bugbout\.toml:2:\d+: invalid TOML/],
  ["missing source", `[project]\ntests = "tests"\n`, /\[project\] source is missing\.$/],
  [
    "missing source beside a misspelt one",
    `[project]\nsourse = "src/pkg"\n`,
    /^\S+: \[project\] source is missing; "sourse" is not a key: did you mean "source"\?$/,
  ],
  [
    "missing [project] beside a misspelt table",
    `[projcet]\nsource = "src/pkg"\n`,
    /\[project\] source is missing; "projcet" is not a table: did you mean "project"\?$/,
  ],
  [
    "source that does not exist",
    `[project]\nsource = "src/nope"\n`,
    /expected the package directory .*src\/nope to exist/,
  ],
  [
    "unknown key with suggestion",
    minimal + `[run]\ntimout = 10\n`,
    /unknown key "timout" in \[run\]; did you mean "timeout"\?/,
  ],
  [
    "unknown table",
    minimal + `[jduge]\npolicy = "strict"\n`,
    /unknown key "jduge" in the top level; did you mean "judge"\?/,
  ],
  [
    "wrong type",
    minimal + `[run]\ntimeout = "30m"\n`,
    /\[run\] timeout: expected a number, found the string "30m"/,
  ],
  [
    "wrong enum",
    minimal + `[judge]\npolicy = "vibes"\n`,
    /\[judge\] policy: expected one of "majority", "unanimous", "strict", "cross-vendor", found the string "vibes"/,
  ],
  [
    "unknown agent type",
    minimal + `[[contestants]]\nagent = "codx"\n`,
    /unknown agent type "codx"; did you mean "codex"\?/,
  ],
  [
    "duplicate names",
    minimal + `[[contestants]]\nagent = "codex"\n[[contestants]]\nagent = "codex"\n`,
    /two agents are named "codex"/,
  ],
  [
    "unknown adapter option",
    minimal + `[[contestants]]\nagent = "codex"\nreasoning_effort = "high"\n`,
    /\(codex\): unknown key "reasoning_effort"; did you mean "reasoning-effort"\?/,
  ],
  [
    "mini without model",
    minimal + `[[contestants]]\nagent = "mini-swe-agent"\n`,
    /needs a "model"/,
  ],
  [
    "command without name",
    minimal + `[[contestants]]\nagent = "command"\ncommand = ["x"]\n`,
    /needs a "name"/,
  ],
  [
    "command without command",
    minimal + `[[contestants]]\nagent = "command"\nname = "x"\n`,
    /is missing the required key "command"/,
  ],
  [
    "command beside a misspelt command, in one message",
    minimal + `[[contestants]]\nagent = "command"\nname = "x"\ncomand = ["x"]\n`,
    /^\S+: \[\[contestants\]\] entry 1 is missing the required key "command"; "comand" is not a key: did you mean "command"\?$/,
  ],
  [
    "agent beside a misspelt agent",
    minimal + `[[contestants]]\nagnet = "codex"\n`,
    /\[\[contestants\]\] entry 1 has no "agent" key; "agnet" is not a key: did you mean "agent"\?$/,
  ],
  [
    "bad examiner assignment",
    minimal + `[[examiners]]\nagent = "codex"\nassignment = "fix"\n`,
    /assignment: expected one of "reproduce", "specify"/,
  ],
  ["tests at the root", minimal + `tests = "."\n`, /\[project\] tests: must name a directory/],
  ["reruns below two", minimal + `[tasks]\nreruns = 1\n`, /reruns: must be at least 2/],
  ["bad date", minimal + `[tasks]\nsince = "yesterday"\n`, /since: must be a date/],
  [
    "unknown language",
    `[project]\nlanguage = "ruby"\nsource = "src/pkg"\n`,
    /language: .*"python".*"go".*"node"/,
  ],
  ["python without source", `[project]\nlanguage = "python"\n`, /\[project\] source is missing/],
];

for (const [name, text, pattern] of BAD) {
  Deno.test(`parseConfig explains a bad file: ${name}`, async () => {
    await withRepo(async (dir) => {
      try {
        await parseConfig(text, join(dir, "bugbout.toml"));
        throw new Error("expected a ConfigError");
      } catch (e) {
        ok(e instanceof ConfigError, `${name}: ${e}`);
        match((e as Error).message, pattern);
      }
    });
  });
}

Deno.test("parseConfig reads the agents' limits, with defaults, and explains a bad one", async () => {
  await withRepo(async (dir) => {
    const file = join(dir, "bugbout.toml");
    const defaults = await parseConfig(minimal, file);
    equal(defaults.run.agentProcesses, 1024);
    equal(defaults.run.agentMemory, 8192);
    equal(defaults.run.agentDisk, 10240);
    const set = await parseConfig(
      minimal + `[run]\nagent-processes = 64\nagent-memory = 512\nagent-disk = 100\n`,
      file,
    );
    deepEqual(
      [set.run.agentProcesses, set.run.agentMemory, set.run.agentDisk],
      [64, 512, 100],
    );
    for (
      const [text, pattern] of [
        [`agent-memory = 100`, /\[run\] agent-memory: must be at least 256 \(MiB\) \(found/],
        [`agent-processes = 4`, /\[run\] agent-processes: must be at least 16/],
        [`agent-disk = "1G"`, /\[run\] agent-disk: expected a number, found the string "1G"/],
      ] as const
    ) {
      await rejects(parseConfig(minimal + `[run]\n${text}\n`, file), (error: unknown) => {
        ok(error instanceof ConfigError);
        match(error.message, pattern);
        return true;
      });
    }
  });
});

Deno.test("[run] repeats and [run.budget] parse, and say what is wrong with them", async () => {
  await withRepo(async (dir) => {
    const agent = '\n[[contestants]]\nagent = "command"\nname = "cmd"\ncommand = ["true"]\n';
    const config = await parseConfig(
      minimal + '\n[run]\nrepeats = 3\n\n[run.budget]\ncmd = "$2.50"\n' + agent,
      join(dir, "bugbout.toml"),
    );
    deepEqual([config.run.repeats, config.run.budget], [3, { cmd: { usd: 2.5 } }]);
    deepEqual(
      ["5 USD", "$5", "2M tokens", "1500 tokens", "20k tokens"].map(parseBudget),
      [{ usd: 5 }, { usd: 5 }, { tokens: 2_000_000 }, { tokens: 1500 }, { tokens: 20_000 }],
    );
    await rejects(
      parseConfig(minimal + '\n[run.budget]\ncmd = "lots"\n' + agent, join(dir, "bugbout.toml")),
      /must read like "5 USD"/,
    );
    await rejects(
      parseConfig(minimal + '\n[run.budget]\ncdm = "5 USD"\n' + agent, join(dir, "bugbout.toml")),
      (e: Error & { hint?: string }) =>
        /names "cdm", which is no agent/.test(e.message) && /"cmd"/.test(e.hint ?? ""),
    );
    await rejects(
      parseConfig(minimal + agent.replace('"cmd"', '"cmd#2"'), join(dir, "bugbout.toml")),
      /ends like a repeat's/,
    );
  });
});

Deno.test("[[contestants]] cutoff takes a month or a day, and says what is wrong with another", async () => {
  await withRepo(async (dir) => {
    const file = join(dir, "bugbout.toml");
    const agent = (cutoff: string) =>
      minimal + `\n[[contestants]]\nagent = "codex"\n${cutoff ? `cutoff = ${cutoff}\n` : ""}`;
    for (const [value, want] of [[`"2025-06"`, "2025-06"], [`"2024-02-29"`, "2024-02-29"]]) {
      equal((await parseConfig(agent(value), file)).contestants[0].cutoff, want);
    }
    // An unquoted TOML date is its day.
    equal((await parseConfig(agent("2025-06-30"), file)).contestants[0].cutoff, "2025-06-30");
    equal((await parseConfig(agent(""), file)).contestants[0].cutoff, undefined);
    for (const bad of [`"2025-13"`, `"2025-02-30"`, `"June 2025"`, `5`]) {
      await rejects(
        parseConfig(agent(bad), file),
        /\[\[contestants\]\] entry 1 cutoff: must be a month or a day such as "2025-06" or "2025-06-30" \(found/,
      );
    }
  });
});

Deno.test("a Go or JavaScript project names its language and needs no source directory", async () => {
  await withRepo(async (dir) => {
    for (const language of ["go", "node"] as const) {
      const config = await parseConfig(
        `[project]\nlanguage = "${language}"\n`,
        join(dir, "bugbout.toml"),
      );
      equal(config.project.language, language);
      equal(config.project.source, ".");
    }
  });
});

Deno.test("parseConfig reads [run] agent-files, 200,000 by default, and explains a bad one", async () => {
  await withRepo(async (dir) => {
    const file = join(dir, "bugbout.toml");
    equal((await parseConfig(minimal, file)).run.agentFiles, 200_000);
    equal((await parseConfig(minimal + `[run]\nagent-files = 50\n`, file)).run.agentFiles, 50);
    for (
      const [text, pattern] of [
        [`agent-files = 3`, /\[run\] agent-files: must be at least 10/],
        [`agent-files = "many"`, /\[run\] agent-files: expected a number, found the string "many"/],
        [`agent-file = 50`, /unknown key "agent-file" in \[run\]; did you mean "agent-files"\?/],
      ] as const
    ) {
      await rejects(parseConfig(minimal + `[run]\n${text}\n`, file), (error: unknown) => {
        ok(error instanceof ConfigError);
        match(error.message, pattern);
        return true;
      });
    }
  });
});
