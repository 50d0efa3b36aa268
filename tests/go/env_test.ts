import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { BugboutError } from "../../lib/errors.ts";
import { compareGoVersions, detectGo, findGo, parseGoMod } from "../../lib/lang/go/mod.ts";
import { GO_MOD } from "../fixtures/go_project.ts";
import { fixtureEnv, runner, runTree, tempDir, writeFiles, writeModule } from "./_shared.ts";

Deno.test("detectGo() recognises a go.mod at the root, with its module and Go version", async () => {
  await using tmp = await tempDir();
  equal(await detectGo(tmp.path), undefined);
  await writeFiles(tmp.path, { "go.mod": GO_MOD });
  deepEqual(await detectGo(tmp.path), {
    language: "go",
    runner: "go test",
    evidence: "go.mod (module example.com/shelf, go 1.22)",
  });
});

Deno.test("parseGoMod() reads module, go and toolchain lines; compareGoVersions() orders versions", () => {
  deepEqual(
    parseGoMod('// x\nmodule "example.com/a" // the module\n\ngo 1.22.3\ntoolchain go1.23.0\n'),
    { module: "example.com/a", go: "1.22.3", toolchain: "go1.23.0" },
  );
  equal(parseGoMod("go 1.22\n"), undefined);
  ok(compareGoVersions("go1.26.8", "1.22") > 0);
  ok(compareGoVersions("go1.26.8", "1.27") < 0);
  equal(compareGoVersions("go1.22.0", "1.22"), 0);
  ok(compareGoVersions("1.23rc1", "1.22.9") > 0);
});

Deno.test("findGo() says what to install when go is missing", async () => {
  const error = await findGo("/nonexistent/bin/go").catch((e) => e);
  ok(error instanceof BugboutError);
  equal(error.message, "Cannot test a Go module: go is not installed or not on PATH.");
  ok(error.hint?.includes("https://go.dev/dl/"));
});

Deno.test("prepare() refuses a module that asks for a newer Go, and a tree without go.mod", async () => {
  await using tmp = await tempDir();
  await writeFiles(tmp.path, { "go.mod": "module example.com/future\n\ngo 1.99\n" });
  await rejects(
    runner.prepare(tmp.path, join(tmp.path, "cache")),
    (e: BugboutError) => e.message.includes("asks for go 1.99") && !!e.hint?.includes("1.99"),
  );
  await using empty = await tempDir();
  await rejects(runner.prepare(empty.path, join(tmp.path, "cache")), /has no go\.mod/);
});

Deno.test("prepare() builds once per dependency set and reuses it, readable by the sandbox's user", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "go.mod": "module example.com/tiny\n\ngo 1.22\n",
    "tiny.go": "package tiny\n\nconst N = 1\n",
  });
  const cache = join(tmp.path, "cache");
  const first = await runner.prepare(tree, cache);
  equal(first.describe.replace(/go[\d.]+/, "goX"), "goX, 0 modules");
  equal(first.env.GOPROXY, "off");
  equal(first.env.GOTOOLCHAIN, "local");
  const dir = join(cache, `go-${first.key}`);
  const manifest = await Deno.readTextFile(join(dir, "bugbout-go-env.json"));
  for (const path of [dir, first.env.GOMODCACHE]) {
    equal((await Deno.stat(path)).mode! & 0o755, 0o755, path);
  }
  // A tree at another commit with the same go.mod is the same environment, not built again.
  await Deno.writeTextFile(join(tree, "tiny.go"), "package tiny\n\nconst N = 2\n");
  const second = await runner.prepare(tree, cache);
  deepEqual(second, first);
  equal(await Deno.readTextFile(join(dir, "bugbout-go-env.json")), manifest);
  // Another go.mod is another environment.
  await Deno.writeTextFile(join(tree, "go.mod"), "module example.com/tiny\n\ngo 1.23\n");
  const third = await runner.prepare(tree, cache);
  ok(third.key !== first.key);
});

Deno.test("prepare() leaves a warm build cache: the fixture's environment holds compiled std", async () => {
  const env = await fixtureEnv();
  let entries = 0;
  for await (const _ of Deno.readDir(env.env.GOCACHE)) entries++;
  ok(entries > 16, `GOCACHE has ${entries} entries`);
  deepEqual(env.readable, [env.env.GOROOT, env.env.GOMODCACHE]);
});

Deno.test("run() never reaches the network: a module missing from the cache is a build error", async () => {
  await using tmp = await tempDir();
  const tree = await writeModule(tmp.path, {
    "go.mod": GO_MOD + "\nrequire golang.org/x/text v0.3.0\n",
    "p/p_test.go": `package p

import (
	"testing"

	_ "golang.org/x/text/language"
)

func TestP(t *testing.T) {}
`,
  });
  const run = await runTree(tree, [["p/TestP"]]);
  equal(run.outcomes["p/TestP"], "error");
  ok(
    /GOPROXY=off|missing go\.sum|module lookup disabled/.test(run.failures?.["p/TestP"] ?? ""),
    run.failures?.["p/TestP"],
  );
});
