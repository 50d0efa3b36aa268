/**
 * The JUnit XML of every contestant validates with xmllint against the Jenkins/Ant junit-10.xsd
 * (vendored in tests/fixtures/junit/, see SOURCE.md), hostile text and characters XML cannot hold
 * included; its counts and failures are the scoring's.
 *
 * @module
 */

import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { junitFiles } from "../../lib/report/junit.ts";
import type { Resolution } from "../../lib/records.ts";
import { fixtureInput } from "./fixture.ts";

const XSD = join(import.meta.dirname!, "..", "fixtures", "junit", "junit-10.xsd");

async function xmllint(file: string): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command("xmllint", {
    args: ["--noout", "--schema", XSD, file],
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

function hostileInput() {
  const input = fixtureInput();
  const resolutions = structuredClone(input.resolutions) as Record<string, Resolution>;
  for (const r of Object.values(resolutions)) {
    for (const score of Object.values(r.patches)) {
      score.failures = Object.fromEntries(
        [...score.failToPass.failing, ...score.passToPass.failing].map((id) => [id, {
          message: `boom "quoted" <b>&</b> \u0001\u001b[31m`,
          traceback: `E   assert ]]> <script>x</script>\u0000\uFFFE end`,
        }]),
      );
    }
  }
  return { ...input, resolutions };
}

Deno.test("every contestant's JUnit XML validates against junit-10.xsd, hostile text included", async () => {
  const input = hostileInput();
  const files = junitFiles(input);
  equal(files.size, input.agents.filter((a) => a.role === "contestant").length);
  const dir = await Deno.makeTempDir({ prefix: "bugbout-junit-" });
  try {
    for (const [agent, xml] of files) {
      const file = join(dir, `${agent}.xml`);
      await Deno.writeTextFile(file, xml);
      const result = await xmllint(file);
      equal(result.code, 0, `${agent}: ${result.stderr}`);
      ok(!xml.includes("<script>"), "markup is escaped");
      ok(
        !["\u0000", "\u0001", "\u001b", "\uFFFE"].some((c) => xml.includes(c)),
        "characters XML 1.0 cannot hold are dropped",
      );
    }
    // claude broke a pass-to-pass test on issue-11: one failure there, with its traceback.
    const claude = files.get("claude")!;
    const issue11 = claude.slice(
      claude.indexOf(`name="issue-11"`),
      claude.indexOf("</testsuite>", claude.indexOf(`name="issue-11"`)),
    );
    equal((issue11.match(/<failure /g) ?? []).length, 1);
    ok(
      issue11.includes(
        `<failure type="pass-to-pass" message="boom &quot;quoted&quot; &lt;b&gt;&amp;&lt;/b&gt;`,
      ),
    );
    ok(issue11.includes("E   assert ]]&gt; &lt;script&gt;x&lt;/script&gt; end"));
    // A task that is not scored has its tests skipped, saying why.
    ok(claude.includes(`<skipped message="not scored`), claude.slice(0, 400));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("xmllint with junit-10.xsd refuses what is not JUnit (the check can fail)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bugbout-junit-" });
  try {
    const file = join(dir, "bad.xml");
    await Deno.writeTextFile(
      file,
      `<testsuites><testsuite name="x"><testcase/></testsuite></testsuites>`,
    );
    const result = await xmllint(file);
    ok(result.code !== 0, "a suite without tests= and a case without name= are refused");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
