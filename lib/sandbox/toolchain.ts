/**
 * Which host paths an executable needs to read inside an allow-list sandbox: the real file, its
 * install root, and its interpreter's. A node script under `node_modules` needs its package
 * directory and `node`'s prefix; a Python (pyenv, uv, a virtual environment) needs `sys.prefix`
 * and `sys.base_prefix`; a console script needs whatever its `#!` line names.
 *
 * Requires `--allow-read`, `--allow-env` (PATH) and `--allow-run` (to ask a Python its prefix).
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { NotInstalledError, run, which } from "../proc.ts";
import { outermost, resolveIfExists } from "./_paths.ts";
import { isMissing, readTextIfExists } from "../fs.ts";

/** Options for {@linkcode toolchainPaths}. */
export interface ToolchainOptions {
  /** The PATH to resolve bare names (and `#!/usr/bin/env X`) with. Defaults to bugbout's own. */
  path?: string;
}

const PYTHON = /^python(\d+(\.\d+)?)?$/;
const NODE = /^(node|nodejs)$/;
const MAX_DEPTH = 4;

/**
 * The read-only mounts `executable` needs (real paths, outermost first-seen, never `/`): when the
 * executable is a link, the directory it was found in, so it runs inside under the same name.
 * Paths under `/usr` and `/etc` may be included; a sandbox that mounts those anyway skips them.
 * Throws {@linkcode NotInstalledError} when the executable cannot be found.
 */
export async function toolchainPaths(
  executable: string,
  options: ToolchainOptions = {},
): Promise<string[]> {
  const path = options.path ?? Deno.env.get("PATH") ?? "";
  const found = await which(executable, path);
  if (!found) throw new NotInstalledError(executable);
  const out: string[] = [];
  // A link on PATH (`/usr/local/bin/codex -> ../lib/node_modules/...`) must resolve inside too.
  if ((await Deno.lstat(found)).isSymlink) out.push(dirname(await absolute(found)));
  await collect(found, path, out, 0);
  return outermost(out.filter((p) => p !== "/"));
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
