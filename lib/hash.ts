/**
 * Stable hashes of the inputs that produced a unit of work, so a resumed bout can tell whether a
 * saved result still applies.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** JSON with object keys sorted, so equal values always serialise the same way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]));
    }
    return v;
  });
}

/** A short hex digest of any JSON-able value. */
export function inputsKey(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
}

/** A file-system-safe slug of a name such as `codex/gpt-5.1` (reversible enough to read). */
export function slug(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_").slice(0, 120);
}
