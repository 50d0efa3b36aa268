/**
 * The paths of a patch as the runner's review reads them (see `../testbed/reviewed.ts`).
 *
 * Pure; no permissions needed.
 *
 * @module
 */

export { reviewedPaths } from "../testbed/mod.ts";
