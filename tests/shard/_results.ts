/**
 * Two `.bugbout/` directories compared file by file, after a normaliser that takes out what two
 * runs of the same bout can never share. What it ignores, and nothing else:
 *
 * - times: in JSON files the keys `startedAt`, `generatedAt`, `durationMs` and `…DurationMs` (when
 *   an attempt started, when a report was made, how long an attempt or a pytest session took, the
 *   report's median attempt time), and the values of an oracle's `durations` (each test's time on
 *   G; the test names are kept); in the report's Markdown and HTML, times written for a person
 *   (`1.2s`, `350 ms`, `4 min`, ISO timestamps);
 * - the `inputsKey` of matrices and resolutions: a hash whose inputs include when each attempt
 *   started (so it differs between any two races, sharded or not); the attempts' own keys, the
 *   cells' keys and every outcome are compared;
 * - the order of a matrix's or resolution's saved cells (`reuse.cells`, a cache kept in the order
 *   sessions finished, which varies from run to run): they are compared sorted by key;
 * - the statement note (`statementNote` in tasks.json and the report, and its sentence in the
 *   Markdown and HTML): how this machine read the issue texts, with GitHub's rate-limit counters
 *   or "from bugbout's cache" — the statements themselves are compared;
 * - the absolute paths of the projects and of `BUGBOUT_HOME` (each copy of the project lives in a
 *   directory of its own), replaced by `<project>` and `<home>`;
 * - the results lock (`lock`) and a shard's `shard.json`, which are not results.
 *
 * Everything else — every attempt record, every patch byte for byte, every matrix cell, verdict,
 * resolution, oracle, task and report number — must be equal.
 *
 * @module
 */

import { join, relative } from "node:path";

/** Keys whose values are times, dropped from every JSON file. */
const TIME_KEY = /^(startedAt|generatedAt|durationMs|\w+DurationMs)$/;

/** How the issue texts were read on one machine. */
const STATEMENT_NOTE = /Issue texts read from GitHub[^\n<]*/g;

/** Files that are not results. */
const NOT_RESULTS = new Set(["lock", "shard.json"]);

/** Every file under `dir`, relative, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (entry.isDirectory) await walk(path);
      else found.push(relative(dir, path));
    }
  };
  await walk(dir);
  return found.filter((f) => !NOT_RESULTS.has(f)).sort();
}

function replacePaths(text: string, paths: Record<string, string>): string {
  let out = text;
  for (const [from, to] of Object.entries(paths).sort((a, b) => b[0].length - a[0].length)) {
    out = out.split(from).join(to);
  }
  return out;
}

function normaliseJson(
  value: unknown,
  paths: Record<string, string>,
  keyed: boolean,
): unknown {
  if (typeof value === "string") return replacePaths(value, paths);
  if (Array.isArray(value)) return value.map((v) => normaliseJson(v, paths, keyed));
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([k]) =>
      !TIME_KEY.test(k) && !(keyed && k === "inputsKey")
    );
    return Object.fromEntries(entries.map(([k, v]) => {
      // An oracle's test times: the names stay, the times go.
      if (k === "durations" && v && typeof v === "object") {
        return [k, Object.fromEntries(Object.keys(v).map((name) => [name, 0]))];
      }
      if (k === "statementNote") return [k, "<statement note>"];
      if (k === "cells" && Array.isArray(v) && v.every((c) => typeof c?.key === "string")) {
        const sorted = [...v].sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
        return [k, normaliseJson(sorted, paths, keyed)];
      }
      return [k, normaliseJson(v, paths, keyed)];
    }));
  }
  return value;
}

function normaliseText(file: string, text: string, paths: Record<string, string>): string {
  const out = replacePaths(text, paths);
  // JUnit XML says when and how long each attempt's hidden tests ran.
  if (/^junit\//.test(file)) {
    return out.replace(/ time="[\d.]+"/g, ' time="<time>"')
      .replace(/ timestamp="[^"]*"/g, ' timestamp="<timestamp>"');
  }
  if (!/^report\.(md|html)$|^report\/.*\.html$/.test(file)) return out;
  return out
    .replace(STATEMENT_NOTE, "<statement note>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<timestamp>")
    .replace(/\b\d+(\.\d+)?\s?(ms|s|min|h)\b/g, "<time>");
}

/** A `.bugbout/` directory's files, normalised: relative path → comparable content. */
export async function normalisedResults(
  dir: string,
  paths: Record<string, string>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const file of await listFiles(dir)) {
    const text = await Deno.readTextFile(join(dir, file));
    out[file] = file.endsWith(".json")
      ? normaliseJson(JSON.parse(text), paths, /^(matrices\/|resolutions\.json$)/.test(file))
      : normaliseText(file, text, paths);
  }
  return out;
}
