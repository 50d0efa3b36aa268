/**
 * A scripted agent for demos and tests: a small Python program that reads the prompt, finds the
 * playbook entry whose `match` text appears in it, and performs that entry's steps on the working
 * copy (write, replace, delete, run a command). It is a real process that edits real files inside
 * the sandbox, driven by a script instead of a model, and says so in its output.
 *
 * @module
 */

import { join } from "node:path";

/** One thing the scripted agent does. */
export type PlaybookStep =
  | { write: string; content: string }
  | { replace: string; old: string; new: string }
  | { delete: string }
  | { run: string[] };

/** What the scripted agent does for the task whose prompt contains `match`. */
export interface PlaybookEntry {
  /** Text that identifies the task in the prompt (a phrase of the issue). */
  match: string;
  /** Steps, in order. */
  steps: PlaybookStep[];
  /** The closing summary it prints. */
  summary: string;
}

/** A whole scripted agent. */
export interface Playbook {
  /** Its name, printed with every run so nobody mistakes it for a model. */
  name: string;
  /** Entries, tried in order. */
  entries: PlaybookEntry[];
}

const SCRIPT = String.raw`
import json, os, subprocess, sys

PLAYBOOK = json.loads(__PLAYBOOK__)

def main():
    prompt = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    print(f"[scripted agent '{PLAYBOOK['name']}': follows a fixed playbook, no model]", flush=True)
    for entry in PLAYBOOK["entries"]:
        if entry["match"] in prompt:
            break
    else:
        print(json.dumps({"summary": "No playbook entry matches this issue; changed nothing."}))
        return 0
    for step in entry["steps"]:
        if "write" in step:
            path = step["write"]
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w") as f:
                f.write(step["content"])
        elif "replace" in step:
            path = step["replace"]
            if not os.path.exists(path):
                print(f"{path} does not exist here; skipping that edit", file=sys.stderr)
                continue
            text = open(path).read()
            if step["old"] not in text:
                print(f"could not find the text to replace in {path}", file=sys.stderr)
                return 1
            with open(path, "w") as f:
                f.write(text.replace(step["old"], step["new"], 1))
        elif "delete" in step:
            if os.path.exists(step["delete"]):
                os.remove(step["delete"])
        elif "run" in step:
            subprocess.run(step["run"], check=False)
    print(json.dumps({"summary": entry["summary"]}))
    return 0

sys.exit(main())
`;

/** The Python source of a scripted agent following `playbook`. */
export function playbookScript(playbook: Playbook): string {
  return SCRIPT.replace("__PLAYBOOK__", JSON.stringify(JSON.stringify(playbook)));
}

/** Write the agent into `dir` and return its path (run it as `python3 <path> {prompt_file}`). */
export async function writePlaybookAgent(dir: string, playbook: Playbook): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, `${playbook.name.replace(/[^\w.-]+/g, "_")}.py`);
  await Deno.writeTextFile(path, playbookScript(playbook));
  return path;
}
