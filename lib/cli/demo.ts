/**
 * `bugbout demo` for the terminal.
 *
 * @module
 */

import { resolve } from "node:path";
import { runDemo } from "../demo/mod.ts";
import { renderTerminal } from "../report/mod.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";
import { progressPrinter } from "./progress.ts";

/** Run the demo bout and print its report. */
export async function demoCommand({ flags, io, signal }: CommandContext<"demo">): Promise<number> {
  const p = palette(io.color);
  const dir = flags.dir !== undefined
    ? resolve(flags.dir)
    : await Deno.makeTempDir({ prefix: "bugbout-demo-" });
  io.err(p.bold("bugbout demo"));
  io.err(
    "A bout on textkit, a small Python project with five bugs fixed in its history.\n" +
      "The agents are " + p.warn("scripted stand-ins, not models") +
      ": scripted-careful fixes three bugs and gets two\n" +
      "subtly wrong, scripted-sloppy fixes one and ships tests that prove nothing, scripted-tester\n" +
      "writes sharp tests but wrong fixes, scripted-cheat games the tests, and scripted-examiner\n" +
      "writes tests from the issues. No agent is right everywhere: watch whether the judge, reading\n" +
      "only the cross-examination, beats the best of them. Issue texts come from a stand-in for\n" +
      "GitHub on 127.0.0.1.\n",
  );
  const progress = progressPrinter(io, { quiet: flags.quiet });
  try {
    const result = await runDemo(dir, { onEvent: progress.onEvent, signal });
    progress.stop();
    io.out(renderTerminal(result.report, { color: io.color }));
    io.out("");
    io.out(`HTML report: ${result.html}`);
    io.out(`The demo project and its .bugbout/ results: ${result.repository}`);
    return 0;
  } finally {
    progress.stop();
  }
}
