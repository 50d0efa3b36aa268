/**
 * Projects whose test tool no built-in language serves but whose tests can write JUnit XML: what
 * `bugbout init` recognises (a Gradle or Maven build, mocha in `package.json`, GoogleTest in a
 * CMake build) and the `[command]` table it writes as a starting point for each.
 *
 * Requires `--allow-read` (the tree's root files).
 *
 * @module
 */

import { join } from "node:path";
import type { Detected, InitConfig, ProjectDetection } from "../types.ts";

/** A tool bugbout serves through `[command]`, and the table that would serve it. */
interface Tool {
  runner: string;
  evidence: string;
  table: string[];
  notes: string[];
}

const read = (tree: string, name: string) =>
  Deno.readTextFile(join(tree, name)).catch(() => undefined);

const JAVA_TESTS = ['test-files = ["src/test/java/**/*Test.java", "src/test/java/**/*Tests.java"]'];

/** The tool of `tree`, if it is one the command language serves. */
async function toolOf(tree: string): Promise<Tool | undefined> {
  for (const gradle of ["build.gradle", "build.gradle.kts"]) {
    if (await read(tree, gradle) !== undefined) {
      return {
        runner: "Gradle",
        evidence: gradle,
        table: [
          'name = "gradle"',
          'test = ["./gradlew", "--offline", "test", "--continue"]',
          'report = "build/test-results/test/*.xml"',
          ...JAVA_TESTS,
          'support-files = ["src/test/resources/**"]',
          `config-files = ["${gradle}", "settings.gradle*", "gradle.properties", "gradle/**", "gradlew"]`,
          'source-files = ["src/main/**"]',
        ],
        notes: [
          "Gradle has no built-in runner in bugbout: it is served through [command], which runs " +
          "./gradlew test in the sandbox with no network and reads build/test-results. The " +
          "sandbox sees no Gradle cache, so this works only for a build whose dependencies and " +
          "Gradle distribution the machine already has where the sandbox can read them.",
        ],
      };
    }
  }
  if (await read(tree, "pom.xml") !== undefined) {
    return {
      runner: "Maven",
      evidence: "pom.xml",
      table: [
        'name = "maven"',
        'test = ["mvn", "-o", "-B", "-q", "test"]',
        'report = "target/surefire-reports/TEST-*.xml"',
        ...JAVA_TESTS,
        'support-files = ["src/test/resources/**"]',
        'config-files = ["pom.xml", "**/pom.xml", ".mvn/**"]',
        'source-files = ["src/main/**"]',
      ],
      notes: [
        "Maven is served through [command] (Surefire's XML reports, ids Class.method): a built-in " +
        "Java runner that fills a shared local repository before the sandbox is not there yet, " +
        "so mvn -o works only when the sandbox can read a filled ~/.m2.",
      ],
    };
  }
  const pkg = await read(tree, "package.json");
  if (pkg !== undefined && /"mocha"/.test(pkg) && !/"(vitest|jest)"/.test(pkg)) {
    return {
      runner: "mocha",
      evidence: "package.json: mocha",
      table: [
        'name = "mocha"',
        'test = ["npx", "--no-install", "mocha", "--reporter", "mocha-junit-reporter", ' +
        '"--reporter-options", "mochaFile={report}", "{files}"]',
        'test-files = ["test/**/*.js", "test/**/*.mjs", "test/**/*.cjs"]',
        'config-files = ["package.json", ".mocharc*", "package-lock.json"]',
      ],
      notes: [
        "mocha is served through [command] with mocha-junit-reporter (a devDependency to add), " +
        "not natively: node_modules must be installed in the tree, as [command] fetches nothing.",
      ],
    };
  }
  const cmake = await read(tree, "CMakeLists.txt");
  if (cmake !== undefined && /\bG[Tt]est\b|gtest/.test(cmake)) {
    return {
      runner: "GoogleTest",
      evidence: "CMakeLists.txt: GTest",
      table: [
        'name = "gtest"',
        "# A script that builds the test binary and runs it with --gtest_output=xml:$1.",
        'test = ["sh", "test.sh", "{report}"]',
        'test-files = ["test/**/*.cpp", "tests/**/*.cpp"]',
        'config-files = ["test.sh", "CMakeLists.txt", "**/CMakeLists.txt", "cmake/**"]',
      ],
      notes: ["Write test.sh (build, then run the tests with --gtest_output=xml:$1)."],
    };
  }
  return undefined;
}

/** What `detect` says of a tree the command language serves. */
export async function detectCommand(tree: string): Promise<Detected | undefined> {
  const tool = await toolOf(tree);
  return tool ? { language: "command", runner: tool.runner, evidence: tool.evidence } : undefined;
}

/** The `[project]` lines and `[command]` table `init` writes. */
export async function commandInitConfig(found: ProjectDetection): Promise<InitConfig> {
  const tool = await toolOf(found.tree);
  const table = tool?.table ?? [
    '# test = ["make", "check", "JUNIT_XML={report}"]',
    '# test-files = ["tests/**/*"]',
  ];
  return {
    lines: [
      `# Tests run by the project's own command, read from its JUnit XML${
        tool ? ` (${tool.runner}, ${tool.evidence})` : ""
      }.`,
      '# What it can and cannot protect: docs/languages.md, "Any test command".',
      'language = "command"',
      "",
      "[command]",
      ...table,
    ],
    summary: [["language", `command${tool ? `, for ${tool.runner} (${tool.evidence})` : ""}`]],
    notes: tool?.notes ?? ["Set [command] test and test-files: see docs/configuration.md."],
  };
}
