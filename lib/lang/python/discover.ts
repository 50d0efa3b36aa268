/**
 * Find uv and a Python on this machine that satisfies the project. uv never downloads a Python
 * here: the project's default must be something the machine has.
 *
 * Requires `--allow-run=uv` and `--allow-env`.
 *
 * @module
 */

import { BugboutError } from "../../errors.ts";
import { declaredPython } from "./layout.ts";
import { NotInstalledError, run } from "../../proc.ts";

/** A Python interpreter chosen for a project. */
export interface PythonChoice {
  /** Absolute path of the interpreter. */
  path: string;
  /** Its version, e.g. `3.11.7`. */
  version: string;
  /** What was asked for (`3.12`, `>=3.9`, or `any`). */
  request: string;
  /** Where the request came from. */
  from: "bugbout.toml" | "pyproject.toml" | "setup.cfg" | "setup.py" | "interpreter" | "default";
}

/** The environment uv runs with: no Python downloads, no user config surprises. */
export function uvEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const key of [
      "PATH",
      "HOME",
      "UV_CACHE_DIR",
      "UV_INDEX_URL",
      "UV_EXTRA_INDEX_URL",
      "PIP_INDEX_URL",
      "SSL_CERT_FILE",
      "XDG_CACHE_HOME",
      "UV_NATIVE_TLS",
    ]
  ) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  return { ...env, UV_PYTHON_DOWNLOADS: "never", UV_NO_PROGRESS: "1", NO_COLOR: "1", ...extra };
}

/** The installed uv's version, or undefined when uv is missing. */
export async function uvVersion(): Promise<string | undefined> {
  try {
    const result = await run(["uv", "--version"], {
      env: uvEnv(),
      clearEnv: true,
      timeoutMs: 20_000,
    });
    return result.stdout.trim().replace(/^uv\s+/, "").split(" ")[0];
  } catch (error) {
    if (error instanceof NotInstalledError) return undefined;
    throw error;
  }
}

async function versionOf(path: string): Promise<string> {
  const result = await run([path, "-c", "import platform; print(platform.python_version())"], {
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    clearEnv: true,
    timeoutMs: 20_000,
  });
  return result.stdout.trim();
}

/**
 * Choose the Python for a project: `interpreter` if set, else `python` from bugbout.toml, else what
 * the repository declares, else uv's default — always one this machine already has.
 */
export async function resolvePython(
  repo: string,
  configured: { python?: string; interpreter?: string },
): Promise<PythonChoice> {
  if (configured.interpreter) {
    try {
      return {
        path: configured.interpreter,
        version: await versionOf(configured.interpreter),
        request: "interpreter",
        from: "interpreter",
      };
    } catch (error) {
      throw new BugboutError(
        `[project] interpreter ${configured.interpreter} cannot run: ${(error as Error).message}`,
        { hint: "Point interpreter at a working python executable, or remove it." },
      );
    }
  }
  const declared = configured.python ? undefined : await declaredPython(repo);
  const request = configured.python ?? declared?.spec ?? "any";
  const from: PythonChoice["from"] = configured.python
    ? "bugbout.toml"
    : (declared?.from as PythonChoice["from"]) ?? "default";
  let result;
  try {
    result = await run([
      "uv",
      "python",
      "find",
      "--no-python-downloads",
      ...(request === "any" ? [] : [request]),
    ], {
      env: uvEnv(),
      clearEnv: true,
      okCodes: "any",
      timeoutMs: 30_000,
    });
  } catch (error) {
    throw new BugboutError(`Cannot run uv: ${(error as Error).message}`, {
      hint: "Install uv (pip install uv, or see https://docs.astral.sh/uv/).",
    });
  }
  if (result.code !== 0) {
    throw new BugboutError(
      `No Python on this machine satisfies ${request} (asked for by ${from}).\n${result.stderr.trim()}`,
      {
        hint: configured.python
          ? `Set [project] python in bugbout.toml to a version this machine has (\`uv python list --only-installed\`), or install one.`
          : `Set [project] python in bugbout.toml to a version this machine has, or install one that satisfies ${request}.`,
      },
    );
  }
  const path = result.stdout.trim();
  return { path, version: await versionOf(path), request, from };
}
