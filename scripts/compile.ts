/**
 * `deno task compile`: one executable per OS and architecture in `dist/`.
 *
 * `deno compile` downloads the Deno runtime (`denort`) for each target from dl.deno.land. Where
 * that host cannot be reached this says so plainly and points at the alternatives, instead of
 * failing with a DNS stack trace. Set `DENORT_BIN` to a local denort to compile offline for this
 * machine's own target.
 *
 * Usage: deno run -A scripts/compile.ts [TARGET ...]
 *
 * @module
 */

/** The targets a release builds: Deno's names for them, which are Rust's target triples. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/**
 * The executable's file name for `target`, as users look for it on a release page:
 * `bugbout-<target triple>`, with `.exe` on Windows (`bugbout-x86_64-pc-windows-msvc.exe`).
 */
export function executableName(target: string): string {
  return `bugbout-${target}${target.includes("windows") ? ".exe" : ""}`;
}

const NETWORK = /dl\.deno\.land|error sending request|dns error|failed to lookup address/;

/** Explain a failed compile in one paragraph, or undefined when it is not the runtime download. */
export function explainCompileFailure(target: string, stderr: string): string | undefined {
  if (!NETWORK.test(stderr)) return undefined;
  return [
    `deno compile could not download the Deno runtime (denort) for ${target} from dl.deno.land:`,
    "this machine cannot reach that host. Nothing was built. Either run `deno task compile` (or the",
    "release workflow, .github/workflows/release.yml) where dl.deno.land is reachable, set",
    "DENORT_BIN to a denort binary you already have (this machine's own target only), or use",
    "`deno task bundle` and run `deno run -A dist/bugbout.js`, which needs no download.",
  ].join("\n");
}

async function compile(target: string): Promise<boolean> {
  const out = `dist/${executableName(target)}`;
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["compile", "-A", "--no-check", "--target", target, "-o", out, "main.ts"],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (result.success) {
    console.log(`built ${out}`);
    return true;
  }
  const stderr = new TextDecoder().decode(result.stderr);
  console.error(explainCompileFailure(target, stderr) ?? stderr);
  return false;
}

if (import.meta.main) {
  const targets = Deno.args.length ? Deno.args : TARGETS;
  const unknown = targets.filter((t) => !(TARGETS as readonly string[]).includes(t));
  if (unknown.length) {
    console.error(
      `error: unknown target ${unknown.join(", ")}; expected one of ${TARGETS.join(", ")}`,
    );
    Deno.exit(2);
  }
  let ok = true;
  for (const target of targets) {
    if (!await compile(target)) {
      ok = false;
      // Every other target needs the same download: say it once.
      break;
    }
  }
  Deno.exit(ok ? 0 : 1);
}
