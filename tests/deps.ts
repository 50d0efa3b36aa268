/**
 * The npm packages only the tests use, pinned here and nowhere else (as `lib/deps.ts` pins
 * bugbout's own).
 *
 * @module
 */

export { parse as parseYaml } from "npm:yaml@2.9.1";
