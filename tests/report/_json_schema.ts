/**
 * A validator for the subset of JSON Schema (draft 2020-12) that `docs/report.schema.json` uses,
 * so a test can check a report against the file on disk, not only against the zod schema it came
 * from. A keyword outside the subset is an error, never silently ignored.
 *
 * @module
 */

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(["$schema", "$id", "id", "title", "description", "$defs"]);
const KEYWORDS = new Set([
  "$ref",
  "type",
  "const",
  "enum",
  "minimum",
  "maximum",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
]);

/** Every place where `value` does not match `schema`, as "path: problem" lines (none: valid). */
export function validate(schema: Schema, value: unknown): string[] {
  const errors: string[] = [];
  check(schema, schema, value, "$", errors);
  return errors;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(want: string, value: unknown): boolean {
  const got = typeOf(value);
  return want === got || (want === "number" && got === "integer");
}

function check(root: Schema, schema: Schema, value: unknown, path: string, errors: string[]) {
  for (const key of Object.keys(schema)) {
    if (!ANNOTATIONS.has(key) && !KEYWORDS.has(key)) {
      throw new Error(`Cannot validate ${path}: keyword "${key}" is outside the supported subset`);
    }
  }
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace(/^#\/\$defs\//, "");
    const target = (root.$defs as Record<string, Schema> | undefined)?.[name];
    if (!target) throw new Error(`Cannot resolve ${schema.$ref} at ${path}`);
    check(root, target, value, path, errors);
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(String(t), value))) {
      errors.push(`${path}: expected ${types.join(" or ")}, got ${typeOf(value)}`);
      return;
    }
  }
  if ("const" in schema && schema.const !== value) {
    errors.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      errors.push(`${path}: ${value} < ${schema.minimum}`);
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      errors.push(`${path}: ${value} > ${schema.maximum}`);
    }
  }
  if (Array.isArray(schema.anyOf)) {
    const fits = schema.anyOf.some((option) => {
      const sub: string[] = [];
      check(root, option as Schema, value, path, sub);
      return sub.length === 0;
    });
    if (!fits) errors.push(`${path}: matches none of anyOf`);
  }
  if (typeOf(value) === "array" && schema.items) {
    (value as unknown[]).forEach((item, i) =>
      check(root, schema.items as Schema, item, `${path}[${i}]`, errors)
    );
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in object)) errors.push(`${path}: missing ${key}`);
    }
    for (const [key, item] of Object.entries(object)) {
      if (properties[key]) check(root, properties[key], item, `${path}.${key}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected ${key}`);
      else if (typeof schema.additionalProperties === "object") {
        check(root, schema.additionalProperties as Schema, item, `${path}.${key}`, errors);
      }
    }
  }
}
