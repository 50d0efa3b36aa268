/**
 * The npm packages bugbout uses, pinned here and nowhere else. Every module imports them from this
 * file rather than by a bare name, so that bugbout imports cleanly into another project, whose
 * import map knows nothing of bugbout's; `deno.lock` pins what they resolve to.
 *
 * @module
 */

export { z } from "npm:zod@4.6.7";
export { parse as parseToml, stringify as stringifyToml, TomlError } from "npm:smol-toml@1.9.1";
