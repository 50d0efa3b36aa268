/**
 * Read pytest's JUnit XML (family `xunit1`, which keeps each test's `file`) into outcomes keyed
 * by exact pytest node ids (`path::Class::name[param]`). The parser is strict: a truncated or
 * malformed file is an error, never "no tests".
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Outcome } from "../records.ts";

/** One `<testcase>` as pytest wrote it. */
export interface JunitCase {
  /** Dotted module path plus classes (`tests.test_a.TestK`); empty for a collection error. */
  classname: string;
  /** Test name with parameters (`test_p[1]`), or the dotted module for a collection error. */
  name: string;
  /** The file the test is defined in, relative to the rootdir (xunit1 only). */
  file?: string;
  /** Seconds. */
  time: number;
  /** What the case's children say happened. */
  outcome: Exclude<Outcome, "not-run">;
  /** The first failure's or error's `message` attribute. */
  message?: string;
}

/** A parsed JUnit file. */
export interface JunitReport {
  /** Every `<testcase>`, in file order (a test reported twice appears twice). */
  cases: JunitCase[];
  /** `failures`, `errors` and `skipped` as the `<testsuite>` elements declare them. */
  declared: { failures: number; errors: number; skipped: number };
  /** The same, counted from the `<testcase>` children. */
  counted: { failures: number; errors: number; skipped: number };
}

/** The file is not well-formed JUnit XML (truncated, say). */
export class JunitError extends Error {
  /** `message` says what is wrong with the file. */
  constructor(message: string) {
    super(message);
    this.name = "JunitError";
  }
}

/** An XML element: its name, attributes and child elements (text is not kept). */
export interface XmlElement {
  /** Tag name. */
  name: string;
  /** Attributes, entities decoded. */
  attrs: Record<string, string>;
  /** Child elements in order. */
  children: XmlElement[];
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, body: string) => {
    if (body.startsWith("#x")) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith("#")) return String.fromCodePoint(parseInt(body.slice(1), 10));
    return ENTITIES[body] ?? whole;
  });
}

/** A strict, small XML parser: elements and attributes; text, comments and CDATA are skipped. */
export function parseXml(xml: string): XmlElement {
  const stack: XmlElement[] = [{ name: "#document", attrs: {}, children: [] }];
  let at = 0;
  const tag = /<([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
  const close = /<\/([A-Za-z_][\w.:-]*)\s*>/y;
  const attr = /([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  while (true) {
    const lt = xml.indexOf("<", at);
    if (lt < 0) break;
    at = lt;
    if (xml.startsWith("<?", at)) {
      const end = xml.indexOf("?>", at);
      if (end < 0) throw new JunitError("unterminated processing instruction");
      at = end + 2;
    } else if (xml.startsWith("<!--", at)) {
      const end = xml.indexOf("-->", at);
      if (end < 0) throw new JunitError("unterminated comment");
      at = end + 3;
    } else if (xml.startsWith("<![CDATA[", at)) {
      const end = xml.indexOf("]]>", at);
      if (end < 0) throw new JunitError("unterminated CDATA section");
      at = end + 3;
    } else if (xml.startsWith("<!", at)) {
      const end = xml.indexOf(">", at);
      if (end < 0) throw new JunitError("unterminated declaration");
      at = end + 1;
    } else if (xml.startsWith("</", at)) {
      close.lastIndex = at;
      const m = close.exec(xml);
      if (!m) throw new JunitError(`malformed closing tag at offset ${at}`);
      const open = stack.pop()!;
      if (stack.length === 0 || open.name !== m[1]) {
        throw new JunitError(`</${m[1]}> does not close <${open.name}> at offset ${at}`);
      }
      at = close.lastIndex;
    } else {
      tag.lastIndex = at;
      const m = tag.exec(xml);
      if (!m) throw new JunitError(`malformed tag at offset ${at}`);
      const attrs: Record<string, string> = {};
      for (const a of m[2].matchAll(attr)) attrs[a[1]] = decode(a[2] ?? a[3] ?? "");
      const element: XmlElement = { name: m[1], attrs, children: [] };
      stack[stack.length - 1].children.push(element);
      if (m[3] !== "/") stack.push(element);
      at = tag.lastIndex;
    }
  }
  if (stack.length !== 1) {
    throw new JunitError(`the file ends inside <${stack[stack.length - 1].name}> (truncated)`);
  }
  const roots = stack[0].children;
  if (roots.length !== 1) throw new JunitError(`expected one root element, found ${roots.length}`);
  return roots[0];
}

function caseOf(element: XmlElement): JunitCase {
  const kinds = element.children.map((c) => c.name);
  const failure = element.children.find((c) => c.name === "failure");
  const error = element.children.find((c) => c.name === "error");
  const skipped = element.children.find((c) => c.name === "skipped");
  let outcome: JunitCase["outcome"] = "passed";
  if (kinds.includes("failure")) outcome = "failed";
  else if (kinds.includes("error")) outcome = "error";
  else if (skipped) outcome = skipped.attrs.type === "pytest.xfail" ? "xfailed" : "skipped";
  const time = Number(element.attrs.time ?? "0");
  return {
    classname: element.attrs.classname ?? "",
    name: element.attrs.name ?? "",
    file: element.attrs.file,
    time: Number.isFinite(time) ? time : 0,
    outcome,
    message: (failure ?? error)?.attrs.message,
  };
}

/** Parse the text of a JUnit XML file written by pytest. Throws {@linkcode JunitError}. */
export function parseJunit(xml: string): JunitReport {
  if (xml.trim() === "") throw new JunitError("the file is empty");
  const root = parseXml(xml);
  const suites = root.name === "testsuites"
    ? root.children.filter((c) => c.name === "testsuite")
    : root.name === "testsuite"
    ? [root]
    : undefined;
  if (!suites) throw new JunitError(`the root element is <${root.name}>, not <testsuites>`);
  const declared = { failures: 0, errors: 0, skipped: 0 };
  const counted = { failures: 0, errors: 0, skipped: 0 };
  const cases: JunitCase[] = [];
  for (const suite of suites) {
    declared.failures += Number(suite.attrs.failures ?? 0);
    declared.errors += Number(suite.attrs.errors ?? 0);
    declared.skipped += Number(suite.attrs.skipped ?? 0);
    for (const element of suite.children) {
      if (element.name !== "testcase") continue;
      for (const child of element.children) {
        if (child.name === "failure") counted.failures++;
        else if (child.name === "error") counted.errors++;
        else if (child.name === "skipped") counted.skipped++;
      }
      cases.push(caseOf(element));
    }
  }
  return { cases, declared, counted };
}

/**
 * pytest's `mangle_test_address`: the `[classname, name]` a node id is reported under in JUnit
 * XML (`tests/test_a.py::TestK::test_m[1]` → `["tests.test_a.TestK", "test_m[1]"]`).
 */
export function mangleNodeId(nodeid: string): [string, string] {
  const bracket = nodeid.indexOf("[");
  const path = bracket < 0 ? nodeid : nodeid.slice(0, bracket);
  const params = bracket < 0 ? "" : nodeid.slice(bracket);
  const names = path.split("::");
  names[0] = names[0].replaceAll("/", ".").replace(/\.py$/, "");
  names[names.length - 1] += params;
  return [names.slice(0, -1).join("."), names[names.length - 1]];
}

/** The dotted form pytest gives a module path (`tests/test_a.py` → `tests.test_a`). */
function dotted(file: string): string {
  return file.replaceAll("/", ".").replace(/\.py$/, "");
}

/**
 * Maps JUnit cases back to node ids. Exact when the collected node ids are known (each is
 * mangled the way pytest does and looked up); otherwise the module is found among the candidate
 * files (the case's `file` attribute, the run's targets) by the longest dotted prefix of its
 * classname.
 */
export class NodeIdResolver {
  #byCase = new Map<string, string>();
  #files: { file: string; dotted: string }[] = [];

  /** `collected`: node ids pytest collected; `files`: test files the run was asked for. */
  constructor(collected: Iterable<string> = [], files: Iterable<string> = []) {
    for (const id of collected) {
      const [classname, name] = mangleNodeId(id);
      this.#byCase.set(`${classname}\0${name}`, id);
    }
    for (const file of files) this.addFile(file);
  }

  /** Add a candidate module path (relative to the rootdir). */
  addFile(file: string): void {
    if (!file.endsWith(".py") || this.#files.some((f) => f.file === file)) return;
    this.#files.push({ file, dotted: dotted(file) });
    this.#files.sort((a, b) => b.dotted.length - a.dotted.length);
  }

  /** The node id of a case. */
  resolve(c: Pick<JunitCase, "classname" | "name" | "file">): string {
    const exact = this.#byCase.get(`${c.classname}\0${c.name}`);
    if (exact) return exact;
    if (c.file) this.addFile(c.file);
    if (c.classname === "") {
      // A collection error: `name` is the dotted module.
      const module = this.#files.find((f) => f.dotted === c.name);
      return module ? module.file : c.name.replaceAll(".", "/") + ".py";
    }
    for (const f of this.#files) {
      if (c.classname === f.dotted) return `${f.file}::${c.name}`;
      if (c.classname.startsWith(f.dotted + ".")) {
        const classes = c.classname.slice(f.dotted.length + 1).split(".");
        return [f.file, ...classes, c.name].join("::");
      }
    }
    // Unknown module: assume a plain path with every dot a directory separator but the classes,
    // which start with an upper-case letter by pytest's default `python_classes = Test*`.
    const parts = c.classname.split(".");
    const firstClass = parts.findIndex((p) => /^[A-Z]/.test(p));
    const modParts = firstClass < 0 ? parts : parts.slice(0, firstClass);
    const classes = firstClass < 0 ? [] : parts.slice(firstClass);
    return [`${modParts.join("/")}.py`, ...classes, c.name].join("::");
  }
}

const RANK: Record<JunitCase["outcome"], number> = {
  failed: 5,
  error: 4,
  xfailed: 2,
  skipped: 1,
  passed: 0,
};

/**
 * Outcomes and durations (milliseconds) by node id. A test reported twice (a failure, then an
 * error in teardown) keeps the worse outcome and the summed time.
 */
export function outcomesOf(
  report: JunitReport,
  resolver: NodeIdResolver,
): { outcomes: Record<string, Outcome>; durations: Record<string, number> } {
  const outcomes: Record<string, Outcome> = {};
  const durations: Record<string, number> = {};
  for (const c of report.cases) {
    const id = resolver.resolve(c);
    const before = outcomes[id] as JunitCase["outcome"] | undefined;
    if (before === undefined || RANK[c.outcome] > RANK[before]) outcomes[id] = c.outcome;
    durations[id] = Math.round(((durations[id] ?? 0) + c.time * 1000) * 1000) / 1000;
  }
  return { outcomes, durations };
}
