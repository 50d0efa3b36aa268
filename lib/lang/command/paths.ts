/**
 * What the `[command]` globs make of a tree's paths: test files, support files, configuration,
 * source.
 *
 * Pure; no permissions.
 *
 * @module
 */

import { globToRegExp, matchesGlob } from "../glob.ts";
import type { CommandSettings } from "../../config_command.ts";

/** The globs of `[command]`, compiled. */
export interface CommandPaths {
  /** Files the runner runs tests from. */
  tests: RegExp[];
  /** Test helpers and data. */
  support: RegExp[];
  /** Files that decide what runs and how it reports. */
  config: RegExp[];
  /** Source (empty: everything else). */
  source: RegExp[];
}

/** Compile the globs of `settings`. */
export function commandPaths(settings: CommandSettings): CommandPaths {
  const compile = (globs: readonly string[]) => globs.map(globToRegExp);
  return {
    tests: compile(settings.testFiles),
    support: compile(settings.supportFiles),
    config: compile(settings.configFiles),
    source: compile(settings.sourceFiles),
  };
}

/** Whether `path` is one of the files the test command runs tests from. */
export function isTestSource(paths: CommandPaths, path: string): boolean {
  return matchesGlob(path, paths.tests) && !matchesGlob(path, paths.config);
}

/** Whether `path` is test code or test data (hidden from agents at B). */
export function isTestPath(paths: CommandPaths, path: string): boolean {
  return matchesGlob(path, paths.tests) || matchesGlob(path, paths.support);
}

/** Whether `path` decides what runs (`[command] config-files`). */
export function isConfigPath(paths: CommandPaths, path: string): boolean {
  return matchesGlob(path, paths.config);
}
