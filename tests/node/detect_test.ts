import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  detectNode,
  managerOf,
  openNodeRunner,
  packageJsonTestChanges,
  readNodeProject,
  runnerOfScript,
} from "../../lib/lang/node/mod.ts";
import { readRunnerConfig } from "../../lib/lang/node/detect.ts";
import { installArgs } from "../../lib/lang/node/install.ts";
import { tempDir, writeFiles } from "./_shared.ts";

async function project(files: Record<string, string>) {
  const tmp = await tempDir();
  await writeFiles(tmp.path, files);
  return tmp;
}

const pkg = (extra: Record<string, unknown>) => JSON.stringify({ name: "x", ...extra });

Deno.test("detectNode() tells the package manager by the lockfile, npm when there is none", async () => {
  const cases: [Record<string, string>, string, string | null][] = [
    [{ "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" }, "pnpm", "pnpm-lock.yaml"],
    [{ "yarn.lock": "# yarn lockfile v1\n" }, "yarn", "yarn.lock"],
    [{ "yarn.lock": "__metadata:\n  version: 8\n" }, "yarn-berry", "yarn.lock"],
    [{ "package-lock.json": "{}" }, "npm", "package-lock.json"],
    [{}, "npm", null],
  ];
  for (const [files, manager, lockfile] of cases) {
    await using tmp = await project({
      "package.json": pkg({ scripts: { test: "vitest run" } }),
      ...files,
    });
    const found = await readNodeProject(tmp.path);
    equal(found?.manager, manager);
    equal(found?.lockfile, lockfile);
    const detected = await detectNode(tmp.path);
    match(detected!.evidence, lockfile ? new RegExp(lockfile) : /no lockfile \(npm\)/);
  }
});

Deno.test("detectNode() tells the runner by scripts.test, config files, then devDependencies", async () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ "package.json": pkg({ scripts: { test: "vitest run" } }) }, "vitest", /scripts\.test/],
    [{ "package.json": pkg({ scripts: { test: "jest --ci" } }) }, "jest", /scripts\.test/],
    [
      { "package.json": pkg({ scripts: { test: "node --test test/" } }) },
      "node --test",
      /scripts\.test: node --test/,
    ],
    [
      { "package.json": pkg({}), "vitest.config.ts": "export default {}" },
      "vitest",
      /vitest\.config\.ts/,
    ],
    [
      { "package.json": pkg({}), "vite.config.ts": "export default { test: { globals: true } }" },
      "vitest",
      /vite\.config\.ts/,
    ],
    [{ "package.json": pkg({}), "jest.config.js": "module.exports = {}" }, "jest", /jest\.config/],
    [{ "package.json": pkg({ jest: { testEnvironment: "node" } }) }, "jest", /"jest"/],
    [{ "package.json": pkg({ devDependencies: { vitest: "^3" } }) }, "vitest", /devDep/],
    [{ "package.json": pkg({ devDependencies: { jest: "^29" } }) }, "jest", /devDep/],
  ];
  for (const [files, runner, evidence] of cases) {
    await using tmp = await project(files);
    const detected = await detectNode(tmp.path);
    equal(detected?.language, "node");
    equal(detected?.runner, runner, JSON.stringify(files));
    match(detected!.evidence, evidence);
  }
});

Deno.test("detectNode() serves no tree without a runner, a vite config without tests, or Deno", async () => {
  const cases: Record<string, string>[] = [
    { "deno.json": "{}" },
    { "package.json": pkg({ scripts: { test: "echo no tests" } }) },
    { "package.json": pkg({}), "vite.config.ts": "export default { plugins: [] }" },
  ];
  for (const files of cases) {
    await using tmp = await project(files);
    equal(await detectNode(tmp.path), undefined, JSON.stringify(files));
  }
});

Deno.test("runnerOfScript() reads the usual test scripts", () => {
  equal(runnerOfScript("vitest"), "vitest");
  equal(runnerOfScript("tsc && vitest run --coverage"), "vitest");
  equal(runnerOfScript("cross-env NODE_ENV=test jest"), "jest");
  equal(runnerOfScript("node --test"), "node");
  equal(runnerOfScript("node --experimental-vm-modules --test test/*.mjs"), "node");
  equal(runnerOfScript("mocha"), undefined);
  equal(runnerOfScript("jester run"), undefined);
});

Deno.test("managerOf() believes pnpm, then yarn, then npm when a tree has several lockfiles", () => {
  deepEqual(managerOf(new Set(["yarn.lock", "package-lock.json"])), {
    manager: "yarn",
    lockfile: "yarn.lock",
  });
  deepEqual(managerOf(new Set(["pnpm-lock.yaml", "package-lock.json"])), {
    manager: "pnpm",
    lockfile: "pnpm-lock.yaml",
  });
});

Deno.test("installArgs() installs from the lockfile without running install scripts", () => {
  deepEqual(installArgs("npm", "package-lock.json"), [
    "ci",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
  ]);
  ok(installArgs("npm", null).includes("--no-package-lock"));
  ok(installArgs("pnpm", "pnpm-lock.yaml").includes("--frozen-lockfile"));
  ok(installArgs("yarn", "yarn.lock").includes("--frozen-lockfile"));
  ok(installArgs("yarn-berry", "yarn.lock").includes("--immutable"));
});

Deno.test("readRunnerConfig() reads literal include lists and setup files, and says when it cannot", () => {
  const vitest = readRunnerConfig(
    "vitest",
    `export default defineConfig({ test: { include: ["src/**/*.test.ts", 'e2e/*.e2e.ts'],
      setupFiles: "./test/setup.ts", globalSetup: ['./test/global.ts'] } })`,
  );
  deepEqual(vitest.include, ["src/**/*.test.ts", "e2e/*.e2e.ts"]);
  deepEqual(vitest.setupFiles, ["test/setup.ts", "test/global.ts"]);
  equal(vitest.unread, undefined);
  const computed = readRunnerConfig("vitest", `export default { test: { include: globs } }`);
  deepEqual(computed.include, []);
  match(computed.unread!, /include not literal/);
  const jest = readRunnerConfig("jest", {
    testMatch: ["<rootDir>/spec/**/*.js"],
    setupFilesAfterEnv: ["<rootDir>/jest.setup.js"],
    testEnvironment: "jsdom",
  });
  deepEqual(jest.include, ["spec/**/*.js"]);
  deepEqual(jest.setupFiles, ["jest.setup.js"]);
});

Deno.test("isTestFile() follows the runner's config, or its defaults; setup files are test code", async () => {
  await using tmp = await project({
    "package.json": pkg({ scripts: { test: "vitest run" } }),
    "vitest.config.ts":
      `export default { test: { include: ["checks/**/*.check.ts"], setupFiles: ["./checks/setup.ts"] } }`,
  });
  const runner = await openNodeRunner(tmp.path);
  ok(runner.isTestFile("checks/deep/money.check.ts"));
  ok(runner.isTestFile("checks/setup.ts"));
  ok(runner.isTestFile("src/a.test.ts"), "*.test.* is test code whatever the config");
  ok(runner.isTestFile("tests/helpers/build.ts"), "files of a tests/ directory are test code");
  ok(runner.isTestFile("src/__tests__/x.ts"));
  ok(!runner.isTestFile("src/money.ts"));
  ok(!runner.isTestFile("node_modules/x/a.test.js"));
  ok(runner.isConfig("vitest.config.ts"));
  ok(runner.isConfig("checks/setup.ts"));
});

Deno.test("isConfig() flags runner, compiler and package files, and anything in node_modules", async () => {
  await using tmp = await project({ "package.json": pkg({ jest: {} }) });
  const runner = await openNodeRunner(tmp.path);
  for (
    const path of [
      "package.json",
      "package-lock.json",
      "pnpm-lock.yaml",
      "yarn.lock",
      "jest.config.ts",
      "vitest.config.mts",
      "vite.config.js",
      "babel.config.js",
      ".babelrc",
      "tsconfig.json",
      "tsconfig.test.json",
      ".mocharc.yml",
      "jest.setup.js",
      "src/setupTests.ts",
      "node_modules/vitest/dist/index.js",
      "node_modules",
    ]
  ) ok(runner.isConfig(path), path);
  for (const path of ["src/a.ts", "README.md", "src/a.test.ts"]) ok(!runner.isConfig(path), path);
});

Deno.test("packageJsonTestChanges() tells a change of how tests run from any other", () => {
  const before = JSON.stringify({
    name: "x",
    version: "1.0.0",
    scripts: { test: "vitest run", build: "tsc" },
    devDependencies: { vitest: "3.2.4", typescript: "5.0.0", eslint: "9" },
    dependencies: { lodash: "4" },
  });
  type Pkg = {
    version: string;
    type?: string;
    jest?: unknown;
    scripts: Record<string, string>;
    devDependencies: Record<string, string>;
    dependencies: Record<string, string>;
  };
  const edit = (f: (p: Pkg) => void) => {
    const p = JSON.parse(before);
    f(p);
    return JSON.stringify(p);
  };
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.version = "1.0.1"))), []);
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.scripts.build = "tsc -b"))), []);
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.dependencies.lodash = "5"))), []);
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.devDependencies.eslint = "10"))), []);
  deepEqual(
    packageJsonTestChanges(before, edit((p) => (p.scripts.test = "vitest run --passWithNoTests"))),
    ["scripts.test"],
  );
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.devDependencies.vitest = "3.0.0"))), [
    "devDependencies.vitest",
  ]);
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.jest = { bail: true }))), ["jest"]);
  deepEqual(packageJsonTestChanges(before, edit((p) => (p.type = "module"))), ["type"]);
  deepEqual(packageJsonTestChanges(before, "{ not json"), ["package.json (not valid JSON)"]);
});

Deno.test("fileOf() and besidePath() keep the author's copy beside the original, still a test file", async () => {
  await using vitest = await project({
    "package.json": pkg({ scripts: { test: "vitest run" } }),
    "vitest.config.ts":
      `export default { test: { include: ["spec/**/*.spec.ts", "src/**/*.test.ts"] } }`,
  });
  const v = await openNodeRunner(vitest.path);
  equal(v.fileOf("src/a.test.ts > money > adds > up"), "src/a.test.ts");
  equal(v.fileOf("src/a.test.ts"), "src/a.test.ts");
  equal(v.besidePath("src/a.test.ts", "codex"), "src/a.bugbout-codex.test.ts");
  equal(v.besidePath("spec/b.spec.ts", "claude/opus 4"), "spec/b.bugbout-claude-opus-4.spec.ts");
  ok(v.isTestFile(v.besidePath("spec/b.spec.ts", "x")));
  await using jest = await project({ "package.json": pkg({ jest: {} }) });
  const j = await openNodeRunner(jest.path);
  const beside = j.besidePath("src/__tests__/clamp.js", "codex");
  equal(beside, "src/__tests__/clamp.bugbout-codex.js");
  ok(j.isTestFile(beside));
  await using plain = await project({
    "package.json": pkg({ scripts: { test: "node --test" } }),
  });
  const n = await openNodeRunner(plain.path);
  equal(n.besidePath("test/parse.test.js", "a"), "test/parse.bugbout-a.test.js");
  equal(n.besidePath("test/parse_test.mjs", "a"), "test/parse.bugbout-a_test.mjs");
  ok(n.isTestFile(n.besidePath("test/parse_test.mjs", "a")));
  ok(n.isTestFile(join("test", "x.js")));
});
