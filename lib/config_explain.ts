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

/** Turn zod issues on `data` into one message per problem, in words a person can act on. */
export function explain(
  file: string,
  data: unknown,
  schema: z.ZodType,
  issues: z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): string[] {
  return issues.map((issue) => {
    const path = [...prefix, ...issue.path];
    const where = tableName(path.slice(0, -1));
    const key = String(path[path.length - 1] ?? "");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((k) => {
        const hint = closest(k, knownKeys(schema, issue.path));
        return `${file}: unknown key "${k}" in ${tableName(path)}` +
          (hint ? `; did you mean "${hint}"?` : ".");
      }).join("\n");
    }
    const value = valueAt(data, path);
    if (issue.code === "invalid_type") {
      if (value === undefined) return `${file}: ${where} is missing the required key "${key}".`;
      return `${file}: ${where} ${key}: expected ${expectedType(issue.expected)}, found ${
        describeValue(value)
      }.`;
    }
    if (issue.code === "invalid_value") {
      const options = issue.values.map((v) => JSON.stringify(v)).join(", ");
      return `${file}: ${where} ${key}: expected one of ${options}, found ${describeValue(value)}.`;
    }
    return `${file}: ${where} ${key}: ${issue.message} (found ${describeValue(value)}).`;
  });
}
