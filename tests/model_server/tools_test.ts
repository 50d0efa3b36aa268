import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../lib/proc.ts";
import { callFor, type OfferedTool, offeredTool, shellCall, shellFor } from "./tools.ts";

const str = { type: "string" };
const fn = (name: string, props: Record<string, unknown>, required: string[] = []) =>
  offeredTool(name, "function", { type: "object", properties: props, required });

const CODEX = [fn("exec_command", { cmd: str, justification: str }, ["cmd"])];
const CLAUDE = [
  fn("Bash", { command: str, description: str }, ["command"]),
  fn("Read", { file_path: str }, ["file_path"]),
  fn("Write", { file_path: str, content: str }, ["file_path", "content"]),
  fn("Edit", { file_path: str, old_string: str, new_string: str }, [
    "file_path",
    "old_string",
    "new_string",
  ]),
];
const COPILOT = [
  fn(
    "bash",
    { command: str, description: str, mode: { type: "string", enum: ["sync", "async"] } },
    [
      "command",
      "description",
      "mode",
    ],
  ),
  fn("view", { path: str }, ["path"]),
  fn("create", { path: str, file_text: str }, ["path", "file_text"]),
  fn("edit", { path: str, old_str: str, new_str: str }, ["path", "old_str", "new_str"]),
];

Deno.test("callFor() runs commands with codex's exec_command and its cmd argument", () => {
  assertEquals(callFor({ kind: "run", command: "ls" }, CODEX), {
    name: "exec_command",
    args: { cmd: "ls" },
  });
});

Deno.test("callFor() passes an argv array when the shell tool's command is an array", () => {
  const shell = [fn("shell", { command: { type: "array" } }, ["command"])];
  assertEquals(callFor({ kind: "run", command: "ls -l" }, shell)?.args, {
    command: ["bash", "-lc", "ls -l"],
  });
});

Deno.test("callFor() uses Claude's Read, Write and Edit with absolute paths under cwd", () => {
  assertEquals(callFor({ kind: "read", path: "a.py" }, CLAUDE, "/w"), {
    name: "Read",
    args: { file_path: "/w/a.py" },
  });
  assertEquals(callFor({ kind: "write", path: "a.py", content: "x\n" }, CLAUDE, "/w/"), {
    name: "Write",
    args: { file_path: "/w/a.py", content: "x\n" },
  });
  assertEquals(callFor({ kind: "edit", path: "/abs/a.py", old: "a", new: "b" }, CLAUDE), {
    name: "Edit",
    args: { file_path: "/abs/a.py", old_string: "a", new_string: "b" },
  });
});

Deno.test("callFor() fills copilot's required arguments and uses its create/edit spelling", () => {
  assertEquals(callFor({ kind: "run", command: "ls" }, COPILOT), {
    name: "bash",
    args: { command: "ls", description: "Scripted step", mode: "sync" },
  });
  assertEquals(callFor({ kind: "write", path: "f", content: "c" }, COPILOT, "/w")?.args, {
    path: "/w/f",
    file_text: "c",
  });
  assertEquals(callFor({ kind: "edit", path: "f", old: "o", new: "n" }, COPILOT, "/w")?.args, {
    path: "/w/f",
    old_str: "o",
    new_str: "n",
  });
});

Deno.test("callFor() falls back to the shell for a relative path without cwd", () => {
  const call = callFor({ kind: "write", path: "a.py", content: "x = 1\n" }, CLAUDE);
  assertEquals(call?.name, "Bash");
  assert(String(call?.args.command).includes("cat > 'a.py' <<'BUGBOUT_EOF'"));
});

Deno.test("callFor() gives undefined when no usable tool is offered", () => {
  const only: OfferedTool[] = [offeredTool("web_search", "builtin", undefined)];
  assertEquals(callFor({ kind: "run", command: "ls" }, only), undefined);
  assertEquals(shellCall([], "ls"), undefined);
});

Deno.test("shellFor() writes and edits files exactly when bash runs it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cases = [
      { path: "sub/one.py", content: 'it\'s "quoted" $HOME `x`\n' },
      { path: "two.txt", content: "no trailing newline\nBUGBOUT_EOF" },
    ];
    for (const c of cases) {
      await run(["bash", "-c", shellFor({ kind: "write", ...c })], { cwd: dir });
      assertEquals(await Deno.readTextFile(join(dir, c.path)), c.content);
    }
    const edit = shellFor({ kind: "edit", path: "sub/one.py", old: "it's", new: "it isn't" });
    await run(["bash", "-c", edit], { cwd: dir });
    assertEquals(
      await Deno.readTextFile(join(dir, "sub/one.py")),
      'it isn\'t "quoted" $HOME `x`\n',
    );
    const missing = shellFor({ kind: "edit", path: "two.txt", old: "absent", new: "x" });
    const result = await run(["bash", "-c", missing], { cwd: dir, okCodes: "any" });
    assert(result.code !== 0, "an edit of text that is not there must fail");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("offeredTool() normalises upper-case and nullable schema types", () => {
  const tool = offeredTool("t", "function", {
    properties: { a: { type: "STRING" }, b: { type: ["null", "integer"] } },
    required: ["a", 3],
  });
  assertEquals(tool.properties.a.type, "string");
  assertEquals(tool.properties.b.type, "integer");
  assertEquals(tool.required, ["a"]);
});
