/**
 * A tree built as its project builds it: what the bare tree on `PYTHONPATH` lacks and its build
 * backend makes — a version file generated at build time (hatch-vcs `version-file`,
 * setuptools-scm `version_file`/`write_to`), the project's console scripts, its installed
 * metadata (`importlib.metadata.version(...)`).
 *
 * An editable install of a scratch copy of the tree (`uv pip install --no-deps --target <overlay>
 * -e <copy>`, with `SETUPTOOLS_SCM_PRETEND_VERSION` since checkouts have no history) leaves two
 * things, both kept under `<builds>/<key>/`: the overlay (the `.dist-info` and `bin/` scripts;
 * put after the tree on `PYTHONPATH` and first on `PATH`, its scripts import the code from the
 * tree under test), and the files the build wrote into the tree (the generated version file),
 * which {@linkcode materialize} copies into every tree run with it. Builds are keyed by the
 * environment and the packaging files (`pyproject.toml`, `setup.py`, `setup.cfg`,
 * `MANIFEST.in`), so B, G and every patched copy of B that changes none of them share one.
 *
 * Only trees taken from the repository are built (the project's own code runs on the host as its
 * metadata build already does); a patched tree only receives the files of its base's build. A
 * build that fails is recorded as a note and the tree runs bare, as before.
 *
 * Requires `--allow-run` (uv, cp), `--allow-read`, `--allow-write` (the builds directory) and
 * `--allow-env`.
 *
 * @module
 */

import { dirname, join, relative, resolve } from "node:path";
import { z } from "../../deps.ts";
import { copyTree } from "../../checkout.ts";
import { readDirIfExists, readTextIfExists, removeIfExists, statIfExists } from "../../fs.ts";
import { inputsKey } from "../../hash.ts";
import { run } from "../../proc.ts";
import { writeJsonAtomic } from "../../store.ts";
import { dependencyFile } from "./dependencies.ts";
import { uvEnv } from "./discover.ts";

/** Bumped when the way trees are built changes, so old builds are not reused. */
export const BUILD_LAYOUT = 1;
const MANIFEST = "bugbout-build.json";
/** The files whose content decides what a build makes. */
const BUILD_INPUTS = ["pyproject.toml", "setup.py", "setup.cfg", "MANIFEST.in"];
/** The version a history-free checkout is built as. */
export const PRETEND_VERSION = "0.0.0";

/** What building a tree left. */
export interface ProjectBuild {
  /** Key of the build's inputs (the environment, the packaging files). */
  key: string;
  /** Where it is kept (readable by the tests). */
  dir: string;
  /** The overlay (`.dist-info`, `bin/`), or null when the build failed and the tree runs bare. */
  overlay: string | null;
  /** Files the build wrote into the tree, relative to the tree's root. */
  generated: string[];
  /** Why the tree runs bare (the build failed), in a line or two. */
  note?: string;
}

/** What a build needs. */
export interface BuildRequest {
  /** The tree, as taken from the repository (it is not changed: the build runs on a copy). */
  tree: string;
  /** `[project] source`: where the packaging files are looked for (see `dependencyFile`). */
  source: string;
  /** The environment's interpreter (the scripts' shebang). */
  python: string;
  /** The environment's key. */
  envKey: string;
  /** Where builds are kept. */
  buildsDir: string;
  /** Stop a long build. */
  signal?: AbortSignal;
}

const manifestSchema = z.object({
  layout: z.literal(BUILD_LAYOUT),
  key: z.string(),
  generated: z.array(z.string()),
});

const building = new Map<string, Promise<ProjectBuild>>();
/** Failed builds, by key: tried once per process, never saved (the next process tries again). */
const failed = new Map<string, ProjectBuild>();

/**
 * Build the tree (see the module's description), or find its build ready; null when the tree
 * has no packaging file a backend builds (only a `requirements.txt`, or nothing).
 */
export async function buildTree(request: BuildRequest): Promise<ProjectBuild | null> {
  const file = await dependencyFile(request.tree, request.source);
  if (file === null || file.endsWith("requirements.txt")) return null;
  const root = dirname(file);
  const inputs: Record<string, string | null> = {};
  for (const name of BUILD_INPUTS) {
    inputs[name] = (await readTextIfExists(join(request.tree, root, name))) ?? null;
  }
  const key = inputsKey({ layout: BUILD_LAYOUT, env: request.envKey, root, inputs });
  const dir = resolve(request.buildsDir, `build-${key}`);
  const known = failed.get(key);
  if (known) return known;
  let pending = building.get(dir);
  if (!pending) {
    pending = lockedBuild(request, root, key, dir);
    building.set(dir, pending);
    pending.then(() => building.delete(dir), () => building.delete(dir));
  }
  return await pending;
}

async function readBuild(dir: string, key: string): Promise<ProjectBuild | undefined> {
  const text = await readTextIfExists(join(dir, MANIFEST));
  if (text === undefined) return undefined;
  try {
    const data = manifestSchema.parse(JSON.parse(text));
    return { key, dir, overlay: join(dir, "overlay"), generated: data.generated };
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof z.ZodError) return undefined;
    throw error;
  }
}

async function lockedBuild(
  request: BuildRequest,
  root: string,
  key: string,
  dir: string,
): Promise<ProjectBuild> {
  const ready = await readBuild(dir, key);
  if (ready) return ready;
  await Deno.mkdir(dirname(dir), { recursive: true });
  using lock = await Deno.open(`${dir}.lock`, { create: true, write: true });
  await lock.lock(true);
  try {
    const built = await readBuild(dir, key);
    if (built) return built;
    await removeIfExists(dir);
    const result = await build(request, root, key, dir).catch(async (error) => {
      await removeIfExists(dir);
      throw error;
    });
    if (result.overlay === null) {
      await removeIfExists(dir);
      failed.set(key, result);
    }
    return result;
  } finally {
    await lock.unlock();
  }
}

/** Every file under `dir`, relative to it, but for caches Python writes itself. */
async function filesUnder(dir: string, at = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readDirIfExists(join(dir, at))) {
    const path = at ? `${at}/${entry.name}` : entry.name;
    if (entry.isDirectory) {
      if (entry.name === "__pycache__") continue;
      found.push(...await filesUnder(dir, path));
    } else found.push(path);
  }
  return found;
}

/**
 * What a build wrote that tests may need: not its metadata directories (`*.egg-info`, the overlay
 * has the metadata), nor `build/` scratch, nor byte code.
 */
function kept(path: string): boolean {
  const parts = path.split("/");
  return !parts.some((p) => p.endsWith(".egg-info") || p === "build" || p === "__pycache__") &&
    !path.endsWith(".pyc");
}

async function build(
  request: BuildRequest,
  root: string,
  key: string,
  dir: string,
): Promise<ProjectBuild> {
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-build-" });
  try {
    const copy = join(scratch, "tree");
    await copyTree(request.tree, copy, request.signal);
    const before = new Set(await filesUnder(copy));
    const overlay = join(dir, "overlay");
    const result = await run([
      "uv",
      "pip",
      "install",
      "--quiet",
      "--no-deps",
      "--python",
      request.python,
      "--target",
      overlay,
      "--editable",
      root === "." ? copy : join(copy, root),
    ], {
      cwd: scratch,
      env: uvEnv({ SETUPTOOLS_SCM_PRETEND_VERSION: PRETEND_VERSION }),
      clearEnv: true,
      okCodes: "any",
      timeoutMs: 600_000,
      signal: request.signal,
    });
    if (result.code !== 0) {
      const said = result.stderr.trim().split("\n").filter(Boolean).slice(-4).join(" ");
      return {
        key,
        dir,
        overlay: null,
        generated: [],
        note: `The tree could not be built (uv pip install --editable: ${
          said || `exit code ${result.code}`
        }); its tests run with the bare tree on PYTHONPATH.`,
      };
    }
    // The editable hooks are never read (the overlay is not a site directory): only the
    // metadata and the scripts matter.
    for (const entry of await readDirIfExists(overlay)) {
      if (entry.name.endsWith(".pth") || entry.name.startsWith("__editable__")) {
        await removeIfExists(join(overlay, entry.name));
      }
    }
    await removeIfExists(join(overlay, ".lock"));
    const generated = (await filesUnder(copy)).filter((p) => !before.has(p) && kept(p)).sort();
    for (const path of generated) {
      const to = join(dir, "files", path);
      await Deno.mkdir(dirname(to), { recursive: true });
      await Deno.copyFile(join(copy, path), to);
    }
    await writeJsonAtomic(join(dir, MANIFEST), { layout: BUILD_LAYOUT, key, generated });
    return { key, dir, overlay, generated };
  } finally {
    await removeIfExists(scratch);
  }
}

/**
 * Copy the files `build` wrote into the tree into `tree`, where they are not already; returns
 * those written, relative to `tree`.
 */
export async function materialize(build: ProjectBuild, tree: string): Promise<string[]> {
  const written: string[] = [];
  for (const path of build.generated) {
    const to = join(tree, path);
    if (await statIfExists(to)) continue;
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.copyFile(join(build.dir, "files", path), to);
    written.push(relative(tree, to));
  }
  return written;
}

/** The variables a tree's tests get from its build: the overlay after the tree, its scripts first. */
export function buildVariables(build: ProjectBuild | null, python: string): Record<string, string> {
  if (!build?.overlay) return {};
  return {
    PYTHONPATH: build.overlay,
    PATH: `${join(build.overlay, "bin")}:${dirname(python)}:/usr/local/bin:/usr/bin:/bin`,
  };
}
