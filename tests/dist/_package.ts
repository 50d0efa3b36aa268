/**
 * What the JSR package holds, and whether that is all bugbout needs: the files `deno publish`
 * would upload (from a real `deno publish --dry-run`, which reaches no registry but npm's), the
 * modules reachable from `main.ts` (`deno info --json`), bugbout's Python helpers, and
 * {@linkcode packageProblems}, the check itself: a pure function, so that a planted graph can
 * prove that it fails.
 *
 * @module
 */

import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../lib/proc.ts";

/** What the check looks at, every path relative to the package root. */
export interface PackageFacts {
  /** The package root (where `deno.json` is), absolute. */
  root: string;
  /** The specifier of every module reachable from `main.ts`. */
  modules: string[];
  /** The files `deno publish` would upload. */
  published: string[];
  /** What `deno publish --dry-run` itself refused, one line each (`error[excluded-module]: ...`). */
  refused: string[];
  /**
   * bugbout's Python helpers, which it writes into environments: modules that carry a Python
   * program (they must ship and be reachable from `main.ts`) and `.py` files (they must ship).
   */
  helpers: string[];
  /** Files the code reads beside itself (`new URL("./x", import.meta.url)`): they must ship. */
  assets: string[];
}

/** The schemes a published module may import besides its own files. */
const EXTERNAL = ["npm:", "node:", "jsr:"];

/** Why the package would not work as published; empty when it is complete. */
export function packageProblems(facts: PackageFacts): string[] {
  const published = new Set(facts.published);
  const problems = facts.refused.map((line) => `deno publish --dry-run: ${line}`);
  const local = new Set<string>();
  for (const specifier of facts.modules) {
    if (EXTERNAL.some((scheme) => specifier.startsWith(scheme))) continue;
    if (!specifier.startsWith("file:")) {
      problems.push(
        `main.ts reaches ${specifier}: a package imports only its own files and ` +
          EXTERNAL.join(", "),
      );
      continue;
    }
    const path = relative(facts.root, fileURLToPath(specifier));
    local.add(path);
    if (path.startsWith("..")) {
      problems.push(`main.ts reaches ${path}, outside the package`);
    } else if (/^(tests|bench)\//.test(path)) {
      problems.push(`main.ts reaches ${path}: shipped code must not import tests or benches`);
    } else if (!published.has(path)) {
      problems.push(`main.ts reaches ${path}, which deno publish leaves out (deno.json publish)`);
    }
  }
  for (const helper of facts.helpers) {
    if (!published.has(helper)) {
      problems.push(`${helper} (written into environments) is not published`);
    }
    if (helper.endsWith(".ts") && !local.has(helper)) {
      problems.push(`${helper} (written into environments) is not reachable from main.ts`);
    }
  }
  for (const asset of facts.assets) {
    if (!published.has(asset)) problems.push(`${asset} (read beside the code) is not published`);
  }
  return problems;
}

/**
 * No timeout: a dry run on a busy machine may take minutes, and a test must never fail for being
 * slow. No update check: a test causes no traffic but to 127.0.0.1 (npm's registry aside).
 */
const QUIET = { env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } };

/**
 * The files `deno publish` would upload from `root`, relative to it, from a real dry run, and what
 * it refused. A dry run that refuses lists no file: they then come from
 * {@linkcode filesByExclude}, chosen the way `deno publish` chooses them.
 */
export async function publishedFiles(
  root: string,
): Promise<{ files: string[]; refused: string[] }> {
  // `--no-check`: what is uploaded does not depend on type checking, which `deno check` and CI's
  // own dry run do; checked, a copy of the package in a new directory took ~2 minutes under load.
  // Slow types and excluded modules are still checked.
  const argv = [Deno.execPath(), "publish", "--dry-run", "--allow-dirty", "--no-check"];
  const result = await run(argv, {
    ...QUIET,
    cwd: root,
    okCodes: "any",
  });
  const refused = [...result.stderr.matchAll(/^(error\[[\w-]+\]: .*)\n\s*--> (.*)$/gm)]
    .map((m) => `${m[1]} (${relative(root, m[2].replace(/:\d+:\d+$/, ""))})`);
  const files = [...result.stderr.matchAll(/^\s+(file:\/\/\S+) \([\d.]+\w*B\)$/gm)]
    .map((m) => relative(root, fileURLToPath(m[1])));
  if (result.code === 0 && files.length > 0) return { files: files.sort(), refused };
  if (refused.length === 0) {
    throw new Error(`deno publish --dry-run failed (exit ${result.code}):\n${result.stderr}`);
  }
  return { files: await filesByExclude(root), refused };
}

/** A glob of `deno.json` or `.gitignore` as a regular expression over a relative path. */
function globPattern(glob: string): string {
  const escape = (part: string) =>
    part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*").replaceAll("?", "[^/]");
  return glob.split("**").map(escape).join(".*");
}

/** One exclusion: a path pattern, and whether it names directories only. */
interface Exclusion {
  pattern: RegExp;
  dirOnly: boolean;
}

/** `deno.json`'s `exclude` and `publish.exclude` (paths from the root) and `.gitignore`'s rules. */
async function exclusions(root: string): Promise<Exclusion[]> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const rules: Exclusion[] = [];
  for (const raw of [...config.exclude ?? [], ...config.publish?.exclude ?? []] as string[]) {
    const glob = raw.replace(/^\.\//, "").replace(/\/$/, "");
    rules.push({ pattern: new RegExp(`^${globPattern(glob)}$`), dirOnly: false });
  }
  const gitignore = await Deno.readTextFile(join(root, ".gitignore")).catch(() => "");
  for (const line of gitignore.split("\n").map((l) => l.trim())) {
    if (!line || line.startsWith("#") || line.startsWith("!")) continue;
    const dirOnly = line.endsWith("/");
    const glob = line.replace(/\/$/, "");
    // Git anchors a pattern with a slash in it to the root; one without matches at any depth.
    const body = globPattern(glob.replace(/^\//, ""));
    const pattern = glob.includes("/") ? `^${body}$` : `(^|/)${body}$`;
    rules.push({ pattern: new RegExp(pattern), dirOnly });
  }
  return rules;
}

/** Names `deno publish` never uploads, wherever they are. */
const NEVER = new Set([".git", ".gitignore", ".DS_Store"]);

/** The files under `root` that `deno.json` and `.gitignore` leave to publish. */
export async function filesByExclude(root: string): Promise<string[]> {
  const rules = await exclusions(root);
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(root, dir))) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (NEVER.has(entry.name)) continue;
      if (rules.some((r) => r.pattern.test(path) && (entry.isDirectory || !r.dirOnly))) continue;
      if (entry.isDirectory) await walk(path);
      else files.push(path);
    }
  };
  await walk("");
  return files.sort();
}

/** Every module reachable from `root`'s `main.ts`: static and analyzable dynamic imports. */
export async function moduleGraph(root: string): Promise<string[]> {
  const result = await run([Deno.execPath(), "info", "--json", "main.ts"], { ...QUIET, cwd: root });
  const info = JSON.parse(result.stdout) as { modules: { specifier: string }[] };
  return info.modules.map((m) => m.specifier).sort();
}

/** Relative files a module's text reads beside itself through `import.meta.url`. */
export function assetsOf(specifier: string, text: string, root: string): string[] {
  const found: string[] = [];
  const pattern = /new URL\(\s*["'`](\.{1,2}\/[^"'`]+)["'`]\s*,\s*import\.meta\.url\s*\)/g;
  for (const m of text.matchAll(pattern)) {
    found.push(relative(root, fileURLToPath(new URL(m[1], specifier))));
  }
  return found;
}

/**
 * True for a module that carries a Python program bugbout writes into environments (the guard,
 * the test comparer, the scripted agent): a `String.raw` template with Python's imports or defs.
 */
export function carriesPython(text: string): boolean {
  for (const m of text.matchAll(/String\s*\.raw`([\s\S]*?)`/g)) {
    if (/^(import \w+|from \w+ import |def \w+\()/m.test(m[1])) return true;
  }
  return false;
}

/** The folders of shipped code. */
const SHIPPED = ["lib", "adapters", "judge"];

/** bugbout's Python helpers under `root`'s shipped folders (see `PackageFacts.helpers`). */
export async function pythonHelpers(root: string): Promise<string[]> {
  const helpers: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(root, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".py")) helpers.push(path);
      else if (entry.name.endsWith(".ts")) {
        if (carriesPython(await Deno.readTextFile(join(root, path)))) helpers.push(path);
      }
    }
  };
  for (const dir of SHIPPED) await walk(dir);
  return helpers.sort();
}

/** Everything {@linkcode packageProblems} needs, for the package at `root`. */
export async function packageFacts(root: string): Promise<PackageFacts> {
  const [modules, publish] = await Promise.all([moduleGraph(root), publishedFiles(root)]);
  const assets: string[] = [];
  for (const specifier of modules) {
    if (!specifier.startsWith("file:") || !specifier.endsWith(".ts")) continue;
    assets.push(...assetsOf(specifier, await Deno.readTextFile(fileURLToPath(specifier)), root));
  }
  const helpers = await pythonHelpers(root);
  return { root, modules, published: publish.files, refused: publish.refused, helpers, assets };
}
