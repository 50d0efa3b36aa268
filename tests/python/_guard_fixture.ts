/**
 * What the guard's tests share: one Python environment with pytest for the whole file (removed
 * when the test process ends), the real bubblewrap sandbox, and the buggy `calc` package whose two
 * tests fail unless something forges their outcome.
 *
 * @module
 */

import type { TestEnv } from "../../lib/lang/python/env.ts";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import type { Sandbox } from "../../lib/sandbox/types.ts";
import { sharedEnv } from "./_project.ts";

let envPromise: Promise<TestEnv> | undefined;
let envTmp: string | undefined;

/** The environment every session of the test file runs in, made once. */
export function env(): Promise<TestEnv> {
  envPromise ??= (async () => {
    envTmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-guard-env-" }));
    return await sharedEnv(envTmp);
  })();
  return envPromise;
}
globalThis.addEventListener("unload", () => {
  if (envTmp) Deno.removeSync(envTmp, { recursive: true });
});

let sandboxPromise: Promise<Sandbox> | undefined;

/** The real bubblewrap sandbox, opened once. */
export const sandbox = (): Promise<Sandbox> => sandboxPromise ??= openSandbox("bubblewrap");

/** The bug: `add` subtracts. Its tests fail unless something forges the outcome. */
export const BUG = "def add(a, b):\n    return a - b\n";

/** The two tests of `add`. */
export const TESTS: Record<string, string> = {
  "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
  "tests/test_more.py": "from calc import add\n\n\ndef test_more():\n    assert add(3, 1) == 4\n",
};
