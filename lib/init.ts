/**
 * `bugbout init`: write a commented `bugbout.toml` from what the repository looks like.
 *
 * @module
 */

import { join } from "node:path";
import { BugboutError } from "./errors.ts";
import { checkRepository, RepositoryError } from "./git.ts";
import { detectLayout, type Layout } from "./layout.ts";
import { which } from "./proc.ts";
import { type Detected, detectOtherLanguages, type Language } from "./lang/mod.ts";

/** Agent CLIs `init` looks for, and the `[[contestants]]` entry each one gets. */
export const KNOWN_CLIS: { executable: string; agent: string; note?: string }[] = [
  { executable: "codex", agent: "codex" },
  { executable: "claude", agent: "claude-code" },
  { executable: "gemini", agent: "gemini-cli" },
  { executable: "mini", agent: "mini-swe-agent", note: "needs a model" },
  { executable: "opencode", agent: "opencode" },
  { executable: "qwen", agent: "qwen-code" },
  { executable: "copilot", agent: "copilot" },
];

/** The outcome of `init`: the text written and what was noticed. */
export interface InitResult {
  /** The file written. */
  file: string;
  /** The file's text. */
  text: string;
  /** What `init` found of a Python project (no `source` for a Go or JavaScript one). */
  layout: Layout;
  /** The language written to `[project] language`. */
  language: Language;
  /** For a Go or JavaScript project: its runner, and what told it. */
  detected?: Detected;
  /** Agent CLIs found on PATH. */
  agents: string[];
  /** Sentences for the person running init. */
  notes: string[];
  /**
   * What stands between this file and `bugbout tasks`: the directory is not a git repository, has
   * no commits or is a shallow clone. The file is written all the same (`[project] repository`
   * may point elsewhere); each warning says what to do.
   */
  warnings: { message: string; hint: string }[];
}

/** Why `bugbout tasks` could not mine `dir` as it is, in words for `init`; none when it could. */
async function repositoryWarnings(dir: string): Promise<InitResult["warnings"]> {
  try {
    await checkRepository(dir);
    return [];
  } catch (error) {
    if (!(error instanceof RepositoryError)) throw error;
    if (error.state !== "not-a-repository") {
      return [{ message: error.message, hint: error.hint ?? "" }];
    }
    return [{
      message: `${dir} is not a git repository, and \`bugbout tasks\` and \`bugbout run\` need ` +
        "one: they mine the fixes in its history.",
      hint: "Run `bugbout init` in your project's clone instead, or set [project] repository in " +
        "bugbout.toml to the path of a clone or a git URL.",
    }];
  }
}

/** Render the `bugbout.toml` text for a layout and the agents found. */
export function renderConfig(layout: Layout, agents: string[]): string {
  const q = (s: string) => JSON.stringify(s);
  const lines = [
    "# bugbout.toml — written by `bugbout init`. Every key is explained in docs/configuration.md.",
    "",
    "[project]",
    "# The package directory, relative to the repository root.",
    `source = ${q(layout.source!)}`,
  ];
  if (layout.sourceReason) {
    lines.push(
      `# Chosen because ${layout.sourceReason}; other candidates: ${
        layout.otherSources.join(", ")
      }.`,
    );
  }
  lines.push(
    "# The tests directory.",
    layout.tests
      ? `tests = ${q(layout.tests)}`
      : `# tests = "tests"   (no tests directory was found)`,
    "# The repository to mine: this directory, or a git URL to clone.",
    `# repository = "."`,
    `# github = "owner/name"       # where issues live, when origin is not on GitHub`,
    layout.requiresPython
      ? `# python = "3.x"              # default: a Python on this machine that satisfies ${
        q(layout.requiresPython.spec)
      } (${layout.requiresPython.from})`
      : `# python = "3.x"              # default: the Python uv finds on this machine`,
    ...(layout.testDependencies
      ? [
        `# What the tests need besides the project (from ${layout.testDependencies.from});`,
        "# `bugbout doctor` checks that they install.",
        `test-dependencies = [${layout.testDependencies.requirements.map(q).join(", ")}]`,
      ]
      : [`# test-dependencies = ["pytest"]`]),
    `# pytest-args = []`,
    `# env = { DATABASE_URL = "sqlite://" }`,
    "",
  );
  return [...lines, ...restOfConfig(agents)].join("\n");
}

/**
 * The `bugbout.toml` text for a Go module or a JavaScript project: its language (the runner is
 * found again from the tree each time), and the same settings as Python's but Python's own.
 */
export function renderRunnerConfig(detected: Detected, agents: string[]): string {
  const lines = [
    "# bugbout.toml — written by `bugbout init`. Every key is explained in docs/configuration.md.",
    "",
    "[project]",
    `# ${languageName(detected.language)} tested with ${detected.runner} (${detected.evidence}).`,
    "# Test files, ids and what may not be patched: docs/languages.md.",
    `language = ${JSON.stringify(detected.language)}`,
    "# The repository to mine: this directory, or a git URL to clone.",
    `# repository = "."`,
    `# github = "owner/name"       # where issues live, when origin is not on GitHub`,
    `# env = { CI = "1" }`,
    "",
  ];
  return [...lines, ...restOfConfig(agents)].join("\n");
}

/** What follows `[project]` in every language: tasks, run, judge, contestants, examiners. */
function restOfConfig(agents: string[]): string[] {
  const q = (s: string) => JSON.stringify(s);
  const lines = [
    "[tasks]",
    `# since = "2023-01-01"`,
    `# limit = 20`,
    `# max-source-files = 2`,
    "",
    "[run]",
    `# sandbox = "auto"             # bubblewrap on Linux, seatbelt on macOS; "none" runs unconfined`,
    `# timeout = 1800               # seconds per agent per task`,
    `# quotas = { codex = 1 }`,
    "",
    "[judge]",
    `# policy = "majority"          # majority, unanimous, strict or cross-vendor`,
    `# run-suite = true`,
    "",
  ];
  const found = KNOWN_CLIS.filter((c) => agents.includes(c.executable));
  if (found.length === 0) {
    lines.push(
      "# No agent CLI was found on PATH. Install one (codex, claude, gemini, mini, ...) and",
      '# uncomment an entry, or race any command-line agent with agent = "command".',
      "# [[contestants]]",
      `# agent = "codex"`,
      "",
      "# [[contestants]]",
      `# agent = "command"`,
      `# name = "my-agent"`,
      `# command = ["my-agent", "--prompt-file", "{prompt_file}"]`,
      "",
    );
  } else {
    for (const cli of found) {
      lines.push("[[contestants]]", `agent = ${q(cli.agent)}`);
      if (cli.note) lines.push(`model = "openai/gpt-5.1"   # ${cli.note}: a LiteLLM model name`);
      else lines.push(`# model = "..."               # default: the agent's own default`);
      lines.push("");
    }
  }
  lines.push(
    "# Examiners write tests only, from the issue, to cross-examine every patch.",
    "# [[examiners]]",
    `# agent = "claude-code"`,
    `# assignment = "reproduce"`,
    "",
  );
  return lines;
}

/** Look at `dir`, write `bugbout.toml` there (refusing to overwrite unless `force`). */
export async function initProject(
  dir: string,
  options: { force?: boolean; path?: string } = {},
): Promise<InitResult> {
  const file = join(dir, "bugbout.toml");
  if (!options.force) {
    try {
      await Deno.lstat(file);
      throw new BugboutError(`${file} already exists; it was left as it is.`, {
        hint: "Run `bugbout init --force` to overwrite it.",
      });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const layout = await detectLayout(dir);
  // A Python package decides; without one, a go.mod or a package.json with a test runner does
  // (a Go or JavaScript project often carries a few Python scripts).
  if (!layout.isPython || !layout.source) {
    const others = await detectOtherLanguages(dir);
    if (others.length) return await initOther(dir, file, layout, others, options);
  }
  if (!layout.isPython || !layout.source) {
    throw new BugboutError(
      layout.isPython
        ? `Found Python files in ${dir} but no package directory (a directory with __init__.py).`
        : `${dir} does not look like a Python project: no .py files were found.`,
      {
        hint: layout.isPython
          ? `Write bugbout.toml by hand with [project] source = "path/to/package".`
          : "bugbout replays fixes of Python projects tested with pytest, Go modules and " +
            "JavaScript/TypeScript projects tested with vitest, jest or node --test; run init " +
            "in one.",
      },
    );
  }
  const agents = await agentsOnPath(options.path);
  const text = renderConfig(layout, agents);
  await Deno.writeTextFile(file, text);
  const notes: string[] = [];
  if (layout.sourceReason) notes.push(`Package: ${layout.source} (${layout.sourceReason}).`);
  if (layout.testDependencies) {
    notes.push(
      `Test dependencies: ${layout.testDependencies.requirements.length} from ` +
        `${layout.testDependencies.from}.`,
    );
  }
  if (!layout.tests) notes.push("No tests directory found; set [project] tests.");
  if (agents.length === 0) {
    notes.push("No agent CLI found on PATH; the contestants are commented out.");
  }
  const warnings = await repositoryWarnings(dir);
  return { file, text, layout, language: "python", agents, notes, warnings };
}

/** The agent CLIs of {@linkcode KNOWN_CLIS} on `path` (default: PATH). */
async function agentsOnPath(path?: string): Promise<string[]> {
  const agents: string[] = [];
  for (const cli of KNOWN_CLIS) {
    if (await which(cli.executable, path)) agents.push(cli.executable);
  }
  return agents;
}

/** `init` in a Go module or a JavaScript project: the first language found is written. */
async function initOther(
  dir: string,
  file: string,
  layout: Layout,
  found: Detected[],
  options: { path?: string },
): Promise<InitResult> {
  const detected = found[0];
  const agents = await agentsOnPath(options.path);
  const text = renderRunnerConfig(detected, agents);
  await Deno.writeTextFile(file, text);
  const notes: string[] = [];
  for (const other of found.slice(1)) {
    notes.push(
      `Also found ${languageName(other.language)} tested with ${other.runner}; set [project] ` +
        `language = ${JSON.stringify(other.language)} to replay its fixes instead.`,
    );
  }
  if (agents.length === 0) {
    notes.push("No agent CLI found on PATH; the contestants are commented out.");
  }
  const warnings = await repositoryWarnings(dir);
  return { file, text, layout, language: detected.language, detected, agents, notes, warnings };
}

function languageName(language: Language): string {
  return language === "go"
    ? "a Go module"
    : language === "node"
    ? "a JavaScript project"
    : "Python";
}
