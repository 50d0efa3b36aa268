/**
 * The CLI's standard streams as a real process sees them: a pipe gets every byte of a large
 * write, and a reader that goes away (`bugbout tasks | head -1`) ends the output quietly.
 */

import { equal as assertEquals, ok as assert } from "node:assert/strict";

const writer = `
import { processIo } from ${JSON.stringify(new URL("../../lib/cli/io.ts", import.meta.url).href)};
const io = processIo();
const line = "x".repeat(1 << 16);
for (let i = 0; i < 64; i++) io.out(line);
io.err("finished");
`;

function spawn(): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", writer],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("processIo: a pipe receives every byte of a large output", async () => {
  const child = spawn();
  const [out, err, status] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  assertEquals(status.code, 0, err);
  assertEquals(out.byteLength, 64 * ((1 << 16) + 1));
  assertEquals(err.trim(), "finished");
});

Deno.test("processIo: a reader that goes away ends the output quietly, not with an error", async () => {
  const child = spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert(!first.done && first.value.length > 0);
  await reader.cancel();
  const [err, status] = await Promise.all([new Response(child.stderr).text(), child.status]);
  assertEquals(status.code, 0, err);
  assertEquals(err.trim(), "finished");
});
