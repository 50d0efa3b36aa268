/**
 * The shape of the shipped code, checked: floors that import only downwards, front doors for
 * python/ and the testbed, stages that reach each other only through their `mod.ts`, no import
 * cycle, no import of tests or benches, and no exported name defined twice. The floors are the
 * ones `docs/architecture.md` draws.
 *
 * @module
 */

import { deepEqual } from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "./_helpers.ts";

/** Floors, lowest first: a module may import its own floor or a lower one. */
const FLOORS: [string, RegExp][] = [
  [
    "records",
    /^lib\/(deps|errors|records|roles|validator|version|suggest|hash|home|fs|words|style|pids|store)\.ts$|^lib\/transcript\//,
  ],
  [
    "programs",
    /^(lib\/(proc|self|git|history|blobs|checkout|config|config_command|config_explain|layout|project)\.ts|lib\/sandbox\/|adapters\/)/,
  ],
  ["lang", /^lib\/lang\//],
  ["testbed", /^lib\/testbed\//],
  ["stages", /^(lib\/(mine|oracle|race|shard|examine|judge|score|evidence|report)\/|judge\/)/],
  ["pipeline", /^lib\/(bout|init|doctor)\.ts$|^lib\/demo\//],
  ["cli", /^lib\/cli\/|^main\.ts$/],
];

/** Folders whose files the rest of the tree reaches only through their `mod.ts`. */
const FRONT_DOORS = [
  "lib/lang",
  "lib/lang/python",
  "lib/lang/go",
  "lib/lang/node",
  "lib/testbed",
  "lib/mine",
  "lib/oracle",
  "lib/race",
  "lib/shard",
  "lib/examine",
  "lib/judge",
  "lib/score",
  "lib/report",
];

async function shipped(): Promise<string[]> {
  const files: string[] = ["main.ts"];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) files.push(path);
    }
  };
  for (const dir of ["lib", "adapters", "judge"]) await walk(dir);
  return files.sort();
}

/** Relative imports of a module (static, dynamic, type-only and re-exports), outside comments. */
function importsOf(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const pattern = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g;
  for (const m of code.matchAll(pattern)) found.push(normalize(join(dirname(file), m[1])));
  return found;
}

function floorOf(file: string): number {
  const at = FLOORS.findIndex(([, pattern]) => pattern.test(file));
  if (at < 0) throw new Error(`${file} is on no floor: add it to FLOORS and the architecture page`);
  return at;
}

/** Besides each folder's `mod.ts`: the report's types (`main.ts` exports them as they are) and the language interface (each language implements it). */
const ALSO_DOORS = ["lib/report/types.ts", "lib/lang/types.ts"];

/** The innermost front-door folder a file lies in. */
function doorOf(file: string): string | undefined {
  return FRONT_DOORS.filter((dir) => file.startsWith(`${dir}/`)).sort((a, b) =>
    b.length - a.length
  )[0];
}

const files = await shipped();
const graph = new Map<string, string[]>();
const texts = new Map<string, string>();
for (const file of files) {
  const text = await Deno.readTextFile(join(ROOT, file));
  texts.set(file, text);
  graph.set(file, importsOf(file, text));
}

Deno.test("shipped code never imports tests, benches or scripts", () => {
  const bad = [...graph].flatMap(([file, deps]) =>
    deps.filter((d) => /^(tests|bench|scripts)\//.test(d)).map((d) => `${file} -> ${d}`)
  );
  deepEqual(bad, []);
});

Deno.test("tests live under tests/, never beside the code they test", () => {
  deepEqual(files.filter((file) => /_test\.ts$/.test(file)), []);
});

Deno.test("every shipped module sits on a floor and imports only its own floor or lower ones", () => {
  const bad: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      if (floorOf(dep) > floorOf(file)) {
        bad.push(`${file} (${FLOORS[floorOf(file)][0]}) -> ${dep} (${FLOORS[floorOf(dep)][0]})`);
      }
    }
  }
  deepEqual(bad, []);
});

Deno.test("the languages, the testbed and every stage are reached from outside only through mod.ts", () => {
  const bad: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      const door = doorOf(dep);
      const outside = door && !file.startsWith(`${door}/`);
      if (outside && dep !== `${door}/mod.ts` && !ALSO_DOORS.includes(dep)) {
        bad.push(`${file} -> ${dep}`);
      }
    }
  }
  deepEqual(bad, []);
});

Deno.test("outside lib/lang/, code reaches a language only through the registry and the interface", () => {
  const bad: string[] = [];
  for (const [file, deps] of graph) {
    if (file.startsWith("lib/lang/") || file === "main.ts") continue;
    for (const dep of deps) {
      if (/^lib\/lang\/[^/]+\//.test(dep)) bad.push(`${file} -> ${dep}`);
    }
  }
  deepEqual(bad, []);
});

Deno.test("nothing outside lib/lang/ names a language or branches on one", () => {
  const names = /(["'`])(python|go|node|rust)\1|(?<!typeof )\blanguage\s*[!=]==\s*["'`]/;
  const bad: string[] = [];
  for (const [file, text] of texts) {
    // The records' type names every language; an agent's adapter may run a `python` program.
    if (file.startsWith("lib/lang/") || file === "lib/records.ts") continue;
    if (file.startsWith("adapters/")) continue;
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    code.split("\n").forEach((line, i) => {
      if (names.test(line)) bad.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  deepEqual(bad, []);
});

Deno.test("no import cycle among the shipped modules", () => {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === "open") {
        cycles.push([...stack.slice(stack.indexOf(dep)), dep].join(" -> "));
      } else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  deepEqual(cycles, []);
});

Deno.test("no exported name is defined in two shipped modules", () => {
  const where = new Map<string, string[]>();
  const definition =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+(\w+)/gm;
  for (const [file, text] of texts) {
    for (const m of text.matchAll(definition)) {
      where.set(m[1], [...(where.get(m[1]) ?? []), file]);
    }
  }
  const twice = [...where].filter(([, at]) => at.length > 1).map(([name, at]) =>
    `${name}: ${at.join(", ")}`
  );
  deepEqual(twice, []);
});

Deno.test("the floors in this test are the ones the architecture page names", async () => {
  const page = await Deno.readTextFile(join(ROOT, "docs", "architecture.md"));
  const missing = FLOORS.map(([name]) => name).filter((name) => !page.includes(name));
  deepEqual(missing, []);
  deepEqual(relative(ROOT, join(ROOT, "docs/architecture.md")), "docs/architecture.md");
});

Deno.test("the architecture page says what every member of the language interface is for", async () => {
  const page = await Deno.readTextFile(join(ROOT, "docs", "architecture.md"));
  const types = texts.get("lib/lang/types.ts")!;
  const missing: string[] = [];
  for (const name of ["LanguageSpec", "ProjectTools", "TestRunner"]) {
    const body = types.match(new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`))![1];
    const code = body.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const m of code.matchAll(/^ {2}(?:readonly )?(\w+)\??[(:<]/gm)) {
      if (!page.includes(`\`${m[1]}\``)) missing.push(`${name}.${m[1]}`);
    }
  }
  deepEqual(missing, []);
});
