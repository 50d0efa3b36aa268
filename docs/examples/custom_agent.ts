/**
 * Race an agent written in code, then print the report as Markdown.
 *
 * Usage: deno run -A docs/examples/custom_agent.ts <repository with bugbout.toml> <agent script>
 *
 * The agent here runs a script (`python3 <script> <prompt file>`) inside bugbout's sandbox; a real
 * adapter would start its CLI the same way. bugbout does the rest: checkouts, sandbox, timeouts,
 * patches, cross-examination, judging and scoring.
 */

import {
  Bout,
  type CodingAgent,
  type Invocation,
  Project,
  renderMarkdown,
  type Session,
} from "../../main.ts";

class ScriptAgent implements CodingAgent {
  readonly type = "script";
  readonly vendor = "example";
  readonly quota = "script";
  readonly executable = "python3";
  constructor(readonly name: string, readonly script: string) {}

  /** The agent needs no network: it has no model to reach. */
  modelHosts(): string[] {
    return [];
  }

  invocation(session: Session): Invocation {
    return {
      argv: ["python3", this.script, session.promptFile],
      // The script lives outside the checkout: let the sandbox show it.
      readable: [this.script],
    };
  }
}

const [repository, script] = Deno.args;
const project = await Project.load(repository);
const bout = new Bout(project, { contestants: [new ScriptAgent("my-agent", script)] });
const report = await bout.run();
console.log(renderMarkdown(report));
