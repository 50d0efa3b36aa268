/**
 * Can this machine's sandbox start? `bugbout doctor` shows the answer; `openSandbox()` refuses to
 * run without a working one and says how to fix it.
 *
 * Requires `--allow-run` (bwrap, sandbox-exec), `--allow-read` (`/proc/sys` switches) and
 * `--allow-env` (PATH).
 *
 * @module
 */

import { run, type RunOptions, which } from "../proc.ts";
import { runsAsRoot } from "./identity.ts";
import { UNCONFINED } from "./none.ts";
import { SANDBOX_EXEC } from "./seatbelt.ts";
import type { SandboxKind } from "./types.ts";
import { readTextIfExists, statIfExists } from "../fs.ts";

/** What {@linkcode probeSandbox} found. */
export interface SandboxProbe {
  /** True when the sandbox starts on this machine. */
  ok: boolean;
  /** The implementation probed. */
  kind: SandboxKind;
  /** Its version, where it reports one (`0.8.0` for bubblewrap). */
  version?: string;
  /** One line: what works, or what failed and why. */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
  /** The executable (bwrap or sandbox-exec), when found. */
  executable?: string;
  /** bubblewrap only: whether it takes `--size`/`--perms` for tmpfs (0.7 and later). */
  sizedTmpfs?: boolean;
  /** bubblewrap only: `prlimit`, which sets the limits inside. */
  prlimit?: string;
  /** bubblewrap only, when bugbout runs as root: `setpriv`, which drops root inside. */
  setpriv?: string;
}

/** Options for {@linkcode probeSandbox}. */
export interface ProbeOptions {
  /** The bwrap to probe (a name on PATH or a path); by default `bwrap` on PATH. */
  bwrap?: string;
  /** The operating system to answer for (`Deno.build.os` values); by default this one's. */
  os?: typeof Deno.build.os;
}

/** The program-independent part of the probe: `bwrap --unshare-all --ro-bind / / ... true`. */
export const BWRAP_PROBE = [
  "--unshare-all",
  "--ro-bind",
  "/",
  "/",
  "--proc",
  "/proc",
  "--dev",
  "/dev",
];

const ESCAPE_HATCH = 'Or set `sandbox = "none"` under [run] in bugbout.toml to run unconfined ' +
  "(agents can then read the fix).";

/**
 * Windows has neither sandbox: say so, and point to WSL2, where bugbout runs as on Linux, rather
 * than fail later on a missing `bwrap`.
 */
function windowsProbe(kind: SandboxKind): SandboxProbe {
  return {
    ok: false,
    kind,
    detail: `${kind} needs ${kind === "seatbelt" ? "macOS" : "Linux"}, and Windows has no ` +
      "sandbox that bugbout can use to confine agents",
    fix: "Run bugbout inside WSL2 (`wsl --install`), where it sandboxes agents with bubblewrap " +
      "as on Linux: in the WSL2 shell, `sudo apt install bubblewrap git` and use bugbout's " +
      "x86_64-unknown-linux-gnu executable there. " + ESCAPE_HATCH,
  };
}

async function readSwitch(path: string): Promise<string | undefined> {
  return (await readTextIfExists(path))?.trim();
}

async function inContainer(): Promise<boolean> {
  for (const marker of ["/.dockerenv", "/run/.containerenv"]) {
    if (await statIfExists(marker)) return true;
  }
  const cgroup = await readSwitch("/proc/1/cgroup");
  return /docker|kubepods|containerd|lxc|podman/.test(cgroup ?? "");
}

/** Why bwrap could not create its namespaces, and the fix, from the machine's switches. */
async function explainBwrapFailure(stderr: string): Promise<{ detail: string; fix: string }> {
  const said = stderr.trim().split("\n").at(-1) ?? "";
  if (await readSwitch("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") === "1") {
    return {
      detail: `bwrap cannot create a user namespace: AppArmor restricts unprivileged user ` +
        `namespaces (Ubuntu 24.04 and later) (bwrap: ${said})`,
      fix: "Allow them for bwrap with an AppArmor profile (/etc/apparmor.d/bwrap containing " +
        "`abi <abi/4.0>, include <tunables/global> profile bwrap /usr/bin/bwrap flags=(unconfined) " +
        "{ userns, }`, then `sudo systemctl reload apparmor`), or system-wide with " +
        "`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`. " + ESCAPE_HATCH,
    };
  }
  if (await readSwitch("/proc/sys/kernel/unprivileged_userns_clone") === "0") {
    return {
      detail: `bwrap cannot create a user namespace: unprivileged user namespaces are switched ` +
        `off (kernel.unprivileged_userns_clone=0) (bwrap: ${said})`,
      fix: "Run `sudo sysctl kernel.unprivileged_userns_clone=1`. " + ESCAPE_HATCH,
    };
  }
  if (await readSwitch("/proc/sys/user/max_user_namespaces") === "0") {
    return {
      detail:
        `bwrap cannot create a user namespace: user.max_user_namespaces is 0 (bwrap: ${said})`,
      fix: "Run `sudo sysctl user.max_user_namespaces=15000`. " + ESCAPE_HATCH,
    };
  }
  if (await inContainer()) {
    return {
      detail: `bwrap cannot create namespaces inside this container (bwrap: ${said})`,
      fix: "Start the container with user namespaces allowed (e.g. Docker: " +
        "`--security-opt seccomp=unconfined --security-opt apparmor=unconfined`), or run " +
        "bugbout on the host. " + ESCAPE_HATCH,
    };
  }
  return {
    detail: `bwrap cannot start a sandbox (bwrap: ${said || "no message"})`,
    fix: "Check that unprivileged user namespaces are allowed on this machine and that bwrap is " +
      "not setuid-restricted. " + ESCAPE_HATCH,
  };
}

async function probeBubblewrap(program?: string): Promise<SandboxProbe> {
  const kind = "bubblewrap";
  const bwrap = program
    ? await which(program)
    : await which("bwrap") ?? await which("/usr/bin/bwrap");
  if (!bwrap) {
    return {
      ok: false,
      kind,
      detail: "bwrap (bubblewrap) is not installed",
      fix: "Install it: `sudo apt install bubblewrap` (Debian, Ubuntu), `sudo dnf install " +
        "bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch). " + ESCAPE_HATCH,
    };
  }
  const quiet: RunOptions = {
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    okCodes: "any",
    timeoutMs: 15_000,
  };
  const ver = await run([bwrap, "--version"], quiet);
  const version = /(\d+\.\d+(\.\d+)?)/.exec(ver.stdout)?.[1];
  const probe = await run([bwrap, ...BWRAP_PROBE, "true"], quiet);
  if (probe.code !== 0) {
    return {
      ok: false,
      kind,
      version,
      executable: bwrap,
      ...await explainBwrapFailure(probe.stderr),
    };
  }
  const sized = await run([
    bwrap,
    ...BWRAP_PROBE,
    "--perms",
    "1777",
    "--size",
    "1048576",
    "--tmpfs",
    "/tmp",
    "true",
  ], quiet);
  const sizedTmpfs = sized.code === 0;
  const util = "/usr/bin:/bin:/usr/sbin:/sbin";
  const prlimit = await which("prlimit", util);
  const setpriv = runsAsRoot() ? await which("setpriv", util) : undefined;
  const lacking = !prlimit ? "prlimit" : runsAsRoot() && !setpriv ? "setpriv" : undefined;
  if (lacking) {
    return {
      ok: false,
      kind,
      version,
      executable: bwrap,
      detail: `${lacking} (util-linux) is not installed: it ` +
        (lacking === "prlimit"
          ? "limits what sandboxed commands consume"
          : "runs sandboxed commands as an unprivileged user when bugbout runs as root"),
      fix: "Install util-linux: `sudo apt install util-linux` (Debian, Ubuntu), `sudo dnf " +
        "install util-linux` (Fedora). " + ESCAPE_HATCH,
    };
  }
  return {
    ok: true,
    kind,
    version,
    executable: bwrap,
    sizedTmpfs,
    prlimit,
    setpriv,
    detail: `bubblewrap ${version ?? "(unknown version)"} starts sandboxes` +
      (sizedTmpfs ? "" : "; it is older than 0.7, so private tmpfs mounts are not size-capped"),
  };
}

async function probeSeatbelt(): Promise<SandboxProbe> {
  const kind = "seatbelt";
  if (Deno.build.os !== "darwin") {
    return {
      ok: false,
      kind,
      detail: "Seatbelt (sandbox-exec) exists only on macOS",
      fix: 'Use sandbox = "auto" (bubblewrap on Linux).',
    };
  }
  const probe = await run([SANDBOX_EXEC, "-p", "(version 1)(allow default)", "/usr/bin/true"], {
    clearEnv: true,
    okCodes: "any",
    timeoutMs: 15_000,
  }).catch((error) => ({ code: 127, stderr: String(error) }));
  if (probe.code !== 0) {
    return {
      ok: false,
      kind,
      detail: `sandbox-exec cannot start a sandbox: ${probe.stderr.trim() || `exit ${probe.code}`}`,
      fix: "sandbox-exec ships with macOS at /usr/bin/sandbox-exec; a sandboxed parent " +
        "(another agent's sandbox) cannot start a nested one. " + ESCAPE_HATCH,
    };
  }
  return { ok: true, kind, executable: SANDBOX_EXEC, detail: "sandbox-exec starts sandboxes" };
}

/**
 * Probe the sandbox `setting` would use, for real (bwrap: start a throw-away sandbox). `auto`
 * means bubblewrap on Linux and Seatbelt on macOS; on Windows every sandbox fails with a pointer
 * to WSL2. Never throws for a failing sandbox: the result says what failed and how to fix it.
 */
export async function probeSandbox(
  setting: "auto" | SandboxKind = "auto",
  options: ProbeOptions = {},
): Promise<SandboxProbe> {
  const os = options.os ?? Deno.build.os;
  if (os === "windows" && setting !== "none") {
    return windowsProbe(setting === "auto" ? "bubblewrap" : setting);
  }
  const kind = setting === "auto" ? platformKind(os) : setting;
  switch (kind) {
    case "bubblewrap":
      return await probeBubblewrap(options.bwrap);
    case "seatbelt":
      return await probeSeatbelt();
    case "none":
      return { ok: true, kind: "none", detail: UNCONFINED };
    case undefined:
      return {
        ok: false,
        kind: "none",
        detail: `bugbout has no sandbox for ${os}`,
        fix: 'Run on Linux or macOS, or set sandbox = "none" in bugbout.toml to run unconfined.',
      };
  }
}

/** The sandbox `auto` means here, or undefined on a platform without one. */
export function platformKind(os: string = Deno.build.os): SandboxKind | undefined {
  if (os === "linux") return "bubblewrap";
  if (os === "darwin") return "seatbelt";
  return undefined;
}
