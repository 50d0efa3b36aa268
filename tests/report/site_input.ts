/**
 * A report site's input built through the real code: the report fixture's stage files, each
 * attempt with a source and a test diff, failing hidden tests with a traceback, and for one
 * attempt the transcript that Claude Code's adapter reads from the recorded real run against the
 * scripted model server, with hostile text added where an agent could put it.
 *
 * @module
 */

import { join } from "node:path";
import { claudeCode } from "../../adapters/claude_code.ts";
import { nameOf, type Resolution } from "../../lib/records.ts";
import { buildReport } from "../../lib/report/build.ts";
import type { ReportInput } from "../../lib/report/build.ts";
import { renderHtml } from "../../lib/report/html.ts";
import type { SiteInput, SiteTask } from "../../lib/report/site/mod.ts";
import { toAtif } from "../../lib/transcript/atif.ts";
import type { TranscriptStep } from "../../lib/transcript/types.ts";
import { makeAgent } from "../adapters/_helpers.ts";
import { fixtureInput } from "./fixture.ts";

/** Markup an agent writes into its output, diffs and messages: must render as text. */
export const HOSTILE_OUTPUT =
  `<script>window.__pwned = 3</script><img src=x onerror="window.__pwned = 4">`;

const RECORDED = join(
  import.meta.dirname!,
  "..",
  "fixtures",
  "recorded",
  "claude-code",
  "2.1.197",
  "success",
);

/** Claude Code's transcript of the recorded success run, plus a hostile closing message. */
export async function recordedSteps(): Promise<TranscriptStep[]> {
  const agent = makeAgent(claudeCode, { model: "claude-sonnet-4-5" });
  const steps = await agent.transcript!({
    logdir: RECORDED,
    stdout: await Deno.readTextFile(join(RECORDED, "stdout.txt")),
    stderr: "",
  });
  return [
    { kind: "message", role: "user", text: "Fix add()." },
    ...steps,
    { kind: "message", role: "agent", text: `done ${HOSTILE_OUTPUT}` },
  ];
}

function diff(path: string, line: string): string {
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,2 +1,2 @@\n ` +
    `def f():\n-    return 1\n+    return 2  # ${line}\n`;
}

/** The site's input from `input` (the fixture by default), the recorded transcript on `withTranscript`. */
export async function siteInput(
  input: ReportInput = fixtureInput(),
  options: { withTranscript?: string; steps?: TranscriptStep[] } = {},
): Promise<SiteInput> {
  const report = buildReport(input);
  const steps = options.steps ?? await recordedSteps();
  const resolutions: Record<string, Resolution> = structuredClone(input.resolutions) as Record<
    string,
    Resolution
  >;
  for (const r of Object.values(resolutions)) {
    for (const score of Object.values(r.patches)) {
      const failures: NonNullable<typeof score.failures> = {};
      for (const id of [...score.failToPass.failing, ...score.passToPass.failing]) {
        failures[id] = {
          message: `assert 1 == 2 ${HOSTILE_OUTPUT}`,
          traceback:
            `tests/test_core.py:12: in ${id}\n    assert f() == 2\nE   assert 1 == 2\n${HOSTILE_OUTPUT}`,
        };
      }
      score.failures = failures;
    }
  }
  const tasks: SiteTask[] = input.tasks.tasks.map((task) => ({
    id: task.id,
    ...(resolutions[task.id] ? { goldDiff: diff("pkg/core.py", "the real fix") } : {}),
    matrix: input.matrices.find((m) => m.task === task.id),
    resolution: resolutions[task.id],
    attempts: input.attempts.filter((a) => a.task === task.id).map((attempt) => ({
      attempt,
      patches: {
        source: diff("pkg/core.py", HOSTILE_OUTPUT),
        tests: diff("tests/test_mine.py", "a test"),
        full: "",
      },
      ...((options.withTranscript ?? "") === `${task.id}/${nameOf(attempt)}` ||
          options.withTranscript === "*"
        ? {
          trajectory: toAtif({
            agent: attempt.type,
            model: attempt.model,
            source: "recorded",
            steps,
            tokens: { input: 7500, cachedInput: 2400, output: 135 },
            costUsd: 0.018,
          }, `${task.id}/${nameOf(attempt)}`),
        }
        : {}),
    })),
  }));
  return { report, indexHtml: renderHtml(report), tasks };
}
