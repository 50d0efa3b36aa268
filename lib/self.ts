/**
 * How this bugbout was started, and how it starts a helper of its own again.
 *
 * bugbout runs helpers of its own (the network bridge inside a bubblewrap sandbox). It never looks
 * for `deno` on PATH for them: a machine with the downloaded executable has no Deno. It re-runs
 * what runs it, `Deno.execPath()`, which is one of three things:
 *
 * - **compiled** (`deno compile`): the bugbout executable itself, Deno's runtime inside. Detected
 *   by `Deno.build.standalone`. `Deno.mainModule` then names a file in the executable's embedded
 *   file system, not one on disk, and the executable runs nothing but bugbout's `main.ts`: a helper
 *   is the executable again with an internal command (`bugbout __bridge ...`), which `runCli`
 *   routes before any argument parsing.
 * - **bundle** (`deno bundle`, run as `deno run -A dist/bugbout.js`): the Deno that runs the
 *   bundle. Detected by this module's own `import.meta.url`: bundling puts every module into one
 *   file, so it names the bundle instead of ending in `/lib/self.ts`.
 * - **source** (`deno run main.ts`, `deno run -A jsr:@bugbout/cli`, or bugbout imported as a
 *   library): the Deno that runs it; `import.meta.url` ends in `/lib/self.ts`. `Deno.mainModule`
 *   may be another program altogether (a script that imports bugbout), so it is never used.
 *
 * Under a bundle or the source, `Deno.execPath()` is a Deno that can run a script, so a helper is
 * a self-contained script it runs: the same code the internal command runs in an executable, with
 * nothing to resolve (no import, no config, no network). A compiled bugbout has no Deno but
 * itself, so the internal command runs that code in-process. (A program of one's own that embeds
 * bugbout and is compiled is "compiled" too: it must pass `Deno.args` to `runCli` when
 * `Deno.args[0]` is an internal command, as bugbout's `main.ts` does.)
 *
 * @module
 */

/** How bugbout was started. */
export type StartKind = "compiled" | "bundle" | "source";

/** How bugbout was started, and what runs it. */
export interface Start {
  /** Compiled executable, bundle, or source. */
  kind: StartKind;
  /** What runs bugbout (`Deno.execPath()`): the executable itself when compiled, else Deno. */
  executable: string;
  /** What was started: the executable, the bundle's file, or bugbout's `main.ts` (path or URL). */
  entry: string;
}

/** What {@linkcode detectStart} looks at; by default this process's. */
export interface StartFacts {
  /** `Deno.build.standalone`: true inside a `deno compile` executable. */
  standalone: boolean;
  /** `Deno.execPath()`. */
  execPath: string;
  /** `import.meta.url` of this module (`.../lib/self.ts`, unless bundled). */
  moduleUrl: string;
}

/** The file name this module has in the source tree (a bundle has no such module URL). */
const SELF = "/lib/self.ts";

/** Internal commands: what a re-run bugbout does instead of the CLI. Not shown in `--help`. */
export const INTERNAL_COMMANDS = {
  /** The network bridge inside a bubblewrap sandbox (`lib/sandbox/bridge.ts`). */
  bridge: "__bridge",
} as const;

/**
 * The Deno flags a helper script runs under: everything allowed (it is bugbout's own code), and
 * nothing to resolve or fetch, so it runs where only the script and Deno are visible.
 */
export const SCRIPT_FLAGS: readonly string[] = [
  "run",
  "-A",
  "--quiet",
  "--no-config",
  "--no-lock",
  "--no-remote",
  "--no-npm",
];

function pathOf(url: string): string {
  return url.startsWith("file:") ? decodeURIComponent(new URL(url).pathname) : url;
}

/** How the process with `facts` was started (see the module's documentation). */
export function detectStart(facts: StartFacts = currentFacts()): Start {
  const executable = facts.execPath;
  if (facts.standalone) return { kind: "compiled", executable, entry: executable };
  if (!facts.moduleUrl.endsWith(SELF)) {
    return { kind: "bundle", executable, entry: pathOf(facts.moduleUrl) };
  }
  const main = facts.moduleUrl.slice(0, -SELF.length) + "/main.ts";
  return { kind: "source", executable, entry: pathOf(main) };
}

/** This process's facts. Requires `--allow-read` (`Deno.execPath()`). */
function currentFacts(): StartFacts {
  return {
    standalone: Deno.build.standalone,
    execPath: Deno.execPath(),
    moduleUrl: import.meta.url,
  };
}

/**
 * The argv that starts the helper `command` again from `start`, before the helper's own
 * arguments: compiled, the executable with the internal command; otherwise this Deno running
 * `script`, the helper's self-contained script (see the module's documentation).
 */
export function helperCommand(
  start: Start,
  command: typeof INTERNAL_COMMANDS[keyof typeof INTERNAL_COMMANDS],
  script: string,
): string[] {
  if (start.kind === "compiled") return [start.executable, command];
  return [start.executable, ...SCRIPT_FLAGS, script];
}

/** One line for `--version`: how bugbout was started, and from where. */
export function describeStart(start: Start): string {
  switch (start.kind) {
    case "compiled":
      return `started as a compiled executable: ${start.entry}`;
    case "bundle":
      return `started from a bundle: ${start.entry}`;
    case "source":
      return `started from source: ${start.entry}`;
    default: {
      const never: never = start.kind;
      throw new Error(`unhandled start ${never}`);
    }
  }
}
