/**
 * Test ids of the command runner, made from what the JUnit XML names: `file::classname.name`
 * where the report gives the test's file, else `classname.name` (a test that is its own "file").
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { JUnitCase } from "./junit.ts";

/** The name a report gives a test: `classname.name` (just `name` without a class). */
export function caseName(c: Pick<JUnitCase, "classname" | "name">): string {
  return c.classname ? `${c.classname}.${c.name}` : c.name;
}

/** The id of a reported test case, its file made relative to the tree (`./` and the tree cut). */
export function caseId(c: JUnitCase, tree: string): string {
  const name = caseName(c);
  if (!c.file) return name;
  return `${relativeFile(c.file, tree)}::${name}`;
}

/** A file as a report names it, relative to the tree when it lies in it. */
export function relativeFile(file: string, tree: string): string {
  let f = file.replaceAll("\\", "/");
  const root = tree.replace(/\/+$/, "") + "/";
  if (f.startsWith(root)) f = f.slice(root.length);
  return f.replace(/^(\.\/)+/, "");
}

/** The file part of an id (the id itself when the report named no file). */
export function idFile(id: string): string {
  const at = id.indexOf("::");
  return at < 0 ? id : id.slice(0, at);
}

/** The name part of an id (`classname.name`). */
export function idName(id: string): string {
  const at = id.indexOf("::");
  return at < 0 ? id : id.slice(at + 2);
}
