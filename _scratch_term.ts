import { fixtureInput } from "./tests/report/fixture.ts";
import { buildReport } from "./lib/report/build.ts";
import { renderTerminal } from "./lib/report/terminal.ts";
const text = renderTerminal(buildReport(fixtureInput()), { color: Deno.args[0] === "c" });
console.log(text);
console.log("max width", Math.max(...text.split("\n").map((l) => [...l.replace(/\x1b\[[0-9;]*m/g, "")].length)));
