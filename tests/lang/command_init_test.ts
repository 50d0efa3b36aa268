/**
 * `bugbout init` on projects no built-in language serves: a Gradle build, a Maven build and a
 * mocha package are recognised and get a `[command]` table that loads, with a note that says how
 * they are served.
 *
 * @module
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../../lib/config.ts";
import { initProject } from "../../lib/init.ts";
import { tempDir } from "../_helpers.ts";

const CASES: [string, Record<string, string>, RegExp, RegExp][] = [
  ["Gradle", { "build.gradle": "plugins { id 'java' }\n" }, /Gradle/, /gradlew/],
  ["Maven", { "pom.xml": "<project></project>\n" }, /Maven/, /surefire-reports/],
  [
    "mocha",
    { "package.json": '{"devDependencies": {"mocha": "^10.0.0"}}\n', "test/a.js": "" },
    /mocha/,
    /mocha-junit-reporter/,
  ],
];

for (const [tool, files, note, table] of CASES) {
  Deno.test(`init recognises a ${tool} project and writes a [command] table that loads`, async () => {
    await using dir = await tempDir("bugbout-init-command-");
    for (const [name, text] of Object.entries(files)) {
      await Deno.mkdir(join(dir.path, name, ".."), { recursive: true });
      await Deno.writeTextFile(join(dir.path, name), text);
    }
    const result = await initProject(dir.path, { path: "" });
    equal(result.language, "command");
    ok(result.notes.some((n) => note.test(n)), result.notes.join("\n"));
    match(result.text, table);
    const config = await parseConfig(result.text, join(dir.path, "bugbout.toml"));
    equal(config.project.language, "command");
  });
}
