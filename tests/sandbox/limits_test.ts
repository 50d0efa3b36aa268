/**
 * Limits on what a sandboxed command consumes, attacked for real with bounded bombs: a fork bomb
 * of up to 3,000 sleepers, a 6 GiB allocation, memory spread over several processes, a 3 GB
 * write in one file, in many files, and into the private /tmp. Each must stop at its limit, say
 * which limit it was, leave no process behind, and leave the host well under the bomb's size.
 */

import { equal, match, notEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { diskUsage, openSandbox } from "../../lib/sandbox/mod.ts";
import type { Confinement, SandboxResult } from "../../lib/sandbox/types.ts";

const sandbox = await openSandbox("bubblewrap");
const PATH = "/usr/bin:/bin";
const MIB = 1024 * 1024;

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-limits-" }));
}

/** Host processes whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      if ((await Deno.readTextFile(`/proc/${entry.name}/cmdline`)).includes(marker)) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return await check();
}

/** Run `script` with sh in a fresh working directory; `watch` runs on the host meanwhile. */
async function inSandbox(
  script: string,
  extra: Partial<Confinement>,
  watch?: () => Promise<void>,
): Promise<{ result: SandboxResult; work: string; cleanup: () => Promise<void> }> {
  const work = await tempDir();
  let running = true;
  const watching = (async () => {
    while (running && watch) {
      await watch();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    const result = await sandbox.run(["/bin/sh", "-c", script], {
      workdir: work,
      network: "none",
      env: { PATH },
      timeoutMs: 120_000,
      ...extra,
    });
    return { result, work, cleanup: () => Deno.remove(work, { recursive: true }) };
  } finally {
    running = false;
    await watching;
  }
}

/** A bounded fork bomb: up to `n` sleeping children with `marker` in their command line. */
function forkBomb(n: number, marker: string, then: "exit" | "sleep"): string {
  const code = [
    "import os, sys, time",
    "n = 0",
    `for i in range(${n}):`,
    "    try:",
    "        if os.fork() == 0:",
    "            time.sleep(600)",
    "            os._exit(0)",
    "        n += 1",
    "    except OSError:",
    "        time.sleep(0.005)",
    "print('forked', n, flush=True)",
    then === "exit" ? "os._exit(0)" : "time.sleep(600)",
  ].join("\n");
  return `exec /usr/bin/python3 -c "${code}" ${marker}`;
}

Deno.test("a fork bomb stops at the agent's process limit, and no process survives", async () => {
  const marker = `bomb-${crypto.randomUUID()}`;
  let most = 0;
  const { result, cleanup } = await inSandbox(
    forkBomb(3000, marker, "sleep"),
    { limits: { processes: 64 } },
    async () => void (most = Math.max(most, await processesWith(marker))),
  );
  try {
    equal(result.limit, "processes", result.stderr);
    equal(result.timedOut, false);
    equal(result.aborted, false);
    // bwrap's own two processes carry the command line too.
    ok(most <= 64 + 2, `${most} processes of the bomb ran on the host`);
    ok(
      await until(async () => await processesWith(marker) === 0, 20_000),
      "the bomb's processes survived",
    );
  } finally {
    await cleanup();
  }
});

Deno.test("a test session's fork bomb is capped too, without a limit being asked for", async () => {
  const marker = `bomb-${crypto.randomUUID()}`;
  const { result, cleanup } = await inSandbox(forkBomb(3000, marker, "exit"), {});
  try {
    equal(result.limit, undefined);
    const forked = Number(/forked (\d+)/.exec(result.stdout)?.[1]);
    ok(forked > 0 && forked < 1024, `forked ${forked}`);
    ok(await until(async () => await processesWith(marker) === 0, 20_000), "sleepers survived");
  } finally {
    await cleanup();
  }
});

Deno.test("a 6 GiB allocation is refused under the memory limit", async () => {
  const { result, cleanup } = await inSandbox(
    `/usr/bin/python3 -c "b = b'x' * (6 * 1024 ** 3); print('allocated')"`,
    { limits: { memoryMb: 256 } },
  );
  try {
    notEqual(result.code, 0);
    match(result.stderr, /MemoryError/);
    ok(!result.stdout.includes("allocated"));
  } finally {
    await cleanup();
  }
});

Deno.test("memory spread over several processes is stopped at the limit of all together", async () => {
  // Eight processes of 96 MiB each, touched 8 MiB at a time: 768 MiB in all against 256.
  const grow = "import time\nchunks = []\nfor i in range(12):\n" +
    "    chunks.append(b'x' * (8 * 1024 * 1024))\n    time.sleep(0.2)\ntime.sleep(600)";
  const script = `for i in 1 2 3 4 5 6 7 8; do /usr/bin/python3 -c "${grow}" & done; wait`;
  const { result, cleanup } = await inSandbox(script, { limits: { memoryMb: 256 } });
  try {
    equal(result.limit, "memory", result.stderr);
    equal(result.timedOut, false);
  } finally {
    await cleanup();
  }
});

Deno.test("a 3 GB file stops at the disk limit, and so do many smaller ones", async () => {
  const one = await inSandbox(
    "dd if=/dev/zero of=big bs=1M count=3072 2>&1; echo done",
    { limits: { diskMb: 64 } },
  );
  try {
    equal(one.result.limit, "disk", one.result.stdout);
    equal((await Deno.stat(join(one.work, "big"))).size, 64 * MIB);
  } finally {
    await one.cleanup();
  }
  // 100 files of 32 MiB (3.2 GB): the meter stops the writer soon after it passes 64 MiB.
  const many = await inSandbox(
    "for i in $(seq 100); do head -c 33554432 /dev/zero > f$i; done; sleep 600",
    { limits: { diskMb: 64 } },
  );
  try {
    equal(many.result.limit, "disk", many.result.stderr);
    equal(many.result.timedOut, false);
    const used = await diskUsage([many.work]);
    ok(used >= 64 * MIB && used < 2048 * MIB, `${used / MIB} MiB written`);
  } finally {
    await many.cleanup();
  }
});

Deno.test("the private /tmp is no bigger than the disk limit", async () => {
  // 16 MiB files, each under the file size limit: the tmpfs fills up at 32 MiB.
  const { result, cleanup } = await inSandbox(
    "for i in $(seq 100); do head -c 16777216 /dev/zero > /tmp/f$i || break; done; du -sk /tmp",
    { limits: { diskMb: 32 } },
  );
  try {
    match(result.stderr, /No space left on device/);
    const kib = Number(/^(\d+)\s+\/tmp$/m.exec(result.stdout)?.[1]);
    ok(kib > 0 && kib <= 32 * 1024 + 64, `${kib} KiB in /tmp`);
  } finally {
    await cleanup();
  }
});

Deno.test("a command within its limits runs as usual and no limit is reported", async () => {
  const { result, cleanup } = await inSandbox(
    "head -c 1048576 /dev/zero > small && /usr/bin/python3 -c 'print(sum(range(10)))'",
    { limits: { processes: 64, memoryMb: 256, diskMb: 64 } },
  );
  try {
    equal(result.code, 0, result.stderr);
    equal(result.stdout, "45\n");
    equal(result.limit, undefined);
  } finally {
    await cleanup();
  }
});
