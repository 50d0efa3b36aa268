/**
 * The shape of a schema that validates unknown data: what bugbout needs from zod, without making
 * zod's types part of the public API.
 *
 * @module
 */

/** One problem a schema found. */
export interface ValidationIssue {
  /** Machine-readable kind (`invalid_type`, `unrecognized_keys`, ...). */
  readonly code: string;
  /** Where in the value, key by key. */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in words. */
  readonly message: string;
}

/** Validates unknown data into a `T` (a zod schema is one). */
export interface Validator<T> {
  /** Check `value`; never throws. */
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly ValidationIssue[] } };
}
