import { deepEqual, equal, match, ok } from "node:assert/strict";
import { nodeChangedTests } from "../../lib/lang/node/mod.ts";

const FILE = "src/money.test.ts";

const BEFORE = `import { describe, expect, it, test } from "vitest";

describe("money", () => {
  it("adds", () => {
    expect(1 + 1).toBe(2);
  });

  describe.skip('nested "quotes"', () => {
    test.only(\`pure template\`, () => {
      expect(/a\\)b/.test("a)b")).toBe(true);
    });
  });
});

test.todo("later");
// test("commented out", () => {});
const s = "describe('inside a string', () => {})";
`;

Deno.test("changedTests() names every literal test with its suites, in source order", () => {
  const result = nodeChangedTests(FILE, null, BEFORE);
  ok(!("error" in result));
  deepEqual(result.tests, [
    `${FILE} > money > adds`,
    `${FILE} > money > nested "quotes" > pure template`,
    `${FILE} > later`,
  ]);
  deepEqual(result.changed, result.tests, "a new file: every test is new");
  equal(result.unsure, undefined);
});

Deno.test("changedTests() counts a test changed when its body changed, not when it moved", () => {
  const after = BEFORE
    .replace("expect(1 + 1).toBe(2);", "expect(1 + 1).toBe(2);\n    expect(2 + 2).toBe(4);")
    .replace(`test.todo("later");`, `\n\n   test.todo("later");\n\ntest("new one", () => {});`);
  const result = nodeChangedTests(FILE, BEFORE, after);
  ok(!("error" in result));
  deepEqual(result.changed, [`${FILE} > money > adds`, `${FILE} > new one`]);
  equal(result.tests.length, 4);
});

Deno.test("changedTests() is unsure of computed names and tables, and still names the rest", () => {
  const after = `import { describe, it, test } from "vitest";
const name = "x";
test(name, () => {});
test(\`case \${name}\`, () => {});
it.each([[1], [2]])("doubles %i", (n) => {});
describe.each(["a", "b"])("suite %s", (s) => {
  it("inner", () => {});
});
test.skipIf(process.env.CI)("plain", () => {});
`;
  const result = nodeChangedTests(FILE, null, after);
  ok(!("error" in result));
  deepEqual(result.tests, [`${FILE} > plain`]);
  match(result.unsure!, /computed name/);
  match(result.unsure!, /each names its cases from a table/);
});

Deno.test("changedTests() names node subtests t.test() inside a test", () => {
  const after = `const test = require("node:test");
test("top", async (t) => {
  await t.test("first", () => {});
  await t.test("second", () => {});
});
const re = /x/;
re.test("not a test");
`;
  const result = nodeChangedTests("test/a.test.js", null, after);
  ok(!("error" in result));
  deepEqual(result.tests, [
    "test/a.test.js > top",
    "test/a.test.js > top > first",
    "test/a.test.js > top > second",
  ]);
});

Deno.test("changedTests() says why a file cannot be read", () => {
  const result = nodeChangedTests(FILE, null, `test("open", () => {\n`);
  ok("error" in result);
  match(result.error, /Cannot read src\/money\.test\.ts/);
  const unterminated = nodeChangedTests(FILE, null, "const s = `never closed\n");
  ok("error" in unterminated);
});
