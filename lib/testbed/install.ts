/**
 * Installing authors' tests into a tree and naming what pytest reports back.
 *
 * A **group** is one author's targets in one session: the files pytest is given, and how each node
 * id it reports maps to the id the matrix knows the test by (or to nothing, for the repository's
 * tests that happen to live in an author's modified module).
 *
 * Requires `--allow-read` and `--allow-write` on the trees.
 *
 * @module
 */

import { join } from "node:path";
import { REPOSITORY } from "../records.ts";
import { targetFile, testOfNode } from "../lang/python/mod.ts";
import { type AuthorModule, type AuthorTests, siblingDirs, siblingPath } from "./authors.ts";
import { type FileState, writeState } from "./patched.ts";

/** One author's targets in one pytest session. */
export interface TestGroup {
  /** The author: an agent's name, or {@linkcode REPOSITORY}. */
  owner: string;
  /** Files to give pytest, relative to the tree. */
  targets: string[];
  /** The matrix id of a node id the session reported, or undefined when it is not this group's. */
  idOf(nodeId: string): string | undefined;
  /** The node id to give pytest for a matrix id of this group's (the inverse of `idOf`). */
  nodeOf(id: string): string;
}

/** The repository's own suite: every node id in its files is its own. */
export function suiteGroup(files: readonly string[]): TestGroup {
  const known = new Set(files);
  return {
    owner: REPOSITORY,
    targets: [...files],
    idOf: (nodeId) => (known.has(targetFile(nodeId)) ? nodeId : undefined),
    nodeOf: (id) => id,
  };
}

/** `group` running only the tests (or modules) with these matrix ids. */
export function narrowed(group: TestGroup, ids: Iterable<string>): TestGroup {
  return { ...group, targets: [...ids].map((id) => group.nodeOf(id)) };
}

/**
 * An author's tests as one group.
 *
 * - `beside`: its modules sit in `<dir>/` beside the originals; node ids are matrix ids.
 * - `in-place`: its modules sit at their own paths; node ids are renamed to the `beside` ids.
 * - `as-is`: at their own paths, and known by those paths (outside a bout: one author only).
 */
export function authorGroup(
  owner: string,
  modules: readonly AuthorModule[],
  layout: { mode: "beside" | "in-place"; dir: string } | { mode: "as-is" },
): TestGroup {
  const byTarget = new Map<string, AuthorModule>();
  const rename = new Map<string, string>();
  const back = new Map<string, string>();
  for (const module of modules) {
    const physical = layout.mode === "beside" ? siblingPath(module.path, layout.dir) : module.path;
    byTarget.set(physical, module);
    const id = layout.mode === "as-is" ? module.path : siblingPath(module.path, layout.dir);
    rename.set(physical, id);
    back.set(id, physical);
  }
  return {
    owner,
    targets: [...byTarget.keys()],
    idOf(nodeId) {
      const file = targetFile(nodeId);
      const module = byTarget.get(file);
      if (!module) return undefined;
      const test = testOfNode(nodeId, file);
      if (test !== undefined && !module.whole && !module.tests.includes(test)) return undefined;
      return rename.get(file)! + nodeId.slice(file.length);
    },
    nodeOf(id) {
      const at = id.indexOf("::");
      const file = at < 0 ? id : id.slice(0, at);
      return (back.get(file) ?? file) + id.slice(file.length);
    },
  };
}

/** Install a shared author's modules beside the originals, each directory a package of its own. */
export async function installBeside(tree: string, author: AuthorTests): Promise<void> {
  for (const dir of siblingDirs(author)) {
    await Deno.mkdir(join(tree, dir), { recursive: true });
    await Deno.writeTextFile(join(tree, dir, "__init__.py"), "");
  }
  for (const module of author.modules) {
    await writeState(tree, siblingPath(module.path, author.dir), author.files.get(module.path)!);
  }
}

/** Put files into a tree at their own paths (absent ones are removed). */
export async function installInPlace(
  tree: string,
  files: ReadonlyMap<string, FileState>,
): Promise<void> {
  for (const [path, state] of files) await writeState(tree, path, state);
}
