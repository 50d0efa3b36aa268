import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../lib/proc.ts";
import { writePlaybookAgent } from "../../lib/demo/playbook_agent.ts";

Deno.test("a playbook agent edits the working copy for the matching issue only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const work = join(dir, "work");
    await Deno.mkdir(join(work, "pkg"), { recursive: true });
    await Deno.writeTextFile(join(work, "pkg/a.py"), "def f(x):\n    return x[0]\n");
    const script = await writePlaybookAgent(join(dir, "agents"), {
      name: "careful",
      entries: [
        { match: "unrelated issue", steps: [{ delete: "pkg/a.py" }], summary: "no" },
        {
          match: "crashes on empty",
          steps: [
            { replace: "pkg/a.py", old: "return x[0]", new: "return x[0] if x else None" },
            { write: "tests/test_empty.py", content: "def test_empty():\n    pass\n" },
          ],
          summary: "Guarded the empty case.",
        },
      ],
    });
    await Deno.writeTextFile(join(dir, "prompt.txt"), "Issue: f crashes on empty lists");
    const result = await run(["python3", script, join(dir, "prompt.txt")], { cwd: work });
    match(result.stdout, /scripted agent 'careful'/);
    match(result.stdout, /Guarded the empty case/);
    equal(
      await Deno.readTextFile(join(work, "pkg/a.py")),
      "def f(x):\n    return x[0] if x else None\n",
    );
    equal(
      await Deno.readTextFile(join(work, "tests/test_empty.py")),
      "def test_empty():\n    pass\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
