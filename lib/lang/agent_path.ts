/**
 * The `PATH` of an agent's sandbox as the languages' test environments make it.
 *
 * Pure; no permissions.
 *
 * @module
 */

/** Directories every sandbox's `PATH` ends with; the environment's own come before them. */
export const SYSTEM_PATH: readonly string[] = ["/usr/local/bin", "/usr/bin", "/bin"];

/** The directories of `PATH` that are not the system's. */
export function ownPath(path: string | undefined): string[] {
  return (path ?? "").split(":").filter((p) => p && !SYSTEM_PATH.includes(p));
}
