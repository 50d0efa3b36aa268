import { deepEqual, equal, notEqual, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { NotInstalledError, run } from "../../lib/proc.ts";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import { toolchainMounts, toolchainPaths } from "../../lib/sandbox/toolchain.ts";
import type { Confinement } from "../../lib/sandbox/types.ts";

const sandbox = await openSandbox("bubblewrap");
const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

/** The real interpreter behind `python3` on PATH, and its base prefix. */
async function hostPython(): Promise<{ exe: string; base: string }> {
  const out = await run([
    "python3",
    "-c",
    "import os, sys; print(os.path.realpath(sys.executable)); print(sys.base_prefix)",
  ]);
  const [exe, base] = out.stdout.trim().split("\n");
  return { exe, base: await Deno.realPath(base) };
}

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-toolchain-" }));
}

function confined(workdir: string, readable: string[]): Confinement {
  return {
    workdir,
    readable,
    network: "none",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 30_000,
  };
}

Deno.test("toolchainPaths gives a Python its prefix, and the sandbox can then run it", async () => {
  const { exe, base } = await hostPython();
  const paths = await toolchainPaths(exe);
  ok(paths.includes(base), `${base} missing from ${paths}`);
  const work = await tempDir();
  try {
    const argv = [exe, "-c", "import sys, json; print(sys.base_prefix)"];
    const inside = await sandbox.run(argv, confined(work, paths));
    equal(inside.code, 0, inside.stderr);
    equal(inside.stdout.trim(), base);
    if (!base.startsWith("/usr/")) {
      const without = await sandbox.run(argv, confined(work, []));
      notEqual(without.code, 0, "an interpreter outside /usr ran without being mounted");
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("toolchainPaths follows a console script's #! into its virtual environment", async () => {
  const { exe, base } = await hostPython();
  const dir = await tempDir();
  try {
    const venv = join(dir, "venv");
    await run([exe, "-m", "venv", "--without-pip", venv]);
    const script = join(venv, "bin", "hello");
    await Deno.writeTextFile(
      script,
      `#!${venv}/bin/python\nimport sys\nprint("hello from", sys.prefix)\n`,
      { mode: 0o755 },
    );
    const paths = await toolchainPaths(script);
    ok(paths.includes(venv), `${venv} missing from ${paths}`);
    ok(paths.includes(base), `${base} missing from ${paths}`);
    const work = join(dir, "work");
    await Deno.mkdir(work);
    const inside = await sandbox.run([script], confined(work, paths));
    equal(inside.stdout.trim(), `hello from ${venv}`, inside.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A global-style npm prefix: `bin/tool -> ../lib/node_modules/@acme/tool/bin/tool.js`. */
async function fakeNodePackage(dir: string, manifest: Record<string, unknown>) {
  const pkg = join(dir, "lib", "node_modules", "@acme", "tool");
  await Deno.mkdir(join(pkg, "bin"), { recursive: true });
  await Deno.mkdir(join(dir, "bin"));
  await Deno.writeTextFile(join(pkg, "package.json"), JSON.stringify(manifest));
  await Deno.writeTextFile(join(pkg, "lib.js"), "module.exports = 'from the package';\n");
  await Deno.writeTextFile(
    join(pkg, "bin", "tool.js"),
    "#!/usr/bin/env node\nconsole.log(require('../lib.js'));\n",
    { mode: 0o755 },
  );
  await Deno.symlink("../lib/node_modules/@acme/tool/bin/tool.js", join(dir, "bin", "tool"));
  return { pkg, bin: join(dir, "bin", "tool") };
}

Deno.test("toolchainPaths gives a node script its package directory and node", async () => {
  const dir = await tempDir();
  try {
    const { pkg, bin } = await fakeNodePackage(dir, { name: "@acme/tool" });
    const paths = await toolchainPaths(bin, { path: PATH });
    ok(paths.includes(pkg), `${pkg} missing from ${paths}`);
    ok(paths.includes(join(dir, "bin")), "the link's directory is missing");
    const node = await Deno.realPath((await run(["sh", "-c", "command -v node"])).stdout.trim());
    ok(paths.some((p) => node.startsWith(p + "/")), `no mount holds ${node}: ${paths}`);
    const work = join(dir, "work");
    await Deno.mkdir(work);
    const inside = await sandbox.run(["/usr/bin/env", "node", bin], {
      ...confined(work, paths),
      env: { PATH },
    });
    equal(inside.stdout.trim(), "from the package", inside.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolchainPaths takes the whole node_modules when dependencies were hoisted", async () => {
  const dir = await tempDir();
  try {
    const { bin } = await fakeNodePackage(dir, { dependencies: { leftpad: "1" } });
    const paths = await toolchainPaths(bin, { path: PATH });
    ok(paths.includes(join(dir, "lib", "node_modules")), `${paths}`);
    deepEqual(paths.filter((p) => p.startsWith(dir)).sort(), [
      join(dir, "bin"),
      join(dir, "lib", "node_modules"),
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolchainPaths throws NotInstalledError for a missing executable", async () => {
  await rejects(toolchainPaths("bugbout-no-such-program", { path: "/usr/bin" }), NotInstalledError);
});

Deno.test("toolchainMounts mounts the real file behind a link, never its home or a shared bin", async () => {
  const home = await tempDir();
  try {
    const real = join(home, "pkgs", "tool", "run.sh");
    await Deno.mkdir(join(home, "pkgs", "tool"), { recursive: true });
    await Deno.mkdir(join(home, "bin"));
    await Deno.writeTextFile(real, "#!/bin/sh\necho from the tool\n", { mode: 0o755 });
    await Deno.writeTextFile(join(home, "bin", "other-program"), "#!/bin/sh\n", { mode: 0o755 });
    await Deno.symlink(real, join(home, "bin", "tool"));
    await Deno.symlink(real, join(home, "tool"));
    for (const link of [join(home, "bin", "tool"), join(home, "tool")]) {
      const mounts = await toolchainMounts(link, { path: PATH, homes: [home] });
      deepEqual(mounts.links, [{ path: link, target: real }]);
      deepEqual(mounts.readable.filter((p) => p.startsWith(home)), [real]);
      ok(!mounts.readable.includes(home) && !mounts.readable.includes("/"));
      const inside = await sandbox.run([link], {
        ...confined(join(home, "pkgs"), mounts.readable),
        links: mounts.links,
      });
      equal(inside.stdout, "from the tool\n", inside.stderr);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
