import { deepStrictEqual as assertEquals, ok as assert, throws } from "node:assert/strict";
import { join } from "node:path";
import {
  expandHome,
  hostPort,
  jsonLines,
  probeVersion,
  substitute,
  sumUsage,
} from "../../adapters/_common.ts";
import { ConfigError } from "../../lib/errors.ts";
import { tempDir } from "./_helpers.ts";

Deno.test("hostPort() gives host:port with the scheme's default port", () => {
  const cases: [string, string][] = [
    ["https://api.openai.com/v1", "api.openai.com:443"],
    ["http://127.0.0.1:8080/v1", "127.0.0.1:8080"],
    ["http://localhost", "localhost:80"],
    ["https://gw.example.com:8443/openai", "gw.example.com:8443"],
    ["http://[::1]:11434", "[::1]:11434"],
  ];
  for (const [url, want] of cases) assertEquals(hostPort(url), want, url);
  throws(() => hostPort("not a url"), ConfigError);
  throws(() => hostPort("file:///tmp/x"), ConfigError);
});

Deno.test("substitute() fills known placeholders and leaves other braces alone", () => {
  const values = { prompt: "Fix {it}", logdir: "/l" };
  assertEquals(
    substitute("--log={logdir}/x --p={prompt} {unknown} {}", values),
    "--log=/l/x --p=Fix {it} {unknown} {}",
  );
});

Deno.test("expandHome() expands only a leading ~", () => {
  assertEquals(expandHome("~/.aider", "/home/ada"), "/home/ada/.aider");
  assertEquals(expandHome("~", "/home/ada"), "/home/ada");
  assertEquals(expandHome("/etc/~x", "/home/ada"), "/etc/~x");
});

Deno.test("jsonLines() keeps the objects and skips cut-off and plain lines", () => {
  const text = 'ed":1}\n{"a":1}\nWARNING: hi\n[1,2]\n  {"b":{"c":2}}  \n{"broken":\n';
  assertEquals(jsonLines(text), [{ a: 1 }, { b: { c: 2 } }]);
});

Deno.test("sumUsage() adds field by field and leaves unreported fields out", () => {
  assertEquals(sumUsage([{ input: 1, output: 2 }, undefined, { input: 3, reasoning: 1 }]), {
    input: 4,
    output: 2,
    reasoning: 1,
  });
  assertEquals(sumUsage([undefined]), undefined);
});

Deno.test("probeVersion() reads the version a program prints and ignores a missing one", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "fake-agent");
  await Deno.writeTextFile(script, '#!/bin/sh\necho "fake-agent v$((1+1)).10.3 (build)"\n');
  await Deno.chmod(script, 0o755);
  assertEquals(await probeVersion([script, "--version"]), "2.10.3");
  assertEquals(await probeVersion([join(dir.path, "absent"), "--version"]), undefined);
  const failing = join(dir.path, "failing");
  await Deno.writeTextFile(failing, "#!/bin/sh\necho 1.2.3; exit 3\n");
  await Deno.chmod(failing, 0o755);
  assert((await probeVersion([failing])) === undefined);
});
