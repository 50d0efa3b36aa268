/**
 * What a sandbox shows of the host by default: the system's runtime and nothing else. `/usr`
 * without the source trees under it, `/bin`, `/sbin` and `/lib*` as on the host, and a minimal
 * `/etc` (name resolution, certificates, the loader's cache, time zone, the shells' profiles; no
 * `shadow`, `gshadow`, `sudoers`, ssh host keys or registry credentials). `/opt`, `/srv`,
 * `/home`, `/root`, `/mnt`, `/media`, `/var` and the host's `/tmp` are not shown; a toolchain
 * that lives there is mounted path by path (see `toolchain.ts`).
 *
 * Secret places under a home directory (`~/.ssh`, `~/.aws`, `~/.config/gh`, `~/.netrc`, ...) are
 * covered whenever a mount would include them, and agents' own state directories (`~/.codex`,
 * `~/.claude`, ...: their keys and the transcripts of earlier runs) likewise, unless a more
 * specific path inside one is mounted on purpose (Claude Code installs itself under
 * `~/.claude/local`).
 *
 * Requires `--allow-read` (`/etc`, the home directories) and `--allow-env` (HOME).
 *
 * @module
 */

import { join } from "node:path";
import { isWithin, outermost, resolveIfExists } from "./_paths.ts";
import { lstatIfExists, readDirIfExists } from "../fs.ts";

/** Source trees under `/usr`: a clone of the project there would carry the fix. */
export const USR_HIDDEN: readonly string[] = ["/usr/src", "/usr/local/src"];

/** Top-level entries that are links into `/usr` (merged `/usr`) or directories of the runtime. */
export const SYSTEM_LINKS: readonly string[] = [
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

/**
 * The entries of `/etc` a sandbox shows (names ending in `*` are prefixes): what programs read to
 * start, resolve names, verify certificates and find their configuration. Registry
 * configuration (`npmrc`, `pip.conf`) is left out: it can hold tokens.
 */
export const ETC_SHOWN: readonly string[] = [
  "alternatives",
  "bash.bashrc",
  "ca-certificates",
  "ca-certificates.conf",
  "crypto-policies",
  "debian_version",
  "environment",
  "fonts",
  "gai.conf",
  "gitattributes",
  "gitconfig",
  "group",
  "host.conf",
  "hosts",
  "inputrc",
  "java*",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "locale.alias",
  "locale.conf",
  "localtime",
  "login.defs",
  "lsb-release",
  "magic",
  "magic.mime",
  "mime.types",
  "mtab",
  "networks",
  "nsswitch.conf",
  "os-release",
  "passwd",
  "perl",
  "pki",
  "profile",
  "protocols",
  "python*",
  "resolv.conf",
  "rpc",
  "services",
  "shells",
  "ssl",
  "system-release",
  "terminfo",
  "timezone",
];

/** Places inside the shown `/etc` entries that hold private keys. */
export const ETC_HIDDEN: readonly string[] = ["/etc/ssl/private", "/etc/pki/tls/private"];

/**
 * Credentials under a home directory (relative to it): always covered, whatever is mounted. A
 * confinement that asks to read or write inside one is refused.
 */
export const SECRET_PLACES: readonly string[] = [
  ".ssh",
  ".aws",
  ".azure",
  ".boto",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".config/gcloud",
  ".config/gh",
  ".config/git/credentials",
  ".config/hub",
  ".config/op",
  ".config/rclone",
  ".docker",
  ".git-credentials",
  ".gnupg",
  ".kube",
  ".local/share/keyrings",
  ".my.cnf",
  ".netrc",
  ".npmrc",
  ".password-store",
  ".pgpass",
  ".pypirc",
  ".s3cfg",
  ".terraform.d",
  ".vault-token",
  ".yarnrc.yml",
  ".cache/huggingface/token",
  ".huggingface",
];

/**
 * Agents' own state under a home directory: their keys and the transcripts of earlier runs
 * (another agent's patch is the future). Covered like `deny` paths: a more specific path inside
 * one that is mounted on purpose (an install directory) is shown again.
 */
export const AGENT_PLACES: readonly string[] = [
  ".claude",
  ".claude.json",
  ".codex",
  ".config/github-copilot",
  ".config/opencode",
  ".copilot",
  ".gemini",
  ".local/share/opencode",
  ".qwen",
];

/** The home directories whose secret places are covered: `$HOME`, `/root` and `/home/*`. */
export async function homeDirectories(
  env: { get(key: string): string | undefined } = Deno.env,
): Promise<string[]> {
  const found: string[] = [];
  for (const candidate of [env.get("HOME"), "/root"]) {
    const real = candidate ? await resolveIfExists(candidate) : undefined;
    if (real && real !== "/") found.push(real);
  }
  for (const entry of await readDirIfExists("/home")) {
    const real = await resolveIfExists(join("/home", entry.name));
    if (real && (await lstatIfExists(real))?.isDirectory) found.push(real);
  }
  return [...new Set(found)];
}

/** The existing places of `names` under each of `homes`, as real paths (links resolved). */
export async function placesUnder(
  homes: readonly string[],
  names: readonly string[],
): Promise<string[]> {
  const found: string[] = [];
  for (const home of homes) {
    for (const name of names) {
      const path = join(home, name);
      if (!(await lstatIfExists(path))) continue;
      found.push(path);
      // A secret kept elsewhere and linked in is covered where it really lies too.
      const real = await resolveIfExists(path);
      if (real && real !== path) found.push(real);
    }
  }
  return [...new Set(found)];
}

/** The `/etc` entries of {@linkcode ETC_SHOWN} that exist here, as absolute paths. */
export async function etcEntries(): Promise<string[]> {
  const names = (await readDirIfExists("/etc")).map((e) => e.name);
  const out: string[] = [];
  for (const pattern of ETC_SHOWN) {
    const matches = pattern.endsWith("*")
      ? names.filter((n) => n.startsWith(pattern.slice(0, -1)))
      : names.filter((n) => n === pattern);
    out.push(...matches.sort().map((n) => `/etc/${n}`));
  }
  return out;
}

/**
 * The host directories the default view shows (real paths, for looking through them), and the
 * places inside them that stay covered.
 */
export async function systemView(): Promise<{ shown: string[]; hidden: string[] }> {
  const shown = ["/usr"];
  for (const path of [...SYSTEM_LINKS, ...await etcEntries()]) {
    const info = await lstatIfExists(path);
    // Links into /usr are seen through /usr; a linked /etc entry shows its target's content.
    const real = info?.isSymlink ? undefined : info ? path : undefined;
    if (real) shown.push(real);
  }
  return { shown: outermost(shown), hidden: [...USR_HIDDEN, ...ETC_HIDDEN] };
}

/** True when `path` is a home directory or lies above one (`/home`, `/`). */
export function holdsAHome(path: string, homes: readonly string[]): boolean {
  return homes.some((home) => isWithin(home, path));
}
