/**
 * `command`: any agent with a command line, configured in `bugbout.toml`.
 *
 * The placeholders `{prompt}`, `{prompt_file}`, `{workdir}`, `{logdir}` and `{model}` are filled
 * in every argument (and in `env` values); without `{prompt}` or `{prompt_file}` the prompt goes
 * to standard input. `state-dirs` (with `~` meaning the user's home) become writable,
 * `sandboxed = false` runs the agent outside bugbout's sandbox, and `model-hosts` are the only
 * hosts its process may reach. A command that knows what it spent says so by writing
 * `{logdir}/usage.json`: `{"cost_usd": 0.42, "tokens": {"input": 1200, "output": 300}}` (either
 * part may be left out), which `[run.budget]` and the report count.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { z } from "../lib/deps.ts";
import type {
  AdapterDefinition,
  AgentReport,
  CodingAgent,
  Invocation,
  RunOutput,
  Session,
} from "./agent.ts";
import { AgentBase, COMMON_QUOTA, expandHome, matchesAny, substitute, tail } from "./_common.ts";
import { ConfigError } from "../lib/errors.ts";

const options = z.strictObject({
  command: z.array(z.string()).min(1, "must name at least the program"),
  env: z.record(z.string(), z.string()).default({}),
  "state-dirs": z.array(z.string()).default([]),
  sandboxed: z.boolean().default(true),
  "model-hosts": z.array(z.string()).default([]),
});

/** The `command` adapter's options. */
export type CommandOptions = z.infer<typeof options>;

const usageFile = z.object({
  cost_usd: z.number().nonnegative().optional(),
  tokens: z.object({
    input: z.number().nonnegative().optional(),
    output: z.number().nonnegative().optional(),
    total: z.number().nonnegative().optional(),
  }).optional(),
});

/** What the command said it spent in `usage.json` of its log directory (nothing if it did not). */
function usageOf(logdir: string): Pick<AgentReport, "costUsd" | "tokens"> {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${logdir}/usage.json`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
  let parsed;
  try {
    parsed = usageFile.safeParse(JSON.parse(text));
  } catch (error) {
    if (error instanceof SyntaxError) return {};
    throw error;
  }
  if (!parsed.success) return {};
  return {
    ...(parsed.data.cost_usd !== undefined ? { costUsd: parsed.data.cost_usd } : {}),
    ...(parsed.data.tokens ? { tokens: parsed.data.tokens } : {}),
  };
}

/** How much of the output tail stands in for a closing summary. */
const SUMMARY_CHARS = 2000;

/** True when the command line carries the prompt itself (so stdin need not). */
function takesPrompt(argv: readonly string[]): boolean {
  return argv.some((arg) => arg.includes("{prompt}") || arg.includes("{prompt_file}"));
}

class Command extends AgentBase<CommandOptions & { executable?: string }> implements CodingAgent {
  modelHosts(): string[] {
    return [...this.options["model-hosts"]];
  }

  invocation(session: Session): Invocation {
    const values: Record<string, string> = {
      prompt: session.prompt,
      prompt_file: session.promptFile,
      workdir: session.workdir,
      logdir: session.logdir,
      model: this.model ?? "",
    };
    const template = this.options.command;
    const env = Object.fromEntries(
      Object.entries(this.options.env).map(([k, v]) => [k, substitute(v, values)]),
    );
    const invocation: Invocation = {
      argv: template.map((arg) => substitute(arg, values)),
      env,
      writable: this.options["state-dirs"].map((dir) => expandHome(dir, session.hostEnv.HOME)),
    };
    // Files the command names by absolute path (its script, say) must be readable inside.
    const named = invocation.argv.filter((arg) =>
      arg.startsWith("/") && !arg.startsWith(session.workdir) && existsSync(arg)
    );
    if (named.length) invocation.readable = named;
    if (!takesPrompt(template)) invocation.stdin = session.prompt;
    if (!this.options.sandboxed) invocation.unconfined = true;
    return invocation;
  }

  /** No probe: an arbitrary program might take `--version` for a prompt and spend quota. */
  override version(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  /**
   * A command agent has no known output format: the tail of its output stands in for the
   * summary, and vendor usage-limit wording near the end of the output marks a quota stop
   * whatever the exit code (aider, for one, exits 0 on a quota).
   */
  parse(output: RunOutput): AgentReport {
    const end = tail(`${output.stdout}\n${output.stderr}`, SUMMARY_CHARS);
    const quota = matchesAny([end], COMMON_QUOTA);
    const report: AgentReport = { quota, ...usageOf(output.logdir) };
    const summary = tail(output.stdout, SUMMARY_CHARS);
    if (summary) report.summary = summary;
    if (output.exitCode !== 0) {
      report.error = tail(output.stderr, 500) || `exit code ${output.exitCode}`;
    }
    return report;
  }
}

/** The `command` adapter. */
export const command: AdapterDefinition<z.infer<typeof options>> = {
  type: "command",
  description: "any agent with a command line (configured with command = [...])",
  executable: "",
  requiresName: true,
  ownQuota: true,
  options,
  create(spec) {
    const uses = spec.options.command.join(" ");
    if (uses.includes("{model}") && !spec.model) {
      throw new ConfigError(
        `Cannot run command agent ${spec.name}: its command uses {model} but no model is set.`,
        { hint: "Set model for this agent, or take {model} out of the command." },
      );
    }
    for (const dir of spec.options["state-dirs"]) {
      if (!dir.startsWith("/") && dir !== "~" && !dir.startsWith("~/")) {
        throw new ConfigError(
          `Cannot use state directory ${dir} of command agent ${spec.name}: it is relative.`,
          { hint: "Write it in full, or starting with ~/ for your home directory." },
        );
      }
    }
    return new Command(spec, { type: command.type, executable: spec.options.command[0] });
  },
};
