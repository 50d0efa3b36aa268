/**
 * `bugbout init`: write a commented `bugbout.toml` from what the repository looks like.
 *
 * @module
 */

import { join } from "node:path";
import { BugboutError } from "./errors.ts";
import { checkRepository, RepositoryError } from "./git.ts";
import { which } from "./proc.ts";
import { type Detected, detectProject, type Language, languageOf } from "./lang/mod.ts";

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
  /** What was found, as labelled lines for the terminal (`package`, `src/pkg`). */
  summary: [string, string][];
  /** The language written to `[project] language`. */
  language: Language;
  /** What the language said of the tree: its runner, and what told it. */
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
  const found = await detectProject(dir);
  const language = languageOf(found.language);
  // The language's own `[project]` lines, or why the tree is no project bugbout can replay.
  const project = await language.initConfig(found);
  const agents = await agentsOnPath(options.path);
  const text = [
    "# bugbout.toml — written by `bugbout init`. Every key is explained in docs/configuration.md.",
    "",
    "[project]",
    ...project.lines,
    "",
    ...restOfConfig(agents),
  ].join("\n");
  await Deno.writeTextFile(file, text);
  const notes = [...project.notes];
  for (const other of found.others) {
    notes.push(
      `Also found ${languageOf(other.language).kind} tested with ${other.runner}; set ` +
        `[project] language = ${JSON.stringify(other.language)} to replay its fixes instead.`,
    );
  }
  if (agents.length === 0) {
    notes.push("No agent CLI found on PATH; the contestants are commented out.");
  }
  const warnings = await repositoryWarnings(dir);
  return {
    file,
    text,
    summary: project.summary,
    language: language.name,
    ...(found.detected ? { detected: found.detected } : {}),
    agents,
    notes,
    warnings,
  };
}

/** The agent CLIs of {@linkcode KNOWN_CLIS} on `path` (default: PATH). */
async function agentsOnPath(path?: string): Promise<string[]> {
  const agents: string[] = [];
  for (const cli of KNOWN_CLIS) {
    if (await which(cli.executable, path)) agents.push(cli.executable);
  }
  return agents;
}
