/**
 * The bugbout version (kept in step with `deno.json`).
 *
 * @module
 */

/** The bugbout version. */
export const VERSION = "0.2.0";
