import { equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { LockedError, StoreError } from "../lib/errors.ts";
import { readJson, ResultsDir, writeJsonAtomic } from "../lib/store.ts";

async function tempDir() {
  const path = await Deno.makeTempDir({ prefix: "bugbout-store-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

const schema = z.object({ kind: z.literal("thing"), n: z.number() });

Deno.test("ResultsDir creates .bugbout with a .gitignore that ignores itself", async () => {
  await using dir = await tempDir();
  const results = new ResultsDir(join(dir.path, ".bugbout"));
  await results.ensure();
  equal(await Deno.readTextFile(join(dir.path, ".bugbout", ".gitignore")), "*\n");
});

Deno.test("writeJsonAtomic leaves no temp file and readJson validates the result", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "a", "thing.json");
  await writeJsonAtomic(file, { kind: "thing", n: 3 });
  const names = [...Deno.readDirSync(join(dir.path, "a"))].map((e) => e.name);
  equal(names.join(","), "thing.json");
  equal((await readJson(file, schema))?.n, 3);
  equal(await readJson(join(dir.path, "missing.json"), schema), undefined);
});

Deno.test("readJson names a corrupt file and says what to do", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "oracles.json");
  await Deno.writeTextFile(file, '{"kind": "thing", "n": ');
  const error = await readJson(file, schema).catch((e) => e);
  ok(error instanceof StoreError);
  match(error.message, /oracles\.json is corrupt: it is not valid JSON/);
  match(error.hint!, /Delete it and run again/);
});

Deno.test("readJson names a foreign file and the field that is wrong", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "tasks.json");
  await Deno.writeTextFile(file, JSON.stringify({ kind: "other", n: "x" }));
  await rejects(readJson(file, schema, "mined tasks"), (e: Error) => {
    ok(e instanceof StoreError);
    match(e.message, /tasks\.json is not a file of mined tasks that this bugbout can read: kind/);
    return true;
  });
});

Deno.test("lock refuses politely while another live bugbout holds it", async () => {
  await using dir = await tempDir();
  const results = new ResultsDir(join(dir.path, ".bugbout"));
  await results.ensure();
  // A live process (not us) holds the lock.
  const child = new Deno.Command("sleep", { args: ["30"], stdout: "null", stderr: "null" }).spawn();
  try {
    await Deno.writeTextFile(
      results.file("lock"),
      JSON.stringify({ pid: child.pid, started: null }),
    );
    await rejects(results.lock(), (e: Error) => {
      ok(e instanceof LockedError);
      match(e.message, new RegExp(`Another bugbout \\(pid ${child.pid}\\) is using`));
      return true;
    });
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
});

Deno.test("lock takes over a stale lock left by a killed process", async () => {
  await using dir = await tempDir();
  const results = new ResultsDir(join(dir.path, ".bugbout"));
  await results.ensure();
  const child = new Deno.Command("sleep", { args: ["30"], stdout: "null", stderr: "null" }).spawn();
  await Deno.writeTextFile(results.file("lock"), JSON.stringify({ pid: child.pid, started: null }));
  child.kill("SIGKILL");
  await child.status;
  const lock = await results.lock();
  const held = JSON.parse(await Deno.readTextFile(results.file("lock")));
  equal(held.pid, Deno.pid);
  await lock.release();
  await rejects(Deno.lstat(results.file("lock")));
});
