/**
 * Write `docs/report.schema.json` from the report's zod schema (the one source of truth):
 * `deno run -A tests/report/write_schema.ts`. `schema_test.ts` fails when the file is stale.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { reportJsonSchema } from "../../lib/report/schema.ts";

/** Where the schema lives in the repository. */
export const SCHEMA_PATH = fileURLToPath(new URL("../../docs/report.schema.json", import.meta.url));

/** The file's text: the schema, indented, with a final newline. */
export function schemaText(): string {
  return JSON.stringify(reportJsonSchema(), null, 2) + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(SCHEMA_PATH, schemaText());
}
