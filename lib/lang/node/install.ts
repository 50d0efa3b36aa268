/**
 * The test environment of a JS/TS tree: its dependencies installed from the lockfile, once per
 * lockfile, into `<cache>/node-<key>/node_modules`, before any sandbox closes the network.
 *
 * Only the files that shape an install (`package.json`, the lockfile, `.npmrc`,
 * `pnpm-workspace.yaml`, `.yarnrc.yml`) are copied into a stage directory, and the package
 * manager installs there: `npm ci`, `pnpm install --frozen-lockfile`, `yarn install
 * --frozen-lockfile` (yarn 2+: `--immutable`, with the `node-modules` linker), `npm install`
 * when there is no lockfile. Install scripts are not run (`--ignore-scripts`): they would run on
 * the host, unsandboxed, with the network open; packages that need one (native addons) are not
 * served. The result is made world-readable, because the sandbox runs tests as an unprivileged
 * user when bugbout runs as root.
 *
 * A tree gets the environment through a `node_modules` directory of symbolic links, one to each
 * top-level package of `<cache>/.../node_modules`, made by the runner before each group (see
 * `run.ts`). Links cost nothing per tree where a copy costs tens of megabytes; unlike `NODE_PATH`
 * they serve ES modules and vite's resolver, which look for `node_modules` directories up from
 * the importing file and ignore `NODE_PATH`; and unlike one link of the whole directory they
 * leave `node_modules` itself writable for the caches tools keep there (`.vite-temp`). Node
 * resolves each link to its real path, so packages find each other in the cache.
 *
 * Requires `--allow-run` (node, the package manager, chmod), `--allow-read`, `--allow-write`
 * (the cache) and `--allow-env`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { z } from "../../deps.ts";
import { BugboutError } from "../../errors.ts";
import { readTextIfExists, realPathIfExists, removeIfExists } from "../../fs.ts";
import { inputsKey } from "../../hash.ts";
import { run, which } from "../../proc.ts";
import { writeJsonAtomic } from "../../store.ts";
import type { RunnerEnv } from "../types.ts";
import { type NodeProject, type PackageManager, readNodeProject } from "./detect.ts";

/** Bumped when the way environments are built changes. */
const LAYOUT = 1;
const MANIFEST = "bugbout-node-env.json";
/** Files that shape an install, copied into the stage when the tree has them. */
const INSTALL_FILES = [
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "pnpm-workspace.yaml",
  "yarn.lock",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
];

const manifestSchema = z.object({
  layout: z.literal(LAYOUT),
  key: z.string(),
  nodeModules: z.string(),
  readable: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  describe: z.string(),
});

/** Where the node that runs tests lives, and its version. */
export interface NodeBinary {
  /** Its real path. */
  path: string;
  /** `v20.20.2`. */
  version: string;
}

/** The `node` on PATH; throws a {@linkcode BugboutError} when there is none. */
export async function findNode(signal?: AbortSignal): Promise<NodeBinary> {
  const found = await which("node");
  if (!found) {
    throw new BugboutError("Cannot run node: it is not installed or not on PATH.", {
      hint: "Install Node.js 20 or later (https://nodejs.org/) and put node on PATH.",
    });
  }
  const path = (await realPathIfExists(found)) ?? found;
  const result = await run([path, "--version"], {
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 30_000,
    signal,
  });
  return { path, version: result.stdout.trim() };
}

/** The argv prefix that runs `manager`, and how: on PATH, or through corepack. */
async function managerCommand(manager: PackageManager): Promise<string[]> {
  const program = manager === "yarn-berry" ? "yarn" : manager;
  if (program === "npm") {
    if (await which("npm")) return ["npm"];
    throw new BugboutError("Cannot run npm: it is not installed or not on PATH.", {
      hint: "Install Node.js with npm (https://nodejs.org/).",
    });
  }
  // A yarn 1 on PATH cannot install a yarn 2+ lockfile: corepack picks the version it needs.
  if (manager !== "yarn-berry" && await which(program)) return [program];
  if (await which("corepack")) return ["corepack", program];
  throw new BugboutError(
    `Cannot install this project's dependencies: its lockfile is ${program}'s, and neither ${program} nor corepack is on PATH.`,
    {
      hint:
        `Install ${program} (\`npm install -g ${program}\`), or run \`corepack enable\` (corepack ships with Node.js 16.9 to 24).`,
    },
  );
}

/** The install command of a manager, after its argv prefix. Pure. */
export function installArgs(manager: PackageManager, lockfile: string | null): string[] {
  if (manager === "npm") {
    return lockfile
      ? ["ci", "--ignore-scripts", "--no-audit", "--no-fund"]
      : ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock"];
  }
  if (manager === "pnpm") return ["install", "--frozen-lockfile", "--ignore-scripts"];
  if (manager === "yarn") {
    return ["install", "--frozen-lockfile", "--ignore-scripts", "--non-interactive"];
  }
  return ["install", "--immutable"];
}

const building = new Map<string, Promise<RunnerEnv>>();

/**
 * The test environment of `tree`, installed on first use under `cache` and reused afterwards (by
 * this process and any other). Throws a {@linkcode BugboutError} that says what to install or fix.
 */
export async function prepareNode(
  tree: string,
  cache: string,
  signal?: AbortSignal,
): Promise<RunnerEnv> {
  const project = await readNodeProject(tree);
  if (!project) {
    throw new BugboutError(`Cannot prepare ${tree}: it has no package.json naming a test runner.`, {
      hint:
        "bugbout serves vitest, jest and node --test: set scripts.test in package.json, or add the runner's config file.",
    });
  }
  const node = await findNode(signal);
  const files: Record<string, string> = {};
  for (const file of INSTALL_FILES) {
    const text = await readTextIfExists(join(tree, file));
    if (text !== undefined) files[file] = text;
  }
  const pkg = JSON.parse(files["package.json"]);
  if (pkg.workspaces || files["pnpm-workspace.yaml"] !== undefined) {
    throw new BugboutError(`Cannot prepare ${tree}: workspaces (monorepos) are not served yet.`, {
      hint: "Point bugbout at one package of the workspace, with a lockfile of its own.",
    });
  }
  const key = inputsKey({ layout: LAYOUT, manager: project.manager, node: node.version, files });
  const dir = join(cache, `node-${key}`);
  let pending = building.get(dir);
  if (!pending) {
    pending = lockedBuild({ dir, key, project, node, files, signal });
    building.set(dir, pending);
    pending.catch(() => building.delete(dir));
  }
  return await pending;
}

interface Build {
  dir: string;
  key: string;
  project: NodeProject;
  node: NodeBinary;
  files: Record<string, string>;
  signal?: AbortSignal;
}

async function readManifest(dir: string): Promise<RunnerEnv | undefined> {
  const text = await readTextIfExists(join(dir, MANIFEST));
  if (text === undefined) return undefined;
  try {
    const data = manifestSchema.parse(JSON.parse(text));
    // The cache was moved or emptied under the manifest: build again.
    if (!(await realPathIfExists(data.nodeModules))) return undefined;
    return { key: data.key, readable: data.readable, env: data.env, describe: data.describe };
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof z.ZodError) return undefined;
    throw error;
  }
}

async function lockedBuild(build: Build): Promise<RunnerEnv> {
  const ready = await readManifest(build.dir);
  if (ready) return ready;
  await Deno.mkdir(dirname(build.dir), { recursive: true });
  using lock = await Deno.open(`${build.dir}.lock`, { create: true, write: true });
  await lock.lock(true);
  try {
    const built = await readManifest(build.dir);
    if (built) return built;
    await removeIfExists(build.dir);
    try {
      return await install(build);
    } catch (error) {
      await removeIfExists(build.dir);
      throw error;
    }
  } finally {
    await lock.unlock();
  }
}

async function install(build: Build): Promise<RunnerEnv> {
  const { dir, project, node } = build;
  await Deno.mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(build.files)) {
    await Deno.writeTextFile(join(dir, file), text);
  }
  const cache = dirname(dir);
  const prefix = await managerCommand(project.manager);
  const argv = [...prefix, ...installArgs(project.manager, project.lockfile)];
  if (project.manager === "pnpm") argv.push("--store-dir", join(cache, "pnpm-store"));
  const installEnv: Record<string, string> = {
    PATH: `${dirname(node.path)}:${Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin"}`,
    HOME: Deno.env.get("HOME") ?? dir,
    LANG: "C.UTF-8",
    npm_config_cache: Deno.env.get("npm_config_cache") || join(cache, "npm-cache"),
    npm_config_update_notifier: "false",
    COREPACK_ENABLE_DOWNLOAD_PROMPT: "0",
    COREPACK_HOME: Deno.env.get("COREPACK_HOME") || join(cache, "corepack"),
    YARN_NODE_LINKER: "node-modules",
    YARN_ENABLE_SCRIPTS: "false",
    YARN_ENABLE_TELEMETRY: "0",
    YARN_CACHE_FOLDER: join(cache, "yarn-cache"),
  };
  // Certificates and proxies of the machine still apply to the registry.
  for (
    const name of ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"]
  ) {
    const value = Deno.env.get(name);
    if (value) installEnv[name] = value;
  }
  const result = await run(argv, {
    cwd: dir,
    env: installEnv,
    clearEnv: true,
    okCodes: "any",
    timeoutMs: 1_800_000,
    signal: build.signal,
  });
  if (result.code !== 0 || result.timedOut) {
    const what = project.lockfile
      ? `${argv.slice(0, 3).join(" ")} could not install from ${project.lockfile}`
      : `${argv.slice(0, 2).join(" ")} could not install package.json's dependencies`;
    const output = result.stderr.trim() || result.stdout.trim();
    // Older corepacks cannot verify the registry's newer signing keys and refuse every download.
    const corepackKeys = argv[0] === "corepack" && /No compatible signature found/.test(output);
    throw new BugboutError(
      `Cannot prepare the test environment: ${what}:\n${output.split("\n").slice(-15).join("\n")}`,
      {
        hint: corepackKeys
          ? `This corepack cannot check the npm registry's signatures: install ${
            argv[1]
          } itself (\`npm install -g ${
            argv[1]
          }\`), or update corepack (\`npm install -g corepack\`).`
          : project.lockfile
          ? `Check that ${project.lockfile} is in step with package.json (run the install yourself), and that the registry is reachable.`
          : "Commit a lockfile (package-lock.json) so that the versions are those the project tested with.",
      },
    );
  }
  const nodeModules = join(dir, "node_modules");
  await Deno.mkdir(nodeModules, { recursive: true });
  const runnerPackage = project.runner === "node" ? undefined : project.runner;
  let runnerVersion = node.version;
  if (runnerPackage) {
    const text = await readTextIfExists(join(nodeModules, runnerPackage, "package.json"));
    if (text === undefined) {
      throw new BugboutError(
        `Cannot prepare the test environment: ${runnerPackage} is not among the installed packages.`,
        {
          hint: `Add ${runnerPackage} to devDependencies in package.json and update the lockfile.`,
        },
      );
    }
    runnerVersion = JSON.parse(text).version;
  }
  // Readable by whichever user the sandbox runs tests as.
  await run(["chmod", "-R", "a+rX", "--", dir], {
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 600_000,
  });
  const realModules = await Deno.realPath(nodeModules);
  const readable = [await Deno.realPath(dir)];
  // A node outside the system directories (nvm, a tarball) must be shown too.
  if (!/^\/(usr|bin|lib)/.test(node.path)) readable.push(dirname(dirname(node.path)));
  const count = Object.keys(
    JSON.parse((await readTextIfExists(join(nodeModules, ".package-lock.json"))) ?? "{}")
      .packages ?? {},
  ).length;
  const env: RunnerEnv = {
    key: build.key,
    readable,
    env: {
      PATH: `${dirname(node.path)}:/usr/local/bin:/usr/bin:/bin`,
      NODE_PATH: realModules,
      LANG: "C.UTF-8",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
    },
    describe: `${project.manager}${count ? ` (${count} packages)` : ""}, ${
      runnerPackage ? `${runnerPackage} ${runnerVersion}, ` : ""
    }node ${node.version}${project.lockfile ? "" : ", no lockfile"}`,
  };
  await writeJsonAtomic(join(dir, MANIFEST), {
    ...env,
    layout: LAYOUT,
    nodeModules: realModules,
  });
  await Deno.chmod(join(dir, MANIFEST), 0o644);
  return env;
}
