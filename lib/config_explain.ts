/**
 * Messages for a `bugbout.toml` that does not validate: each zod issue becomes one sentence naming
 * the file, the table and the key, what was expected and what was found, with the closest known key
 * for a misspelt one.
 *
 * @module
 */

import { z } from "./deps.ts";
import { closest } from "./suggest.ts";

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array (${JSON.stringify(value).slice(0, 40)})`;
  if (value instanceof Date) return `a date (${value.toISOString().slice(0, 10)})`;
  if (typeof value === "object") return "a table";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `the ${typeof value} ${String(value)}`;
}

function expectedType(expected: string): string {
  const words: Record<string, string> = {
    number: "a number",
    int: "an integer",
    string: "a string",
    boolean: "true or false",
    array: "an array",
    object: "a table",
    record: "a table",
    date: "a date",
  };
  return words[expected] ?? expected;
}

function tableName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "the top level";
  const [head, index] = path;
  if ((head === "contestants" || head === "examiners") && typeof index === "number") {
    return `[[${head}]] entry ${index + 1}`;
  }
  return `[${path.filter((p) => typeof p === "string").join(".")}]`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = data;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** The keys a (possibly nested) object schema accepts at `path`. */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: z.ZodType | undefined = schema;
  for (const key of path) {
    at = unwrap(at);
    if (at instanceof z.ZodObject) at = at.shape[key as string];
    else return [];
  }
  at = unwrap(at);
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let at = schema;
  while (at instanceof z.ZodDefault || at instanceof z.ZodOptional) {
    at = at.unwrap() as z.ZodType;
  }
  return at;
}

/**
 * The key of `table` that is none of `known` and reads like a misspelling of `key` (which is
 * missing), or undefined.
 */
export function misspeltKey(
  key: string,
  table: Record<string, unknown>,
  known: readonly string[],
): string | undefined {
  return Object.keys(table).find((k) => !known.includes(k) && closest(k, known) === key);
}

/**
 * The end of a "missing key" sentence when `table` has a misspelling of `key`: `; "sourse" is not
 * a key: did you mean "source"?`, else "".
 */
export function misspeltAs(
  key: string,
  table: Record<string, unknown>,
  known: readonly string[],
): string {
  const found = misspeltKey(key, table, known);
  return found ? `; "${found}" is not a key: did you mean "${key}"?` : "";
}

/**
 * Turn zod issues on `data` into one message per problem, in words a person can act on. A
 * required key that is missing beside a misspelling of it is one message, not two.
 */
export function explain(
  file: string,
  data: unknown,
  schema: z.ZodType,
  issues: z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): string[] {
  // Misspellings that a missing key's message names, by the table they are in.
  const named = new Set<string>();
  const tableKey = (path: readonly PropertyKey[], key: string) =>
    JSON.stringify([...path.map(String), key]);
  const missing = new Map<z.core.$ZodIssue, string>();
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code !== "invalid_type" || valueAt(data, path) !== undefined) continue;
    const table = valueAt(data, path.slice(0, -1));
    if (table === null || typeof table !== "object" || Array.isArray(table)) continue;
    const known = knownKeys(schema, issue.path.slice(0, -1));
    const key = String(path[path.length - 1] ?? "");
    const found = misspeltKey(key, table as Record<string, unknown>, known);
    if (!found) continue;
    named.add(tableKey(path.slice(0, -1), found));
    missing.set(issue, misspeltAs(key, table as Record<string, unknown>, known));
  }
  return issues.map((issue) => {
    const path = [...prefix, ...issue.path];
    const where = tableName(path.slice(0, -1));
    const key = String(path[path.length - 1] ?? "");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.filter((k) => !named.has(tableKey(path, k))).map((k) => {
        const hint = closest(k, knownKeys(schema, issue.path));
        return `${file}: unknown key "${k}" in ${tableName(path)}` +
          (hint ? `; did you mean "${hint}"?` : ".");
      }).join("\n");
    }
    const value = valueAt(data, path);
    if (issue.code === "invalid_type") {
      if (value === undefined) {
        return `${file}: ${where} is missing the required key "${key}"${missing.get(issue) || "."}`;
      }
      return `${file}: ${where} ${key}: expected ${expectedType(issue.expected)}, found ${
        describeValue(value)
      }.`;
    }
    if (issue.code === "invalid_value") {
      const options = issue.values.map((v) => JSON.stringify(v)).join(", ");
      return `${file}: ${where} ${key}: expected one of ${options}, found ${describeValue(value)}.`;
    }
    return `${file}: ${where} ${key}: ${issue.message} (found ${describeValue(value)}).`;
  }).filter((message) => message !== "");
}
