/**
 * Shared pieces of the Go runner's tests: the real bubblewrap sandbox, the fixture's environment
 * prepared once in a persistent test cache (the warm build cache takes a while to make the first
 * time), and trees written from files.
 *
 * @module
 */

import { join } from "node:path";
import { goRunner } from "../../lib/lang/go/mod.ts";
import type { RunnerEnv, RunnerRun, RunnerRunOptions } from "../../lib/lang/types.ts";
import { GO_MOD } from "../fixtures/go_project.ts";
import { sandbox, tempDir, writeFiles } from "../python/_shared.ts";

export { sandbox, tempDir, writeFiles };

/** The runner under test. */
export const runner = goRunner();

/** Where the Go tests keep environments between runs (`~/.cache/bugbout-test/go`). */
export function goTestCache(): string {
  const base = Deno.env.get("BUGBOUT_TEST_CACHE") ||
    join(
      Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") || "/tmp", ".cache"),
      "bugbout-test",
    );
  return join(base, "go");
}

let shared: Promise<RunnerEnv> | undefined;

/** The environment of every tree whose go.mod is the fixture's {@linkcode GO_MOD}. */
export function fixtureEnv(): Promise<RunnerEnv> {
  shared ??= (async () => {
    await using tmp = await tempDir("bugbout-go-env-");
    await writeFiles(tmp.path, { "go.mod": GO_MOD, "a/a_test.go": STD_IMPORTS });
    return await runner.prepare(tmp.path, goTestCache());
  })();
  return shared;
}

/** A test file importing what the tests' trees import, so the seed cache holds it compiled. */
const STD_IMPORTS = `package a

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var _ = []any{fmt.Sprint, math.Pow, os.Exit, strconv.Atoi, strings.Fields, syscall.Exit, time.Now}

func TestA(t *testing.T) {}
`;

/** Run groups on `tree` with the fixture's environment in the real bubblewrap sandbox. */
export async function runTree(
  tree: string,
  groups: string[][],
  over: Partial<RunnerRunOptions> = {},
): Promise<RunnerRun> {
  return await runner.run({
    sandbox: await sandbox("bubblewrap"),
    env: await fixtureEnv(),
    tree,
    groups,
    timeoutMs: 120_000,
    memoryMb: 2048,
    ...over,
  });
}

/** Write a module (the fixture's go.mod plus `files`) into a new directory under `root`. */
export async function writeModule(
  root: string,
  files: Record<string, string>,
  name = "tree",
): Promise<string> {
  const tree = join(root, name);
  await writeFiles(tree, { "go.mod": GO_MOD, ...files });
  return tree;
}
