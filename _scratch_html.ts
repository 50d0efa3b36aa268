import { fixtureInput } from "./tests/report/fixture.ts";
import { buildReport } from "./lib/report/build.ts";
import { renderHtml } from "./lib/report/html.ts";
await Deno.writeTextFile("/tmp/report.html", renderHtml(buildReport(fixtureInput())));
