/**
 * What the adapter tests share: a fixed fake session, a way to make an agent from raw options,
 * and the recorded real outputs under `tests/fixtures/recorded/<type>/<version>/<scenario>/`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type {
  AdapterDefinition,
  AgentReport,
  CodingAgent,
  RunOutput,
  Session,
  TokenUsage,
} from "../../adapters/agent.ts";
import type { Sandbox } from "../../lib/sandbox/types.ts";
import { successScript } from "../fixtures/recorded/record.ts";

const NO_SANDBOX: Sandbox = {
  kind: "none",
  run: () => Promise.reject(new Error("adapters build command lines; they never run them")),
};

/** A session with fixed paths; `over` replaces fields. */
export function fakeSession(over: Partial<Session> = {}): Session {
  return {
    task: "calc-12",
    prompt: "Fix the bug in add().",
    promptFile: "/bb/run/prompt.md",
    workdir: "/bb/run/checkout",
    logdir: "/bb/run/logs",
    stateDir: "/bb/run/state",
    home: "/bb/run/home",
    timeoutSeconds: 900,
    role: "contestant",
    hostEnv: { HOME: "/home/ada", PATH: "/usr/bin:/bin" },
    sandbox: NO_SANDBOX,
    ...over,
  };
}

/** Make an agent the way the config loader does: options validated by the adapter's schema. */
export function makeAgent(
  definition: AdapterDefinition,
  settings: { model?: string; name?: string; options?: Record<string, unknown> } = {},
): CodingAgent {
  const parsed = definition.options.safeParse(settings.options ?? {});
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
  return definition.create({
    type: definition.type,
    name: settings.name ?? definition.type,
    model: settings.model,
    vendor: definition.defaultVendor ?? "unknown",
    quota: definition.type,
    options: parsed.data,
  });
}

/** A finished run's output, for parser tests; `logdir` defaults to a path that does not exist. */
export function runOutput(over: Partial<RunOutput> = {}): RunOutput {
  return {
    logdir: "/nonexistent/bugbout-logs",
    stdout: "",
    stderr: "",
    exitCode: 0,
    timedOut: false,
    ...over,
  };
}

/** JSONL text from objects. */
export function jsonl(...events: unknown[]): string {
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

/** The recorder's `meta.json`, as far as the tests read it. */
export interface RecordingMeta {
  agent: string;
  version: string;
  scenario: "success" | "failure" | "quota";
  exitCode: number;
  timedOut: boolean;
  usageSent: { turns: TokenUsage; withAux: TokenUsage };
  outputs: string[];
}

/** One recorded run of a real agent CLI. */
export interface Recording {
  /** `<version>/<scenario>`, for test names. */
  label: string;
  meta: RecordingMeta;
  /** The run as `parse()` sees it: the recording's directory holds the kept output files. */
  output: RunOutput;
}

const RECORDED = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "recorded");

/** Every recording of `type`, any version and scenario; empty when there are none. */
export async function recordings(type: string): Promise<Recording[]> {
  const out: Recording[] = [];
  const root = join(RECORDED, type);
  for (const version of await dirs(root)) {
    for (const scenario of await dirs(join(root, version))) {
      const dir = join(root, version, scenario);
      const meta = JSON.parse(await Deno.readTextFile(join(dir, "meta.json"))) as RecordingMeta;
      out.push({
        label: `${version}/${scenario}`,
        meta,
        output: {
          logdir: dir,
          stdout: await Deno.readTextFile(join(dir, "stdout.txt")),
          stderr: await Deno.readTextFile(join(dir, "stderr.txt")),
          exitCode: meta.exitCode,
          timedOut: meta.timedOut,
        },
      });
    }
  }
  return out;
}

async function dirs(path: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(path)) if (entry.isDirectory) out.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out.sort();
}

/** The closing text of the recorder's success script. */
export function scriptedSummary(): string {
  const last = successScript().at(-1) as { finish?: string };
  if (!last.finish) throw new Error("the success script does not end with a finish turn");
  return last.finish;
}

/**
 * Check a report against a recording: the success run's summary is the scripted closing text and
 * it is no quota stop; a failure is an error and no quota stop; a quota run is a quota stop. The
 * token fields the agent reports equal what the server sent.
 */
export function assertRecording(
  report: AgentReport,
  recording: Recording,
  fields: readonly (keyof TokenUsage)[],
): void {
  const { meta } = recording;
  const want = (key: keyof TokenUsage) => meta.usageSent.turns[key] ?? 0;
  const got = (key: keyof TokenUsage) => report.tokens?.[key] ?? 0;
  assertEquals(
    Object.fromEntries(fields.map((k) => [k, got(k)])),
    Object.fromEntries(fields.map((k) => [k, want(k)])),
    `tokens of ${recording.label}`,
  );
  if (meta.scenario === "success") {
    assertEquals(report.summary, scriptedSummary());
    assertEquals(report.quota, false);
    assertEquals(report.error, undefined);
  } else if (meta.scenario === "failure") {
    assertEquals(report.quota, false, `quota of ${recording.label}`);
    assert(report.error, `an error for ${recording.label}`);
  } else {
    assertEquals(report.quota, true, `quota of ${recording.label}`);
    assert(report.error, `an error for ${recording.label}`);
  }
}

/** A temporary directory, removed on dispose. */
export async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "bugbout-adapter-test-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
