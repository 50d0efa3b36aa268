/**
 * Helpers shared by the agent adapters: base URLs to `host:port`, environment picking, prompt
 * placeholders, reading the agents' JSON output, and `--version` probes.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { AgentSpec, TokenUsage } from "./agent.ts";
import { BugboutError, ConfigError } from "../lib/errors.ts";
import { readTextIfExists, realPathIfExists } from "../lib/fs.ts";
import { NotInstalledError, run } from "../lib/proc.ts";

/** A loose JSON object, as read from an agent's output. */
export type Json = Record<string, unknown>;

/** The `host:port` a URL connects to; the port defaults to the scheme's (443 for https). */
export function hostPort(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new ConfigError(`Cannot read the base URL ${url}: it is not a URL.`, {
      hint: "Write it in full, for example http://127.0.0.1:8080/v1.",
    });
  }
  const defaults: Record<string, string> = {
    "https:": "443",
    "wss:": "443",
    "http:": "80",
    "ws:": "80",
  };
  const port = parsed.port || defaults[parsed.protocol];
  if (!port) {
    throw new ConfigError(
      `Cannot tell the port of ${url}: the scheme ${parsed.protocol} has none.`,
      {
        hint: "Use an http:// or https:// URL, or give the port explicitly.",
      },
    );
  }
  return `${parsed.hostname}:${port}`;
}

/** The first of `names` that is set (non-empty) in `env`, with its value. */
export function firstEnv(
  env: Readonly<Record<string, string>>,
  names: readonly string[],
): [name: string, value: string] | undefined {
  for (const name of names) if (env[name]) return [name, env[name]];
  return undefined;
}

/** The subset of `names` that is set (non-empty) in `env`. */
export function pickEnv(
  env: Readonly<Record<string, string>>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (env[name]) out[name] = env[name];
  return out;
}

/** Expand a leading `~` against `home`. */
export function expandHome(path: string, home: string | undefined): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  if (!home) {
    throw new BugboutError(`Cannot expand ${path}: HOME is not set.`, {
      hint: "Set HOME, or write the path in full.",
    });
  }
  return path === "~" ? home : join(home, path.slice(2));
}

/** Where a host-side config directory lives: `$override` if set, else `~/<fallback>`. */
export function hostConfigDir(
  env: Readonly<Record<string, string>>,
  override: string,
  fallback: string,
): string {
  return env[override] || `~/${fallback}`;
}

/** Replace `{name}` for every key of `values`; other braces are left alone. */
export function substitute(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{([a-z_]+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** The objects among the lines of JSONL text; anything that is not a JSON object is skipped. */
export function jsonLines(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value = JSON.parse(trimmed);
      if (isObject(value)) out.push(value);
    } catch (error) {
      // a cut-off first line of a tail, or a log line that only looks like JSON
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  return out;
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` if it is a JSON object, else undefined. */
export function obj(value: unknown): Json | undefined {
  return isObject(value) ? value : undefined;
}

/** `value` if it is a finite number, else undefined. */
export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `value` if it is a string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A JSON file's value, or undefined when it is missing or not JSON. Requires `--allow-read`. */
export async function readJsonIfValid(path: string): Promise<unknown> {
  const text = await readTextIfExists(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** Drop the fields that are undefined; undefined when none is left. */
export function compactUsage(usage: TokenUsage): TokenUsage | undefined {
  const out: TokenUsage = {};
  for (const [key, value] of Object.entries(usage) as [keyof TokenUsage, number | undefined][]) {
    if (value !== undefined) out[key] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Anthropic usage: `input_tokens` leaves out cache reads and writes, so they are added back. */
export function anthropicUsage(usage: Json | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const plain = num(usage.input_tokens);
  const read = num(usage.cache_read_input_tokens);
  const write = num(usage.cache_creation_input_tokens);
  return compactUsage({
    input: plain === undefined ? undefined : plain + (read ?? 0) + (write ?? 0),
    cachedInput: read,
    cacheWrite: write,
    output: num(usage.output_tokens),
  });
}

/** Add token counts field by field; a field stays undefined unless some part reports it. */
export function sumUsage(parts: readonly (TokenUsage | undefined)[]): TokenUsage | undefined {
  const out: TokenUsage = {};
  for (const part of parts) {
    if (!part) continue;
    for (const [key, value] of Object.entries(part) as [keyof TokenUsage, number | undefined][]) {
      if (value !== undefined) out[key] = (out[key] ?? 0) + value;
    }
  }
  return compactUsage(out);
}

/** The last `max` characters of `text`, trimmed. */
export function tail(text: string, max = 4000): string {
  const trimmed = text.trim();
  return trimmed.length > max ? trimmed.slice(-max) : trimmed;
}

/**
 * Usage-limit wording that several vendors share (OpenAI-style 429 bodies, litellm and aider
 * messages). Specific phrases only: the agents' own output may well talk about rate limiting.
 */
export const COMMON_QUOTA = [
  /insufficient_quota/,
  /exceeded your current quota/i,
  /RateLimitError/,
  /rate[- ]limited you/i,
  /You[’']ve hit your (?:usage |rate |session |weekly |monthly )?limit/,
  /RESOURCE_EXHAUSTED/,
  /Too Many Requests/,
];

/** True when any pattern matches any of the texts. */
export function matchesAny(texts: readonly (string | undefined)[], patterns: readonly RegExp[]) {
  return texts.some((text) => text !== undefined && patterns.some((p) => p.test(text)));
}

/** The fields every agent shares, filled from its spec and the adapter's defaults. */
export abstract class AgentBase<Options extends { executable?: string }> {
  /** The adapter type. */
  readonly type: string;
  /** The report name. */
  readonly name: string;
  /** The configured model. */
  readonly model?: string;
  /** Who made the model. */
  readonly vendor: string;
  /** The quota lane. */
  readonly quota: string;
  /** The program to run: the `executable` option, else the adapter's default. */
  readonly executable: string;
  /** The adapter's validated options. */
  protected readonly options: Options;

  /** Fill the shared fields from `spec`; `definition` gives the type and default executable. */
  constructor(spec: AgentSpec<Options>, definition: { type: string; executable: string }) {
    this.type = definition.type;
    this.name = spec.name;
    this.model = spec.model;
    this.vendor = spec.vendor;
    this.quota = spec.quota;
    this.executable = spec.options.executable ?? definition.executable;
    this.options = spec.options;
  }

  /** `<executable> --version`, bounded in time; never spends quota. */
  version(): Promise<string | undefined> {
    return probeVersion([this.executable, "--version"]);
  }
}

const VERSION = /\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?/;

/**
 * Run a version probe (`<exe> --version` by default) with a scratch HOME and a bounded time, and
 * return the first version number it prints; undefined when it is not installed or says nothing.
 * Requires `--allow-run`, `--allow-env` (PATH) and `--allow-write` (the scratch HOME).
 */
export async function probeVersion(argv: readonly string[]): Promise<string | undefined> {
  const home = await Deno.makeTempDir({ prefix: "bugbout-version-" });
  try {
    const result = await run(argv, {
      okCodes: "any",
      timeoutMs: 30_000,
      ownGroup: true,
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" },
      maxOutputBytes: 64 * 1024,
    });
    if (result.timedOut || result.code !== 0) return undefined;
    return (result.stdout.match(VERSION) ?? result.stderr.match(VERSION))?.[0];
  } catch (error) {
    if (error instanceof NotInstalledError) return undefined;
    throw error;
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** The directory of a resolved executable (following symlinks), for version probes. */
export async function realDir(path: string): Promise<string> {
  return dirname((await realPathIfExists(path)) ?? path);
}
