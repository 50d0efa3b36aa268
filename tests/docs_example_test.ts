import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { demoPlaybook } from "../lib/demo/agents.ts";
import { writePlaybookAgent } from "../lib/demo/playbook_agent.ts";
import { buildDemo } from "./fixtures/projects.ts";
import { startFakeGithub } from "../lib/demo/github.ts";
import { ROOT, tempDir } from "./_helpers.ts";

Deno.test("docs/examples/custom_agent.ts races an agent written in code and prints the report", async () => {
  await using dir = await tempDir("bugbout-example-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
  });
  const script = await writePlaybookAgent(
    join(dir.path, "agents"),
    demoPlaybook("fixer", fixture.fixes, fixture.github.items),
  );
  await Deno.writeTextFile(
    join(fixture.dir, "bugbout.toml"),
    `[project]\nsource = "${fixture.source}"\ngithub = "${fixture.github.repository}"\n` +
      `github-api = "${github.url}"\n\n[tasks]\nlimit = 2\n`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "docs/examples/custom_agent.ts"), fixture.dir, script],
    env: {
      BUGBOUT_HOME: join(dir.path, "home"),
      NO_COLOR: "1",
      UV_PYTHON_DOWNLOADS: "never",
      DENO_NO_UPDATE_CHECK: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  match(stdout, /^# bugbout report/m);
  // The example agent applies the real fixes: both tasks resolved.
  match(stdout, /\| my-agent \| 2 \| 2 \|/);
});
