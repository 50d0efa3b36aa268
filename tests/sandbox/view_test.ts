/**
 * What a bubblewrap sandbox shows of the host, attacked for real: the default view hides other
 * copies of the project (in /usr/local/src, /opt, the host's /tmp), root-only files and the
 * secrets of a home directory even when the whole home is mounted; an agent found through a link
 * in a home runs without the home being shown; as root, commands run as a user of their own.
 */

import { deepEqual, equal, match, notEqual, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { BugboutError } from "../../lib/errors.ts";
import { run } from "../../lib/proc.ts";
import { openSandbox, runsAsRoot, toolchainMounts } from "../../lib/sandbox/mod.ts";
import type { Confinement, SandboxResult } from "../../lib/sandbox/types.ts";

const sandbox = await openSandbox("bubblewrap");
const PATH = "/usr/bin:/bin";

/** A temporary directory others may read (as a home directory or a toolchain usually is). */
async function tempDir(prefix = "bugbout-view-"): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  await Deno.chmod(dir, 0o755);
  return dir;
}

async function write(path: string, text: string, mode = 0o644) {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text, { mode });
  await Deno.chmod(path, mode);
}

/** A git repository whose last commit holds `canary`: a clone of the project with the fix. */
async function plantClone(dir: string, canary: string) {
  await write(join(dir, "pkg", "core.py"), `def add(a, b):\n    return a + b  # ${canary}\n`);
  const env = {
    PATH,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.invalid",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.invalid",
  };
  for (const args of [["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", canary]]) {
    await run(["git", ...args], { cwd: dir, clearEnv: true, env });
  }
}

/** A directory made for the test where the host keeps system things; removed by dispose. */
async function systemPlace(parent: string): Promise<(AsyncDisposable & { path: string }) | null> {
  const path = join(parent, `bugbout-test-${crypto.randomUUID()}`);
  try {
    await Deno.mkdir(path, { recursive: true });
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return null; // not root: nothing to plant
    throw error;
  }
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

function sh(script: string, c: Partial<Confinement> & { workdir: string }) {
  return sandbox.run(["/bin/sh", "-c", script], {
    network: "none",
    env: { PATH },
    timeoutMs: 60_000,
    ...c,
  });
}

function withHome<T>(home: string, work: () => Promise<T>): Promise<T> {
  const before = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  return work().finally(() =>
    before === undefined ? Deno.env.delete("HOME") : Deno.env.set("HOME", before)
  );
}

const SECRETS = [
  ".ssh/id_rsa",
  ".aws/credentials",
  ".config/gh/hosts.yml",
  ".netrc",
  ".gnupg/private-keys-v1.d/key",
  ".docker/config.json",
  ".kube/config",
  ".git-credentials",
  ".pypirc",
  ".npmrc",
  ".codex/auth.json",
  ".claude/.credentials.json",
];

/** A home directory with a canary in every secret place, and a few ordinary files. */
async function plantHome(home: string, canary: string) {
  for (const secret of SECRETS) await write(join(home, secret), `${canary} ${secret}\n`, 0o600);
  await write(join(home, "notes.txt"), "ordinary notes\n");
  await write(join(home, ".bashrc"), "# an ordinary dotfile\n");
  await write(join(home, ".claude", "local", "pkg", "cli.js"), "// an agent installed here\n");
}

Deno.test("the default view shows the system's runtime, and no other copy of the project", async () => {
  const canary = `FUTURE-CANARY-${crypto.randomUUID()}`;
  const work = await tempDir();
  const hostTmp = await tempDir("bugbout-hosttmp-");
  await using src = await systemPlace("/usr/local/src");
  await using opt = await systemPlace("/opt");
  try {
    for (const place of [src?.path, opt?.path, hostTmp]) {
      if (place) await plantClone(join(place, "clone"), canary);
    }
    const places = [src?.path, opt?.path, hostTmp].filter(Boolean).join(" ");
    const r = await sh(
      `ls -A /; echo --; for d in /opt /srv /root /mnt /media /var/lib /var/log; do ls $d; done; ` +
        `ls -A /usr/src; ls -A /usr/local/src; echo --; ` +
        `for p in ${places}; do cat $p/clone/pkg/core.py; git -C $p/clone log -1; done; ` +
        `for f in shadow gshadow sudoers ssh npmrc pip.conf; do test -e /etc/$f && echo "has $f"; done; ` +
        `echo --; cat /etc/hosts /etc/ssl/certs/ca-certificates.crt >/dev/null && echo etc-ok; ` +
        `/usr/bin/python3 -c 'print("python-ok")'`,
      { workdir: work },
    );
    const [top, listed, etc, rest] = r.stdout.split("--\n");
    const entries = top.trim().split("\n");
    for (const hidden of ["opt", "srv", "root", "mnt", "media", "boot", "work"]) {
      ok(!entries.includes(hidden), `/${hidden} is shown: ${entries}`);
    }
    for (const shown of ["usr", "etc", "bin", "proc", "dev", "tmp"]) ok(entries.includes(shown));
    equal(listed, "", "something lies in /usr/src or /usr/local/src");
    equal(etc, "", "a secret of /etc is shown");
    equal(rest, "etc-ok\npython-ok\n", r.stdout + r.stderr);
    ok(!r.stdout.includes(canary) && !r.stderr.includes(canary), "a clone was read");
  } finally {
    await Deno.remove(work, { recursive: true });
    await Deno.remove(hostTmp, { recursive: true });
  }
});

Deno.test("secret places of a home stay covered even when the whole home is mounted", async () => {
  const canary = `SECRET-CANARY-${crypto.randomUUID()}`;
  const home = await tempDir("bugbout-home-");
  const work = await tempDir();
  try {
    await plantHome(home, canary);
    await withHome(home, async () => {
      const reads = SECRETS.map((s) => `cat ${home}/${s}`).join("; ");
      const r = await sh(
        `${reads}; cat ${home}/notes.txt ${home}/.bashrc ${home}/.claude/local/pkg/cli.js; ` +
          `ls -A ${home}/.ssh ${home}/.aws ${home}/.codex`,
        { workdir: work, readable: [home, join(home, ".claude", "local")] },
      );
      ok(!r.stdout.includes(canary) && !r.stderr.includes(canary), r.stdout);
      match(r.stdout, /ordinary notes\n# an ordinary dotfile\n\/\/ an agent installed here\n/);
      // Asking to read inside a place that holds credentials is refused outright.
      await rejects(
        sh("true", { workdir: work, readable: [join(home, ".ssh")] }),
        (e: unknown) => e instanceof BugboutError && /which holds credentials/.test(e.message),
      );
    });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("an agent found through a link in a home runs, and the home stays unseen", async () => {
  const canary = `SECRET-CANARY-${crypto.randomUUID()}`;
  const home = await tempDir("bugbout-home-");
  const work = await tempDir();
  try {
    await plantHome(home, canary);
    await write(join(home, "tools", "other-secret.txt"), `${canary} beside the agent\n`);
    await write(
      join(home, "tools", "agent.sh"),
      `#!/bin/sh\necho "agent ran as $0"\nls -A "${home}" "${home}/tools"\n` +
        SECRETS.map((s) => `cat "${home}/${s}"`).join("\n") +
        `\ncat "${home}/tools/other-secret.txt" "${home}/notes.txt"\n`,
      0o755,
    );
    await Deno.symlink(join(home, "tools", "agent.sh"), join(home, "myagent"));
    await withHome(home, async () => {
      const mounts = await toolchainMounts(join(home, "myagent"));
      deepEqual(mounts.links, [{
        path: join(home, "myagent"),
        target: join(home, "tools", "agent.sh"),
      }]);
      ok(
        mounts.readable.every((p) => !home.startsWith(p)),
        `a home is mounted: ${mounts.readable}`,
      );
      ok(!mounts.readable.includes(join(home, "tools")), "the link's target directory is mounted");
      const r = await sandbox.run([join(home, "myagent")], {
        workdir: work,
        readable: mounts.readable,
        links: mounts.links,
        network: "none",
        env: { PATH },
        timeoutMs: 60_000,
      });
      match(r.stdout, new RegExp(`^agent ran as ${join(home, "myagent")}\n`));
      // The home shows the link and the way to the real file, and nothing else.
      match(r.stdout, new RegExp(`${home}:\nmyagent\ntools\n\n${home}/tools:\nagent.sh\n`));
      ok(!r.stdout.includes(canary) && !r.stderr.includes(canary), r.stdout + r.stderr);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test({
  name: "as root, commands run as a user of their own: root-only files stay closed",
  ignore: !runsAsRoot(),
  fn: async () => {
    const canary = `ROOT-CANARY-${crypto.randomUUID()}`;
    const shared = await tempDir("bugbout-shared-");
    const tool = await tempDir("bugbout-tool-");
    const works = [await tempDir(), await tempDir()];
    try {
      await Deno.chmod(tool, 0o755);
      await write(join(tool, "root-only.txt"), `${canary}\n`, 0o600);
      await write(join(tool, "public.txt"), "public\n", 0o644);
      await write(join(works[0], "tracked.py"), "x = 1\n", 0o644);
      const alone = await tempDir();
      works.push(alone);
      const [runs, apart]: [SandboxResult[], SandboxResult] = await Promise.all([
        Promise.all(
          works.slice(0, 2).map((work, i) =>
            sh(
              `id -u; cat /etc/shadow; cat ${tool}/root-only.txt; cat ${tool}/public.txt; ` +
                `echo y >> tracked.py; echo new > new-${i}.txt && mkdir -p d/e && echo f > d/e/f; ` +
                // Both runs hold the shared path at once: each waits for the other's file.
                `echo run${i} > ${shared}/from-${i}.txt; n=0; ` +
                `until [ -e ${shared}/from-0.txt ] && [ -e ${shared}/from-1.txt ] || [ $n -gt 1200 ]; ` +
                `do sleep 0.1; n=$((n+1)); done; ls ${shared}`,
              { workdir: work, readable: [tool], writable: [shared] },
            )
          ),
        ),
        // A run at the same time that shares nothing has a user of its own.
        sh("id -u", { workdir: alone }),
      ]);
      for (const [i, r] of runs.entries()) {
        const [uid] = r.stdout.split("\n");
        notEqual(uid, "0", r.stdout);
        ok(!r.stdout.includes(canary) && !r.stderr.includes(canary), "a root-only file was read");
        match(r.stderr, /\/etc\/shadow: No such file or directory/);
        match(r.stderr, /root-only.txt: Permission denied/);
        match(r.stdout, /public\n/);
        match(r.stdout, /from-0.txt\nfrom-1.txt\n$/, `run ${i} could not write the shared path`);
      }
      // Runs that share a writable path share a user; what they wrote is given back afterwards.
      equal(runs[0].stdout.split("\n")[0], runs[1].stdout.split("\n")[0]);
      notEqual(apart.stdout.trim(), runs[0].stdout.split("\n")[0]);
      notEqual(apart.stdout.trim(), "0");
      equal(await Deno.readTextFile(join(works[0], "tracked.py")), "x = 1\ny\n");
      for (const top of [...works, shared]) {
        const walk = async (dir: string): Promise<void> => {
          for await (const entry of Deno.readDir(dir)) {
            const path = join(dir, entry.name);
            const info = await Deno.lstat(path);
            equal(info.uid, 0, `${path} is owned by ${info.uid}`);
            if (info.isDirectory) await walk(path);
          }
        };
        await walk(top);
      }
    } finally {
      for (const dir of [shared, tool, ...works]) await Deno.remove(dir, { recursive: true });
    }
  },
});
