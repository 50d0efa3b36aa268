/**
 * Scripted agents for bouts on Go and JavaScript projects.
 *
 * @module
 */

import { join } from "node:path";
import type { Playbook } from "../../lib/demo/playbook_agent.ts";

export type { Playbook };

/**
 * A scripted agent as a shell script (a Go project's sandbox has no Python to run the demo's
 * playbook agent with): the first entry whose text the prompt holds writes its files.
 */
export async function writeShellAgent(dir: string, book: Playbook): Promise<string> {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const lines = ["#!/bin/sh", `echo "[scripted agent '${book.name}': a fixed playbook, no model]"`];
  for (const entry of book.entries) {
    lines.push(`if grep -qF ${quote(entry.match)} "$1"; then`);
    for (const step of entry.steps) {
      if (!("write" in step)) throw new Error("only writes");
      lines.push(`  mkdir -p "$(dirname ${quote(step.write)})"`);
      lines.push(`  printf '%s' ${quote(step.content)} > ${quote(step.write)}`);
    }
    lines.push(`  echo ${quote(entry.summary)}`, "  exit 0", "fi");
  }
  lines.push('echo "No playbook entry matches this issue; changed nothing."');
  await Deno.mkdir(dir, { recursive: true });
  const file = join(dir, `${book.name}.sh`);
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  return file;
}

/** The `[[contestants]]` (or `[[examiners]]` for `examiner`) tables of shell agents. */
export async function agentTables(dir: string, books: Record<string, Playbook>): Promise<string> {
  const tables: string[] = [];
  for (const [name, book] of Object.entries(books)) {
    const script = await writeShellAgent(dir, book);
    const table = name === "examiner" ? "examiners" : "contestants";
    tables.push(
      `[[${table}]]\nagent = "command"\nname = "${name}"\nvendor = "scripted-${name}"\n` +
        `command = ["sh", ${JSON.stringify(script)}, "{prompt_file}"]\n`,
    );
  }
  return tables.join("\n");
}
