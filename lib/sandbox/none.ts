/**
 * No sandbox at all: `sandbox = "none"`. The command can read, write and reach everything
 * bugbout can, including the fix in the user's repository. Only the environment, the timeout
 * (which kills the whole process group) and the memory cap still apply.
 *
 * Requires `--allow-run`.
 *
 * @module
 */

import { runConfined } from "./_run.ts";
import { withMemoryCap } from "./bwrap.ts";
import type { Confinement, Sandbox, SandboxResult } from "./types.ts";

/** What to tell a person about a run without a sandbox. */
export const UNCONFINED: string =
  'unconfined (sandbox = "none"): commands can read, write and reach anything bugbout can, ' +
  "including the fix in your repository";

/**
 * Runs commands unconfined, in their own process group so a timeout kills stragglers too.
 * `readable`, `writable`, `deny` and `network` are ignored; `env` is still the whole environment.
 */
export class UnconfinedSandbox implements Sandbox {
  /** Always `none`. */
  readonly kind = "none" as const;
  /** Says plainly that nothing is confined. */
  readonly description: string = UNCONFINED;

  /** Run `argv` in `workdir`; never throws for the command's own exit code. */
  async run(argv: string[], c: Confinement): Promise<SandboxResult> {
    const command = c.memoryMb !== undefined ? withMemoryCap(argv, c.memoryMb) : argv;
    return await runConfined(command, c, {
      cwd: c.workdir,
      env: c.home ? { ...c.env, HOME: c.home } : c.env,
      ownGroup: true,
      writable: [c.workdir, ...c.writable ?? []],
    });
  }
}
