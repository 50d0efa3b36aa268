/**
 * `bugbout.toml`: the schema, its defaults, and errors a person can act on.
 *
 * Requires `--allow-read` (the config file, the repository) and `--allow-env`.
 *
 * @module
 */

import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseToml, TomlError, z } from "./deps.ts";
import type { AdapterDefinition, AgentSpec, CodingAgent } from "../adapters/agent.ts";
import { builtinAdapters } from "../adapters/mod.ts";
import { ConfigError } from "./errors.ts";
import { explain, knownKeys, misspeltAs, misspeltKey } from "./config_explain.ts";
import { closest } from "./suggest.ts";
import { isMissing, statIfExists } from "./fs.ts";
import { commandSettingsOf, commandTableSchema, useCommandSettings } from "./config_command.ts";
import { DEFAULT_LANGUAGE, type Language, languageName, languageNamesKnown } from "./records.ts";

/** The judge's policies. */
export const POLICIES = ["majority", "unanimous", "strict", "cross-vendor"] as const;
/** A judge policy. */
export type Policy = typeof POLICIES[number];
/** Sandbox settings. */
export const SANDBOXES = ["auto", "bubblewrap", "seatbelt", "none"] as const;
/** Examiner assignments. */
export const ASSIGNMENTS = ["reproduce", "specify"] as const;

const stringMap = z.record(z.string(), z.string());

const projectSchema = z.strictObject({
  language: z.string().default(DEFAULT_LANGUAGE).refine(
    (name) => languageName(name) !== undefined,
    {
      // A function: languages registered after this module loaded are named too.
      error: () =>
        `expected one of ${languageNamesKnown().map((n) => JSON.stringify(n)).join(", ")}`,
    },
  ),
  source: z.string().min(1, "must not be empty").optional(),
  tests: z.string().min(1).refine((t) => !/^\.\/?$/.test(t), {
    message: "must name a directory: tests at the repository's root are not supported yet " +
      "(move them into a directory such as tests/)",
  }).default("tests"),
  repository: z.string().min(1).default("."),
  github: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "must look like owner/name").optional(),
  "github-api": z.url({ message: "must be a URL such as https://api.github.com" }).default(
    "https://api.github.com",
  ),
  python: z.string().regex(/^\d+(\.\d+){0,2}$/, "must be a version such as 3.11").optional(),
  "test-dependencies": z.array(z.string()).default(["pytest"]),
  "pytest-args": z.array(z.string()).default([]),
  env: stringMap.default({}),
  "install-project": z.boolean().default(true),
  interpreter: z.string().min(1).optional(),
});

const dateLike = z.union([z.date(), z.string()]).transform((value, ctx) => {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: "custom", message: `must be a date such as "2023-01-01"` });
    return z.NEVER;
  }
  return date;
});

const tasksSchema = z.strictObject({
  branches: z.array(z.string().min(1)).min(1).optional(),
  since: dateLike.optional(),
  until: dateLike.optional(),
  limit: z.int().positive().default(20),
  "max-source-files": z.int().positive().default(2),
  reruns: z.int().min(2, "must be at least 2: unstable tests are found by repeating runs")
    .default(2),
});

/** What an agent may spend in all (`[run.budget]`): dollars, tokens, or both. */
export interface Budget {
  /** Dollars, counted from the costs the attempts report. */
  usd?: number;
  /** Tokens, counted from the usage the attempts report. */
  tokens?: number;
}

const BUDGET_PATTERN =
  /^\s*(?:\$\s*(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:usd|\$)|(\d+(?:\.\d+)?)\s*([km]?)\s*tokens?)\s*$/i;

/** `"5 USD"`, `"$5"`, `"2000000 tokens"`, `"2M tokens"` → a budget. */
export function parseBudget(text: string): Budget {
  const m = text.match(BUDGET_PATTERN);
  if (!m) throw new ConfigError(`Not a budget: "${text}" (write "5 USD" or "2000000 tokens").`);
  if (m[1] ?? m[2]) return { usd: Number(m[1] ?? m[2]) };
  const scale = { "": 1, k: 1e3, m: 1e6 }[m[4].toLowerCase() as "" | "k" | "m"];
  return { tokens: Number(m[3]) * scale };
}

const runSchema = z.strictObject({
  sandbox: z.enum(SANDBOXES).default("auto"),
  timeout: z.number().positive().default(1800),
  quotas: z.record(z.string(), z.int().positive()).default({}),
  jobs: z.int().positive().optional(),
  "test-timeout": z.number().positive().default(600),
  "test-memory": z.int().positive().default(4096),
  "agent-processes": z.int().min(16, "must be at least 16: an agent's runtime needs threads")
    .default(1024),
  "agent-memory": z.int().min(256, "must be at least 256 (MiB)").default(8192),
  "agent-disk": z.int().min(16, "must be at least 16 (MiB)").default(10240),
  "agent-files": z.int().min(10, "must be at least 10: an agent writes a few files at least")
    .default(200_000),
  repeats: z.int().min(1, "must be at least 1").max(100, "must be at most 100").default(1),
  budget: z.record(
    z.string(),
    z.string().regex(BUDGET_PATTERN, 'must read like "5 USD", "$5" or "2000000 tokens"'),
  ).default({}),
});

const judgeSchema = z.strictObject({
  policy: z.enum(POLICIES).default("majority"),
  "run-suite": z.boolean().default(true),
  "select-suite": z.boolean().default(true),
});

const agentTable = z.record(z.string(), z.unknown());

const fileSchema = z.strictObject({
  project: projectSchema,
  tasks: tasksSchema.default(tasksSchema.parse({})),
  run: runSchema.default(runSchema.parse({})),
  judge: judgeSchema.default(judgeSchema.parse({})),
  command: commandTableSchema.optional(),
  contestants: z.array(agentTable).default([]),
  examiners: z.array(agentTable).default([]),
});

const COMMON_AGENT_KEYS = ["agent", "model", "name", "vendor", "quota", "cutoff"] as const;

/**
 * `cutoff`: a model's training cutoff, a month or a day (a TOML date is taken as its day). The
 * report splits the agent's figures at it.
 */
const cutoffSchema = z.unknown().transform((value, ctx) => {
  const text = value instanceof Date
    ? value.toISOString().slice(0, 10)
    : typeof value === "string"
    ? value
    : "";
  const m = text.match(/^(\d{4})-(\d{2})(?:-(\d{2}))?$/);
  const [year, month, day] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3] ?? 1)];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (!m || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    ctx.addIssue({
      code: "custom",
      message: `must be a month or a day such as "2025-06" or "2025-06-30"`,
    });
    return z.NEVER;
  }
  return text;
});

/**
 * One contestant or examiner: from `bugbout.toml`, with the adapter that makes it, or given in
 * code as a ready agent.
 */
export type AgentEntry =
  & AgentSpec
  & {
    /** `contestant` or `examiner`. */
    role: "contestant" | "examiner";
    /** The model's training cutoff, `YYYY-MM` or `YYYY-MM-DD`: the report splits at it. */
    cutoff?: string;
    /** For examiners: what kind of tests to write. */
    assignment?: typeof ASSIGNMENTS[number];
  }
  & (
    | { /** The adapter that makes the agent. */ adapter: AdapterDefinition; agent?: undefined }
    | { /** The agent itself, given in code. */ agent: CodingAgent; adapter?: undefined }
  );

/** The agent an entry stands for: made by its adapter, or the one given in code. */
export function agentOf(entry: AgentEntry): CodingAgent {
  return entry.agent ?? entry.adapter.create(entry);
}

/** A loaded, validated `bugbout.toml`. Keys are camelCase here. */
export interface Config {
  /** Absolute path of the file. */
  file: string;
  /** The directory holding it; `.bugbout/` lives here. */
  root: string;
  /** `[project]`. */
  project: {
    /**
     * The language and so the test runner: `python` (pytest), `go` (`go test`), `node` (vitest,
     * jest or `node --test`).
     */
    language: Language;
    /** Python: the package directory. Go and JavaScript: `.` unless set. */
    source: string;
    tests: string;
    /**
     * Absolute path of a local repository; for a remote, what to clone: a git URL or the absolute
     * path of a bare repository.
     */
    repository: string;
    /** True when `repository` is cloned into `BUGBOUT_HOME` and mined there (a remote). */
    remote: boolean;
    github?: string;
    githubApi: string;
    python?: string;
    testDependencies: string[];
    pytestArgs: string[];
    env: Record<string, string>;
    installProject: boolean;
    interpreter?: string;
  };
  /** `[tasks]` (`branches`: the first-parent histories to mine, the default branch's first). */
  tasks: {
    branches?: string[];
    since?: Date;
    until?: Date;
    limit: number;
    maxSourceFiles: number;
    reruns: number;
  };
  /** `[run]`. */
  run: {
    sandbox: typeof SANDBOXES[number];
    timeout: number;
    quotas: Record<string, number>;
    jobs: number;
    testTimeout: number;
    testMemory: number;
    /** Processes and threads an agent may have at once. */
    agentProcesses: number;
    /** MiB of memory an agent may use (each process's data, and all of them together). */
    agentMemory: number;
    /** MiB an agent may add to its working copy and state directories. */
    agentDisk: number;
    /** Files (and directories and links) an agent may add to its working copy and state directories. */
    agentFiles: number;
    /** Attempts per agent and task. */
    repeats: number;
    /** What each agent may spend in all, by agent name: dollars or tokens. */
    budget: Record<string, Budget>;
  };
  /** `[judge]`. */
  judge: { policy: Policy; runSuite: boolean; selectSuite: boolean };
  /** `[[contestants]]`. */
  contestants: AgentEntry[];
  /** `[[examiners]]`. */
  examiners: AgentEntry[];
}

/** True when `repository` names something to clone rather than a local path. */
export function isRemoteRepository(repository: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(repository) || /^[\w.-]+@[\w.-]+:/.test(repository);
}

/**
 * True when `dir` is a bare git repository (`HEAD`, `objects/` and `refs/` with no work tree): it
 * has no files to read, so bugbout uses it as a remote.
 */
async function isBareRepository(dir: string): Promise<boolean> {
  const [head, objects, refs] = await Promise.all(
    ["HEAD", "objects", "refs"].map((name) => statIfExists(join(dir, name))),
  );
  return (head?.isFile ?? false) && (objects?.isDirectory ?? false) &&
    (refs?.isDirectory ?? false);
}

/**
 * `[project] repository` as bugbout uses it: a git URL or the path of a bare repository is a
 * remote, cloned into `BUGBOUT_HOME`; any other path is the local repository, resolved against
 * `root` (the directory of bugbout.toml).
 */
export async function resolveRepository(
  setting: string,
  root: string,
): Promise<{ repository: string; remote: boolean }> {
  if (isRemoteRepository(setting)) return { repository: setting, remote: true };
  const path = resolve(root, setting);
  return { repository: path, remote: await isBareRepository(path) };
}

/** Guess who made a model from its name (LiteLLM prefixes such as `ollama/` are skipped). */
export function guessVendor(model: string | undefined, fallback = "unknown"): string {
  if (!model) return fallback;
  const name = model.toLowerCase().split("/").pop()!;
  const rules: [RegExp, string][] = [
    [/^(gpt|o\d|codex|chatgpt|davinci|text-embedding)|codex/, "openai"],
    [/claude|sonnet|opus|haiku/, "anthropic"],
    [/gemini|gemma/, "google"],
    [/qwen|qwq/, "alibaba"],
    [/llama/, "meta"],
    [/mistral|mixtral|codestral|devstral|magistral/, "mistral"],
    [/deepseek/, "deepseek"],
    [/grok/, "xai"],
    [/kimi|moonshot/, "moonshot"],
    [/glm|chatglm/, "zhipu"],
    [/phi-?\d/, "microsoft"],
    [/command-r|cohere/, "cohere"],
  ];
  for (const [pattern, vendor] of rules) if (pattern.test(name)) return vendor;
  return fallback;
}

/** Read the adapter named by `agent` (a built-in type or a module specifier). */
async function findAdapter(
  type: string,
  root: string,
  adapters: Record<string, AdapterDefinition>,
): Promise<AdapterDefinition | undefined> {
  if (adapters[type]) return adapters[type];
  const isModule = /^(\.{0,2}\/|npm:|file:|https?:)/.test(type) || /\.[mc]?[jt]s$/.test(type);
  if (!isModule) return undefined;
  const specifier = /^\.{0,2}\//.test(type)
    ? new URL(`file://${isAbsolute(type) ? type : resolve(root, type)}`).href
    : type;
  try {
    const module = await import(specifier);
    const definition = (module.default ?? module.adapter) as AdapterDefinition | undefined;
    if (!definition || typeof definition.create !== "function" || !definition.options) {
      throw new Error("it does not export an adapter definition as `default` or `adapter`");
    }
    return definition;
  } catch (error) {
    throw new ConfigError(`Cannot load the agent adapter ${type}: ${(error as Error).message}`);
  }
}

async function agentEntry(
  file: string,
  raw: Record<string, unknown>,
  index: number,
  role: "contestant" | "examiner",
  root: string,
  adapters: Record<string, AdapterDefinition>,
): Promise<AgentEntry> {
  const table = role === "contestant" ? "contestants" : "examiners";
  const where = `[[${table}]] entry ${index + 1}`;
  const type = raw.agent;
  if (typeof type !== "string" || !type) {
    const misspelt = type === undefined ? misspeltAs("agent", raw, [...COMMON_AGENT_KEYS]) : "";
    throw new ConfigError(`${file}: ${where} has no "agent" key${misspelt || "."}`, {
      hint: `Set agent to one of: ${Object.keys(adapters).join(", ")}.`,
    });
  }
  const adapter = await findAdapter(type, root, adapters);
  if (!adapter) {
    const hint = closest(type, Object.keys(adapters));
    throw new ConfigError(
      `${file}: ${where}: unknown agent type "${type}"` +
        (hint ? `; did you mean "${hint}"?` : "."),
      { hint: `Known agent types: ${Object.keys(adapters).join(", ")}.` },
    );
  }
  const common = z.strictObject({
    agent: z.string(),
    model: z.string().min(1).optional(),
    name: z.string().min(1).regex(/^[^\s]+$/, "must not contain spaces").optional(),
    vendor: z.string().min(1).optional(),
    quota: z.string().min(1).optional(),
    cutoff: cutoffSchema.optional(),
    ...(role === "examiner" ? { assignment: z.enum(ASSIGNMENTS).default("reproduce") } : {}),
  });
  const commonKeys: string[] = [
    ...COMMON_AGENT_KEYS,
    ...(role === "examiner" ? ["assignment"] : []),
  ];
  const commonPart: Record<string, unknown> = {};
  const optionPart: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    (commonKeys.includes(key) ? commonPart : optionPart)[key] = value;
  }
  const parsedCommon = common.safeParse(commonPart);
  if (!parsedCommon.success) {
    throw new ConfigError(
      explain(file, raw, common, parsedCommon.error.issues).map((m) =>
        m.replace("the top level", where)
      ).join("\n"),
    );
  }
  const parsedOptions = adapter.options.safeParse(optionPart);
  if (!parsedOptions.success) {
    // Adapters' schemas are zod objects in practice; a third party's may be anything that
    // validates, and then only the generic wording applies.
    const schema = adapter.options as unknown as z.ZodType;
    const issues = parsedOptions.error.issues as z.core.$ZodIssue[];
    const known = [...commonKeys, ...knownKeys(schema, [])];
    // A key misspelt where a required one is missing is named by the missing key's message.
    const named = new Set(
      issues.flatMap((issue) =>
        issue.code === "invalid_type" && issue.path.length === 1 &&
          optionPart[String(issue.path[0])] === undefined
          ? [misspeltKey(String(issue.path[0]), optionPart, knownKeys(schema, []))]
          : []
      ),
    );
    const messages = issues.map((issue) => {
      if (issue.code === "unrecognized_keys") {
        return issue.keys.filter((k) => !named.has(k)).map((k) => {
          const hint = closest(k, known);
          return `${file}: ${where} (${type}): unknown key "${k}"` +
            (hint ? `; did you mean "${hint}"?` : ".") +
            ` Options of ${type}: ${knownKeys(schema, []).join(", ") || "none"}.`;
        }).join("\n");
      }
      return explain(file, optionPart, schema, [issue])[0].replace("the top level", where);
    }).filter((message) => message !== "");
    throw new ConfigError(messages.join("\n"));
  }
  const c = parsedCommon.data as z.infer<typeof common> & { assignment?: "reproduce" | "specify" };
  if (adapter.requiresModel && !c.model) {
    throw new ConfigError(`${file}: ${where} (${type}) needs a "model".`, {
      hint: type === "mini-swe-agent" ? `For example model = "openai/gpt-5.1".` : undefined,
    });
  }
  if (adapter.requiresName && !c.name) {
    throw new ConfigError(`${file}: ${where} (${type}) needs a "name" for the report.`);
  }
  const baseName = type.includes("/") || type.includes(".") ? (adapter.type ?? type) : type;
  const name = c.name ?? (c.model ? `${baseName}/${c.model}` : baseName);
  return {
    type,
    name,
    model: c.model,
    vendor: c.vendor ?? guessVendor(c.model, adapter.defaultVendor ?? "unknown"),
    quota: c.quota ?? (adapter.ownQuota ? name : baseName),
    options: parsedOptions.data as Record<string, unknown>,
    adapter,
    role,
    assignment: role === "examiner" ? c.assignment ?? "reproduce" : undefined,
    ...(c.cutoff ? { cutoff: c.cutoff } : {}),
  };
}

/** Options for {@linkcode parseConfig} and {@linkcode loadConfig}. */
export interface LoadOptions {
  /** Adapters by type; defaults to the built-in ones. */
  adapters?: Record<string, AdapterDefinition>;
  /** Skip checking that the repository and source directory exist. */
  skipPathChecks?: boolean;
}

/** Parse and validate the text of a `bugbout.toml` located at `file`. */
export async function parseConfig(
  text: string,
  file: string,
  options: LoadOptions = {},
): Promise<Config> {
  const adapters = options.adapters ?? builtinAdapters;
  const absolute = resolve(file);
  const root = dirname(absolute);
  const label = file;
  let data: Record<string, unknown>;
  try {
    data = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
      throw new ConfigError(`${label}:${error.line}:${error.column}: invalid TOML: ${first}`, {
        hint: "Fix the syntax at that line and column (strings need quotes; tables are [name]).",
      });
    }
    throw error;
  }
  const language = (data.project as Record<string, unknown> | undefined)?.language;
  const needsSource =
    languageName(typeof language === "string" ? language : DEFAULT_LANGUAGE)?.requires
      .includes("source") ?? false;
  if (
    !data.project || typeof data.project !== "object" ||
    (needsSource && !("source" in data.project))
  ) {
    const misspelt = data.project && typeof data.project === "object"
      ? misspeltAs(
        "source",
        data.project as Record<string, unknown>,
        Object.keys(projectSchema.shape),
      )
      : misspeltAs("project", data, Object.keys(fileSchema.shape)).replace("a key", "a table");
    throw new ConfigError(`${label}: [project] source is missing${misspelt || "."}`, {
      hint:
        `Set it to the package directory relative to the repository, e.g. source = "src/mypkg" ` +
        `(bugbout init writes it for you).`,
    });
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    throw new ConfigError(explain(label, data, fileSchema, parsed.error.issues).join("\n"));
  }
  const f = parsed.data;
  const tables = languageName(f.project.language)?.tables ?? [];
  if (tables.includes("command") && !f.command) {
    throw new ConfigError(`${label}: language = "${f.project.language}" needs a [command] table.`, {
      hint: 'Add [command] with test = ["program", "--junit-xml={report}"] and test-files = ' +
        '["tests/**/*"] (see docs/configuration.md).',
    });
  }
  let command;
  try {
    command = f.command ? commandSettingsOf(f.command) : undefined;
  } catch (error) {
    const e = error as ConfigError;
    throw new ConfigError(`${label}: ${e.message}`, { hint: e.hint });
  }
  const { repository, remote } = await resolveRepository(f.project.repository, root);
  const agents: AgentEntry[] = [];
  for (const [i, raw] of f.contestants.entries()) {
    agents.push(await agentEntry(label, raw, i, "contestant", root, adapters));
  }
  for (const [i, raw] of f.examiners.entries()) {
    agents.push(await agentEntry(label, raw, i, "examiner", root, adapters));
  }
  const seen = new Map<string, AgentEntry>();
  for (const agent of agents) {
    if (/#\d+$/.test(agent.name)) {
      throw new ConfigError(
        `${label}: the agent name "${agent.name}" ends like a repeat's ("codex#2" is codex's ` +
          "second attempt at a task).",
        { hint: `Name it without "#" and a number at the end.` },
      );
    }
    const before = seen.get(agent.name);
    if (before) {
      throw new ConfigError(
        `${label}: two agents are named "${agent.name}" (a ${before.role} and a ${agent.role}).`,
        { hint: `Give one of them a different name = "..." so reports can tell them apart.` },
      );
    }
    seen.set(agent.name, agent);
  }
  for (const name of Object.keys(f.run.budget)) {
    if (!seen.has(name)) {
      const hint = closest(name, [...seen.keys()]);
      throw new ConfigError(
        `${label}: [run.budget] names "${name}", which is no agent of the bout.`,
        {
          hint: hint
            ? `Did you mean "${hint}"?`
            : `Agents: ${[...seen.keys()].join(", ") || "none"}.`,
        },
      );
    }
  }
  // The command language reads its table from here (its runner is opened from a tree alone).
  useCommandSettings(command);
  const config: Config = {
    file: absolute,
    root,
    project: {
      language: f.project.language,
      source: (f.project.source ?? ".").replace(/\/+$/, "") || ".",
      tests: f.project.tests.replace(/\/+$/, ""),
      repository,
      remote,
      github: f.project.github,
      githubApi: f.project["github-api"].replace(/\/+$/, ""),
      python: f.project.python,
      testDependencies: f.project["test-dependencies"],
      pytestArgs: f.project["pytest-args"],
      env: f.project.env,
      installProject: f.project["install-project"],
      interpreter: f.project.interpreter,
    },
    tasks: {
      ...(f.tasks.branches ? { branches: f.tasks.branches } : {}),
      since: f.tasks.since,
      until: f.tasks.until,
      limit: f.tasks.limit,
      maxSourceFiles: f.tasks["max-source-files"],
      reruns: f.tasks.reruns,
    },
    run: {
      sandbox: f.run.sandbox,
      timeout: f.run.timeout,
      quotas: f.run.quotas,
      jobs: f.run.jobs ?? navigator.hardwareConcurrency ?? 2,
      testTimeout: f.run["test-timeout"],
      testMemory: f.run["test-memory"],
      agentProcesses: f.run["agent-processes"],
      agentMemory: f.run["agent-memory"],
      agentDisk: f.run["agent-disk"],
      agentFiles: f.run["agent-files"],
      repeats: f.run.repeats,
      budget: Object.fromEntries(
        Object.entries(f.run.budget).map(([name, text]) => [name, parseBudget(text)]),
      ),
    },
    judge: {
      policy: f.judge.policy,
      runSuite: f.judge["run-suite"],
      selectSuite: f.judge["select-suite"],
    },
    contestants: agents.filter((a) => a.role === "contestant"),
    examiners: agents.filter((a) => a.role === "examiner"),
  };
  if (!options.skipPathChecks && !remote) await checkPaths(config, label);
  return config;
}

/** Check that the local repository and the source directory exist. */
export async function checkPaths(config: Config, label = config.file): Promise<void> {
  const repo = config.project.repository;
  if (!(await isDirectory(repo))) {
    throw new ConfigError(`${label}: [project] repository: ${repo} is not a directory.`, {
      hint:
        `Set repository to the path of a git repository (relative to ${config.root}) or a git URL.`,
    });
  }
  const source = join(repo, config.project.source);
  if (!(await isDirectory(source)) && !(await isFile(`${source}.py`)) && !(await isFile(source))) {
    throw new ConfigError(
      `${label}: [project] source: expected the package directory ${source} to exist.`,
      { hint: `Set source to the package directory relative to ${repo}, e.g. "src/mypkg".` },
    );
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return (await statIfExists(path))?.isDirectory ?? false;
}

async function isFile(path: string): Promise<boolean> {
  return (await statIfExists(path))?.isFile ?? false;
}

/**
 * The bugbout.toml that `path` names: the file itself, or `bugbout.toml` in it when it is a
 * directory. Says whether a directory was given, so that a missing file can be named as it was
 * asked for.
 */
export async function configFile(path = "."): Promise<{ file: string; inDirectory: boolean }> {
  const absolute = resolve(path);
  return await isDirectory(absolute)
    ? { file: join(absolute, "bugbout.toml"), inDirectory: true }
    : { file: absolute, inDirectory: false };
}

/**
 * The repository that the bugbout.toml at `path` names, read as leniently as can be: for
 * `bugbout doctor`, which checks the repository even when the file does not validate. It is
 * `[project] repository` when that is a string, else the file's directory (the default, also when
 * a directory has no bugbout.toml yet); undefined when `path` names a file that is not there.
 */
export async function configuredRepository(
  path = ".",
): Promise<{ repository: string; remote: boolean } | undefined> {
  const { file, inDirectory } = await configFile(path);
  let setting: unknown;
  try {
    const data = parseToml(await Deno.readTextFile(file)) as { project?: unknown };
    if (data.project && typeof data.project === "object") {
      setting = (data.project as Record<string, unknown>).repository;
    }
  } catch (error) {
    if (isMissing(error) && !inDirectory) return undefined;
    // Missing, unreadable or not TOML: the config check says which; the default stands here.
    if (
      !isMissing(error) && !(error instanceof TomlError) &&
      !(error instanceof Deno.errors.PermissionDenied)
    ) {
      throw error;
    }
  }
  return await resolveRepository(
    typeof setting === "string" && setting ? setting : ".",
    dirname(file),
  );
}

/** Find and load `bugbout.toml` from `dir` (or a path to the file itself). */
export async function loadConfig(path = ".", options: LoadOptions = {}): Promise<Config> {
  const { file, inDirectory } = await configFile(path);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (isMissing(error)) {
      // A directory without the file is a repository not set up yet; a file named outright (with
      // -c) that is not there is most often a mistyped path.
      throw inDirectory
        ? new ConfigError(`No bugbout.toml in ${dirname(file)}.`, {
          hint: "Run `bugbout init` in your repository to write one.",
        })
        : new ConfigError(`No such file: ${file}.`, {
          hint: `Check the path (relative to ${Deno.cwd()} unless absolute), or run ` +
            "`bugbout init` in your repository to write a bugbout.toml.",
        });
    }
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  return parseConfig(text, file, options);
}
