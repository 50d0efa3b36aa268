/**
 * One attempt: a fresh history-free copy of B, the agent run inside the sandbox, the patch read from
 * disk, the agent's logs parsed, the record saved the moment it ends.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { AgentReport, CodingAgent, Invocation, Session } from "../../adapters/agent.ts";
import { checkout, removeTree } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { git } from "../git.ts";
import type { Project } from "../project.ts";
import { OWNED, ownedSuffix, sweepDead } from "../pids.ts";
import { which } from "../proc.ts";
import type { AgentTestEnv, ProjectTools } from "../lang/mod.ts";
import {
  type Attempt,
  attemptName,
  type AttemptPatches,
  type AttemptStatus,
  RESULTS_VERSION,
  type Task,
} from "../records.ts";
import { toolchainMounts, UnconfinedSandbox } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { agentLimits, LIMIT_STATUSES, limitMessage, limitReached } from "./limits.ts";
import { saveAttempt } from "./attempts.ts";
import { capturePatch, countEntries, type Snapshot, takeSnapshot } from "../testbed/mod.ts";
import { buildPrompt } from "./prompt.ts";
import { readDirIfExists, readTextIfExists, removeIfExists, statIfExists } from "../fs.ts";
import { type Atif, toAtif } from "../transcript/atif.ts";
import type { Transcript } from "../transcript/types.ts";

/** Logs kept on disk per stream; the rest is drained and counted. */
const LOG_CAP = 32 * 1024 * 1024;
/** Characters of output kept in the attempt record. */
const TAIL = 4000;

/** Everything an attempt needs besides the task and the agent. */
export interface AttemptContext {
  project: Project;
  sandbox: Sandbox;
  /** How the project's tests run: each attempt's tree gets the environment it needs. */
  tools: ProjectTools;
  /** `contestant`, or the examiner's assignment. */
  role: "contestant" | "reproduce" | "specify";
  inputsKey: string;
  /** Which of the agent's `[run] repeats` attempts this is (1: the first). */
  repeat?: number;
  signal?: AbortSignal;
}

function tail(text: string): string {
  return text.length > TAIL ? text.slice(-TAIL) : text;
}

function expandHome(path: string, home: string): string {
  return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

async function copyIn(copies: Invocation["copy"], hostHome: string) {
  for (const { from, to } of copies ?? []) {
    const source = expandHome(from, hostHome);
    // A missing auth file is the agent's business: it will say it is not logged in.
    if (!(await statIfExists(source))?.isFile) continue;
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.copyFile(source, to);
    await Deno.chmod(to, 0o600);
  }
}

/** Make a one-commit git repository in the working copy (agents that expect git get one). */
async function initWorkRepo(work: string) {
  const env = {
    GIT_AUTHOR_NAME: "bugbout",
    GIT_AUTHOR_EMAIL: "bugbout@localhost",
    GIT_COMMITTER_NAME: "bugbout",
    GIT_COMMITTER_EMAIL: "bugbout@localhost",
    GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
  };
  await git(["init", "--quiet", "--initial-branch", "main"], { cwd: work, env });
  await git(["add", "--all", "--force", "--", "."], { cwd: work, env });
  await git(["commit", "--quiet", "--no-verify", "-m", "The code to work on"], { cwd: work, env });
}

/**
 * How an attempt ended. Reaching a limit ends it with that limit's status. A usage-limit signal
 * makes it `quota` unless the agent still finished cleanly with a change: output that merely
 * mentions a rate limit (a test of an HTTP client, say) must not turn a finished patch into a
 * retry.
 */
function statusOf(
  result: SandboxResult,
  changed: boolean,
  quota: boolean,
): AttemptStatus {
  const limit = limitReached(result);
  if (limit) return LIMIT_STATUSES[limit];
  if (quota && !(changed && result.code === 0 && !result.timedOut)) return "quota";
  if (result.timedOut) return "timeout";
  if (changed) return "patch";
  return result.code === 0 ? "no-change" : "crashed";
}

/** The parts of an attempt's directory that never outlive it: only `log` and `input` stay. */
const TRANSIENT = ["state", "work", "home", "snapshot.git"];

/**
 * Remove the working copies, auth copies and snapshots that attempts of processes that no longer
 * exist (a race killed mid-attempt) left in the project's cache.
 */
export async function sweepAttempts(project: Project): Promise<void> {
  const top = project.cacheDir("attempts");
  for (const task of await readDirIfExists(top)) {
    if (!task.isDirectory) continue;
    await sweepDead(join(top, task.name), OWNED, async (attempt) => {
      for (const part of TRANSIENT) await removeTree(join(attempt, part));
    });
  }
}

/**
 * Remove whatever the agent left in its log directory that is not a plain file or directory, so
 * that reading its logs afterwards (`CodingAgent.parse`) never follows a link it planted
 * (`last-message.txt -> ~/.ssh/id_rsa`) nor blocks on a FIFO. A directory of more than `max`
 * entries is not walked to its end: it is emptied (the agent's logs are then lost).
 */
async function keepPlainFiles(dir: string, max: number): Promise<void> {
  let seen = 0;
  const walk = async (at: string): Promise<boolean> => {
    for await (const entry of Deno.readDir(at)) {
      if (++seen > max) return false;
      const path = join(at, entry.name);
      const info = await Deno.lstat(path);
      if (info.isDirectory) {
        if (!(await walk(path))) return false;
      } else if (!info.isFile) await Deno.remove(path);
    }
    return true;
  };
  if (await walk(dir)) return;
  await removeTree(dir);
  await Deno.mkdir(dir, { recursive: true });
}

/** The directories of one attempt (under the project's cache, named with this process's pid). */
interface AttemptDirs {
  root: string;
  work: string;
  log: string;
  state: string;
  home: string;
  input: string;
  snapshot: string;
}

function attemptDirs(project: Project, task: Task, name: string): AttemptDirs {
  // The pid in the name lets a later run sweep what a killed run left (see sweepAttempts).
  const root = project.cacheDir(
    "attempts",
    task.id,
    `${name.replace(/[^\w.-]+/g, "_")}${ownedSuffix()}`,
  );
  return {
    root,
    work: join(root, "work"),
    log: join(root, "log"),
    state: join(root, "state"),
    home: join(root, "home"),
    input: join(root, "input"),
    snapshot: join(root, "snapshot.git"),
  };
}

/** Why an attempt could not be made: bugbout's failure, not the agent's. */
class AttemptFailure extends Error {
  constructor(message: string, readonly after?: SandboxResult) {
    super(message);
  }
}

type SandboxResult = Awaited<ReturnType<Sandbox["run"]>>;

/** What phase 1 prepared: the working copy, its snapshot, and the agent's command line. */
interface Prepared {
  session: Session;
  invocation: Invocation;
  snapshot: Snapshot;
  /** Entries of the working copy at the snapshot (see `countEntries`). */
  entries: number;
  /** The working copy's test environment. */
  tests: AgentTestEnv;
}

/**
 * Phase 1: a history-free copy of B with a one-commit repository, a snapshot to diff against,
 * the prompt, and the agent's invocation with its files and auth copies in place.
 */
async function prepare(
  task: Task,
  agent: CodingAgent,
  context: AttemptContext,
  dirs: AttemptDirs,
  role: Attempt["role"],
): Promise<Prepared> {
  const { project, signal } = context;
  const config = project.config;
  try {
    for (const dir of [dirs.log, dirs.state, dirs.home, dirs.input]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    await checkout(project.repository, task.parent, dirs.work, { home: project.home, signal });
    await initWorkRepo(dirs.work);
    const snapshot = await takeSnapshot(dirs.work, dirs.snapshot);
    const entries = await countEntries(dirs.work);
    // After the snapshot: what the environment puts in the working copy is never a change.
    const tests = await context.tools.agentEnv(dirs, task, signal);
    const testsDir = config.project.tests;
    const prompt = buildPrompt({
      task,
      testCommand: tests.testCommand,
      role: context.role,
      words: context.tools.language.promptWords({ task, testsDir, runner: tests.runner.name }),
    });
    const promptFile = join(dirs.input, "prompt.md");
    await Deno.writeTextFile(promptFile, prompt);
    const session: Session = {
      task: task.id,
      prompt,
      promptFile,
      workdir: dirs.work,
      logdir: dirs.log,
      stateDir: dirs.state,
      home: dirs.home,
      model: agent.model,
      timeoutSeconds: config.run.timeout,
      role,
      hostEnv: Deno.env.toObject(),
      sandbox: context.sandbox,
    };
    const invocation = await agent.invocation(session);
    for (const [path, content] of Object.entries(invocation.files ?? {})) {
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeTextFile(path, content);
    }
    await copyIn(invocation.copy, session.hostEnv.HOME ?? "/root");
    for (const dir of invocation.writable ?? []) await Deno.mkdir(dir, { recursive: true });
    return { session, invocation, snapshot, entries, tests };
  } catch (error) {
    if (signal?.aborted) throw new InterruptedError();
    throw new AttemptFailure(`Could not prepare the attempt: ${describeError(error)}`);
  }
}

/**
 * Phase 2: run the agent in the sandbox, with the test environment's Python (or Go or node) first
 * on PATH, its toolchain readable, and the network open only to its model hosts.
 */
async function runAgent(
  agent: CodingAgent,
  context: AttemptContext,
  dirs: AttemptDirs,
  prepared: Prepared,
): Promise<{ result: SandboxResult; sandbox: Sandbox }> {
  const { project, signal } = context;
  const invocation = prepared.invocation;
  const parts = prepared.tests;
  // The test environment's bin comes first inside, so `python3` means the same thing here.
  const hostPath = `${parts.path.join(":")}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
  const executable = await which(invocation.argv[0], hostPath) ?? invocation.argv[0];
  let toolchain: Awaited<ReturnType<typeof toolchainMounts>>;
  try {
    toolchain = await toolchainMounts(invocation.argv[0], { path: hostPath });
  } catch (error) {
    throw new AttemptFailure(describeError(error));
  }
  const inside: Record<string, string> = {
    ...parts.env,
    PATH: [...parts.path, dirname(executable), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: dirs.home,
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    ...invocation.env,
  };
  const sandbox = invocation.unconfined ? new UnconfinedSandbox() : context.sandbox;
  const hosts = invocation.modelHosts ?? agent.modelHosts();
  try {
    const result = await sandbox.run([executable, ...invocation.argv.slice(1)], {
      workdir: dirs.work,
      writable: [
        dirs.log,
        dirs.state,
        dirs.home,
        ...parts.writable,
        ...(invocation.writable ?? []),
      ],
      readable: [
        dirs.input,
        ...parts.readable,
        ...(invocation.readable ?? []),
        ...toolchain.readable,
      ],
      links: [...toolchain.links, ...parts.links],
      deny: [project.repository, project.home, project.results.path],
      network: hosts.length ? { allow: hosts } : "none",
      env: inside,
      home: dirs.home,
      timeoutMs: project.config.run.timeout * 1000,
      limits: agentLimits(project.config.run),
      stdin: invocation.stdin,
      maxOutputBytes: 1024 * 1024,
      stdoutLog: { path: join(dirs.log, "stdout.log"), capBytes: LOG_CAP },
      stderrLog: { path: join(dirs.log, "stderr.log"), capBytes: LOG_CAP },
      signal,
    });
    if (signal?.aborted) throw new InterruptedError();
    return { result, sandbox };
  } catch (error) {
    if (signal?.aborted) throw new InterruptedError();
    throw new AttemptFailure(`The sandbox could not run the agent: ${describeError(error)}`);
  }
}

/**
 * Phase 3: what the agent changed on disk and what its own output says, as an attempt record
 * and its patches. Examiners fix nothing: their edits outside the tests are discarded.
 */
async function collect(
  task: Task,
  agent: CodingAgent,
  context: AttemptContext,
  dirs: AttemptDirs,
  prepared: Prepared,
  run: SandboxResult,
): Promise<
  { status: AttemptStatus; fields: Partial<Attempt>; patches: AttemptPatches; trajectory?: Atif }
> {
  const limits = agentLimits(context.project.config.run);
  let result = run;
  // Past the file limit nothing is walked or staged, whoever noticed it first.
  await keepPlainFiles(dirs.log, limits.files);
  const { snapshot, tests } = prepared;
  let patch;
  try {
    // The environment's links (and the caches tools kept beside them) are no change of the agent's.
    for (const path of tests.transient) await removeIfExists(join(dirs.work, path));
    patch = result.limit === "files"
      ? { files: [], sourcePatch: "", testPatch: "", fullPatch: "", skipped: [] }
      : await capturePatch(snapshot, { packageDir: task.packageDir, runner: tests.runner }, {
        maxEntries: prepared.entries + limits.files,
      });
    if (patch.tooManyEntries && !result.limit) result = { ...result, limit: "files" };
  } catch (error) {
    throw new AttemptFailure(
      `Could not read what the agent changed: ${describeError(error)}`,
      result,
    );
  }
  const contestant = context.role === "contestant";
  const files = contestant
    ? patch.files
    : patch.files.filter((f) => f.kind === "test" || f.kind === "config");
  const report = await parseOutput(agent, dirs, result);
  const transcript = await readTranscript(agent, prepared.session, report);
  const limit = limitReached(result);
  const errors = [
    limit ? limitMessage(limit, limits) : undefined,
    report.error ?? (result.truncated ? "output over the cap was dropped" : undefined),
    patch.skipped.length
      ? `left out of the patch (over 5 MiB): ${patch.skipped.join(", ")}`
      : undefined,
  ].filter(Boolean);
  return {
    status: statusOf(result, files.length > 0, report.quota === true),
    fields: {
      exitCode: result.timedOut ? null : result.code,
      tokens: report.tokens,
      costUsd: report.costUsd,
      summary: report.summary?.slice(0, TAIL),
      error: errors.length ? errors.join("; ") : undefined,
      logTail: tail(
        `${result.stderr}${result.stderr && result.stdout ? "\n" : ""}${result.stdout}`,
      ),
      files,
    },
    patches: {
      source: contestant ? patch.sourcePatch : "",
      tests: patch.testPatch,
      full: contestant ? patch.fullPatch : patch.testPatch,
    },
    ...(transcript
      ? { trajectory: toAtif(transcript, `${task.id}/${attemptName(agent.name, context.repeat)}`) }
      : {}),
  };
}

/**
 * The agent's transcript, read by its adapter from the whole logs on disk (not only their tails),
 * with the prompt first and the run's tokens and cost as `parse` read them. Undefined for an
 * adapter that reads none, or when reading fails (the attempt itself stands).
 */
async function readTranscript(
  agent: CodingAgent,
  session: Session,
  report: AgentReport,
): Promise<Transcript | undefined> {
  if (!agent.transcript) return undefined;
  const log = async (name: string) => (await readTextIfExists(join(session.logdir, name))) ?? "";
  let steps;
  try {
    steps = await agent.transcript({
      logdir: session.logdir,
      stdout: await log("stdout.log"),
      stderr: await log("stderr.log"),
      model: agent.model,
    });
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) throw error;
    return undefined;
  }
  if (!steps.some((s) => s.kind === "message" && s.role === "user")) {
    steps.unshift({ kind: "message", role: "user", text: session.prompt });
  }
  return {
    agent: agent.type,
    ...(agent.model ? { model: agent.model } : {}),
    source: `${agent.type}'s own log`,
    steps,
    ...(report.tokens ? { tokens: report.tokens } : {}),
    ...(report.costUsd !== undefined ? { costUsd: report.costUsd } : {}),
  };
}

/** The agent's own account of the run; a parser that fails says so instead. */
async function parseOutput(
  agent: CodingAgent,
  dirs: AttemptDirs,
  result: SandboxResult,
): Promise<AgentReport> {
  if (!agent.parse) return {};
  try {
    return await agent.parse({
      logdir: dirs.log,
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.code,
      timedOut: result.timedOut,
    });
  } catch (error) {
    return { error: `Could not read the agent's output: ${describeError(error)}` };
  }
}

/** What every attempt record says of its task, agent and inputs. */
function attemptBase(
  task: Task,
  agent: CodingAgent,
  context: AttemptContext,
): Omit<Attempt, "status" | "durationMs" | "exitCode" | "logTail" | "files"> {
  const repeat = context.repeat ?? 1;
  return {
    version: RESULTS_VERSION,
    kind: "attempt",
    task: task.id,
    agent: agent.name,
    role: context.role === "contestant" ? "contestant" : "examiner",
    type: agent.type,
    model: agent.model,
    vendor: agent.vendor,
    inputsKey: context.inputsKey,
    startedAt: new Date().toISOString(),
    sandbox: context.sandbox.kind,
    ...(repeat > 1 ? { repeat } : {}),
  };
}

/** Save an attempt that was never started (its agent's budget was spent), saying why. */
export async function saveUnstarted(
  task: Task,
  agent: CodingAgent,
  context: AttemptContext,
  why: string,
): Promise<Attempt> {
  const attempt: Attempt = {
    ...attemptBase(task, agent, context),
    status: "budget",
    durationMs: 0,
    exitCode: null,
    error: why,
    logTail: "",
    files: [],
  };
  await saveAttempt(context.project.results, attempt, { source: "", tests: "", full: "" });
  return attempt;
}

/** Run one agent on one task and save the attempt. Throws InterruptedError on abort (nothing saved). */
export async function runAttempt(
  task: Task,
  agent: CodingAgent,
  context: AttemptContext,
): Promise<Attempt> {
  const { project, signal } = context;
  const started = performance.now();
  const dirs = attemptDirs(project, task, attemptName(agent.name, context.repeat));
  const base = attemptBase(task, agent, context);
  // Auth copies and working copies never outlive the attempt; the agent's own logs stay. They
  // go before the record is saved, so a saved attempt is one that left nothing behind.
  const cleanUp = async () => {
    for (const part of TRANSIENT) await removeTree(join(dirs.root, part));
  };
  let attempt: Attempt;
  let patches: AttemptPatches = { source: "", tests: "", full: "" };
  let trajectory: Atif | undefined;
  try {
    const prepared = await prepare(task, agent, context, dirs, base.role);
    const { result, sandbox } = await runAgent(agent, context, dirs, prepared);
    // An agent that asked to run unconfined is recorded as such, so the report can say so.
    base.sandbox = sandbox.kind;
    const collected = await collect(task, agent, context, dirs, prepared, result);
    patches = collected.patches;
    trajectory = collected.trajectory;
    attempt = {
      ...base,
      ...collected.fields,
      status: collected.status,
      durationMs: Math.round(performance.now() - started),
    } as Attempt;
  } catch (error) {
    if (!(error instanceof AttemptFailure)) {
      // The first failure is the one to report, whatever the clean-up then runs into.
      await cleanUp().finally(() => {
        throw error;
      });
      throw error;
    }
    // bugbout's own failure, not the agent's: saved as such so `--retry-failed` runs it again.
    const after = error.after;
    attempt = {
      ...base,
      status: "infra-error",
      durationMs: Math.round(performance.now() - started),
      exitCode: after && !after.timedOut ? after.code : null,
      error: error.message,
      logTail: after ? tail(`${after.stderr}\n${after.stdout}`) : "",
      files: [],
    };
  }
  await cleanUp();
  if (signal?.aborted) throw new InterruptedError();
  await saveAttempt(project.results, attempt, patches, trajectory);
  return attempt;
}
