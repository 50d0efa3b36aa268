import { fixtureInput } from "./tests/report/fixture.ts";
import { buildReport } from "./lib/report/build.ts";
import { renderMarkdown } from "./lib/report/markdown.ts";
console.log(renderMarkdown(buildReport(fixtureInput())));
