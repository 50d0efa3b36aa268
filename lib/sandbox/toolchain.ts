/**
 * Which host paths an executable needs to read inside an allow-list sandbox: the real file, its
 * install root, and its interpreter's. A node script under `node_modules` needs its package
 * directory and `node`'s prefix; a Python (pyenv, uv, a virtual environment) needs `sys.prefix`
 * and `sys.base_prefix`; a console script needs whatever its `#!` line names.
 *
 * What runs is mounted, not where it lies: an executable found through a link
 * (`~/.local/bin/claude`, `~/myagent`) becomes that link inside, pointing at its real file, and
 * the directory the link lies in is not shown (it is a home directory, or holds other programs),
 * unless it holds nothing but links into this toolchain. A home directory, or a directory above
 * one, is never one of the paths.
 *
 * Requires `--allow-read`, `--allow-env` (PATH) and `--allow-run` (to ask a Python its prefix).
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { NotInstalledError, run, which } from "../proc.ts";
import { isWithin, outermost, resolveIfExists } from "./_paths.ts";
import { holdsAHome, homeDirectories } from "./view.ts";
import { isMissing, readDirIfExists, readTextIfExists } from "../fs.ts";

/** Options for {@linkcode toolchainPaths}. */
export interface ToolchainOptions {
  /** The PATH to resolve bare names (and `#!/usr/bin/env X`) with. Defaults to bugbout's own. */
  path?: string;
  /** Home directories never to mount; by default `homeDirectories()`. */
  homes?: string[];
}

/** What a sandbox must show for an executable to run: for `readable` and `links`. */
export interface ToolchainMounts {
  /** Host paths to mount read-only (real paths). */
  readable: string[];
  /** Links to make inside: the executable's name on PATH, pointing at its real file. */
  links: { path: string; target: string }[];
}

const PYTHON = /^python(\d+(\.\d+)?)?$/;
const NODE = /^(node|nodejs)$/;
const MAX_DEPTH = 4;

/**
 * The read-only mounts `executable` needs (real paths, outermost first-seen, never `/`, never a
 * home directory or one above it). Paths under `/usr` and `/etc` may be included; a sandbox that
 * shows those anyway skips them. When the executable is a link, the directory it was found in is
 * included only when it holds nothing but links into these paths (see
 * {@linkcode toolchainMounts} for the link itself). Throws {@linkcode NotInstalledError} when the
 * executable cannot be found.
 */
export async function toolchainPaths(
  executable: string,
  options: ToolchainOptions = {},
): Promise<string[]> {
  return (await toolchainMounts(executable, options)).readable;
}

/**
 * The read-only mounts and the links `executable` needs: its real file, its runtime's narrowest
 * root (the npm package, the virtual environment, the interpreter's prefix), and, when it was
 * found through a link, that link. Throws {@linkcode NotInstalledError} when it cannot be found.
 */
export async function toolchainMounts(
  executable: string,
  options: ToolchainOptions = {},
): Promise<ToolchainMounts> {
  const path = options.path ?? Deno.env.get("PATH") ?? "";
  const found = await which(executable, path);
  if (!found) throw new NotInstalledError(executable);
  const homes = options.homes ?? await homeDirectories();
  const out: string[] = [];
  await collect(found, path, out, 0);
  const readable = outermost(out.filter((p) => p !== "/" && !holdsAHome(p, homes)));
  const links: ToolchainMounts["links"] = [];
  // A link on PATH (`/usr/local/bin/codex -> ../lib/node_modules/...`) must resolve inside too.
  if ((await Deno.lstat(found)).isSymlink) {
    const link = await absolute(found);
    const dir = dirname(link);
    if (!holdsAHome(dir, homes) && await onlyLinksInto(dir, readable)) {
      readable.unshift(dir);
    } else {
      links.push({ path: link, target: await Deno.realPath(found) });
    }
  }
  return { readable: outermost(readable), links };
}

/** True when every entry of `dir` is a link whose real path lies in one of `roots`. */
async function onlyLinksInto(dir: string, roots: readonly string[]): Promise<boolean> {
  for (const entry of await readDirIfExists(dir)) {
    if (!entry.isSymlink) return false;
    const real = await resolveIfExists(join(dir, entry.name));
    if (!real || !roots.some((root) => isWithin(real, root))) return false;
  }
  return true;
}

/** `path` with its directory's links resolved (the file itself may stay a link). */
async function absolute(path: string): Promise<string> {
  return join(await Deno.realPath(dirname(path)), basename(path));
}

async function collect(exe: string, path: string, out: string[], level: number): Promise<void> {
  if (level > MAX_DEPTH) return;
  const real = await resolveIfExists(exe);
  if (!real) return;
  out.push(real);
  const name = basename(exe);
  if (PYTHON.test(name) || PYTHON.test(basename(real))) {
    out.push(...await pythonPrefixes(exe));
    return;
  }
  if (NODE.test(basename(real))) {
    const bin = dirname(real);
    if (basename(bin) === "bin") out.push(dirname(bin));
    return;
  }
  const pkg = await nodePackage(real);
  if (pkg) out.push(...pkg);
  const interpreter = await shebang(real, path);
  if (interpreter) await collect(interpreter, path, out, level + 1);
}

/** `sys.prefix` and friends of a Python, asked by running it (works through pyenv shims). */
async function pythonPrefixes(python: string): Promise<string[]> {
  const code = "import json, sys; print(json.dumps([sys.executable, sys.prefix, " +
    "sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]))";
  const result = await run([python, "-c", code], { okCodes: "any", timeoutMs: 30_000 });
  if (result.code !== 0) return [];
  let paths: unknown;
  try {
    paths = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "");
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return [];
  }
  if (!Array.isArray(paths)) return [];
  const out: string[] = [];
  for (const p of paths) {
    if (typeof p !== "string" || !p) continue;
    const real = await resolveIfExists(p);
    if (real) out.push(real);
  }
  return out;
}

/**
 * The package directory of a file inside `node_modules` (`.../node_modules/[@scope/]name`), plus
 * the enclosing `node_modules` when the package's dependencies were hoisted next to it.
 */
async function nodePackage(real: string): Promise<string[] | undefined> {
  const parts = real.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || at + 1 >= parts.length - 1) return undefined;
  const scoped = parts[at + 1].startsWith("@");
  const end = at + (scoped ? 3 : 2);
  if (end > parts.length) return undefined;
  const pkg = parts.slice(0, end).join("/");
  const modules = parts.slice(0, at + 1).join("/");
  let hoisted = false;
  const text = await readTextIfExists(join(pkg, "package.json"));
  try {
    // No manifest, or one that is not JSON: the package directory alone.
    const manifest = text === undefined ? {} : JSON.parse(text);
    const deps = { ...manifest.dependencies, ...manifest.optionalDependencies };
    const nested = await resolveIfExists(join(pkg, "node_modules"));
    hoisted = Object.keys(deps).length > 0 && !nested;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return hoisted ? [modules] : [pkg];
}

/** The interpreter a `#!` line names, resolved (`/usr/bin/env [-S] X` looks X up on PATH). */
async function shebang(file: string, path: string): Promise<string | undefined> {
  let head: string;
  try {
    using f = await Deno.open(file);
    const buf = new Uint8Array(256);
    const n = await f.read(buf);
    head = new TextDecoder().decode(buf.subarray(0, n ?? 0));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  if (!head.startsWith("#!")) return undefined;
  const words = head.slice(2).split("\n")[0].trim().split(/\s+/);
  if (basename(words[0] ?? "") !== "env") return words[0] || undefined;
  const program = words.slice(1).find((w) => !w.startsWith("-") && !w.includes("="));
  return program ? await which(program, path) : undefined;
}
