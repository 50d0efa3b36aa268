/**
 * Maps an abstract action (`run`, `read`, `write`, `edit`) onto a tool the client actually offered:
 * Codex `exec_command`/`shell`, Claude `Bash`/`Write`/`Edit`, Gemini `run_shell_command`/
 * `write_file`/`replace`, opencode `bash`/`write`/`edit`, Copilot `bash`/`create`/`edit`, mini's
 * `bash`. An agent without a write or edit tool gets the change as a shell command.
 *
 * @module
 */

import type { Action, ToolCall } from "./script.ts";

/** A tool from a request's tool list, normalised across APIs. */
export interface OfferedTool {
  /** The name as the client spelled it. */
  name: string;
  /** `function` tools take JSON arguments; `custom` tools free text; `builtin` are server tools. */
  kind: "function" | "custom" | "builtin";
  /** JSON-schema properties of the arguments: name to (lower-cased) type and enum, if any. */
  properties: Record<string, { type?: string; enum?: unknown[]; default?: unknown }>;
  /** Required argument names. */
  required: string[];
}

const SHELL_TOOLS = ["exec_command", "shell_command", "shell", "bash", "run_shell_command"];
const READ_TOOLS = ["read", "read_file", "view"];
const WRITE_TOOLS = ["write", "write_file", "create", "create_file"];
const EDIT_TOOLS = ["edit", "replace", "edit_file", "str_replace"];
const PATH_KEYS = ["file_path", "filePath", "absolute_path", "path", "filename"];
const CONTENT_KEYS = ["content", "file_text", "contents", "text"];
const OLD_KEYS = ["old_string", "oldString", "old_str"];
const NEW_KEYS = ["new_string", "newString", "new_str"];
const COMMAND_KEYS = ["cmd", "command"];

/** The sentinel mini-swe-agent waits for as the first output line of its submit command. */
export const MINI_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

function find(tools: readonly OfferedTool[], names: readonly string[]): OfferedTool | undefined {
  for (const name of names) {
    const hit = tools.find((t) => t.kind === "function" && t.name.toLowerCase() === name);
    if (hit) return hit;
  }
  return undefined;
}

function key(tool: OfferedTool, candidates: readonly string[]): string | undefined {
  return candidates.find((k) => k in tool.properties);
}

/** Quote a string for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/** Fill required arguments the script says nothing about with plausible values. */
function fillRequired(tool: OfferedTool, args: Record<string, unknown>): Record<string, unknown> {
  for (const name of tool.required) {
    if (name in args) continue;
    const prop = tool.properties[name] ?? {};
    if (prop.default !== undefined) args[name] = prop.default;
    else if (prop.enum?.length) args[name] = prop.enum[0];
    else if (prop.type === "boolean") args[name] = false;
    else if (prop.type === "integer" || prop.type === "number") args[name] = 30;
    else if (prop.type === "array") args[name] = [];
    else if (prop.type === "object") args[name] = {};
    else args[name] = name === "description" ? "Scripted step" : "scripted";
  }
  return args;
}

function absolute(path: string, cwd: string | undefined): string | undefined {
  if (path.startsWith("/")) return path;
  if (!cwd) return undefined;
  return `${cwd.replace(/\/$/, "")}/${path}`;
}

/** The shell command that does what a write or edit action does. */
export function shellFor(action: Action): string {
  switch (action.kind) {
    case "run":
      return action.command;
    case "read":
      return `cat ${shellQuote(action.path)}`;
    case "write": {
      const dir = action.path.includes("/")
        ? action.path.slice(0, action.path.lastIndexOf("/"))
        : "";
      const mkdir = dir ? `mkdir -p ${shellQuote(dir)} && ` : "";
      const delimiter = "BUGBOUT_EOF";
      if (action.content.endsWith("\n") && !action.content.includes(delimiter)) {
        return `${mkdir}cat > ${
          shellQuote(action.path)
        } <<'${delimiter}'\n${action.content}${delimiter}`;
      }
      return `${mkdir}printf '%s' ${shellQuote(action.content)} > ${shellQuote(action.path)}`;
    }
    case "edit": {
      const program = "import sys, pathlib; p = pathlib.Path(sys.argv[1]); s = p.read_text(); " +
        "assert sys.argv[2] in s, 'old text not found'; " +
        "p.write_text(s.replace(sys.argv[2], sys.argv[3], 1))";
      return `python3 -c ${
        [program, action.path, action.old, action.new].map(shellQuote).join(" ")
      }`;
    }
  }
}

/** A call of the offered shell tool running `command`, or undefined when none is offered. */
export function shellCall(tools: readonly OfferedTool[], command: string): ToolCall | undefined {
  const tool = find(tools, SHELL_TOOLS);
  if (!tool) return undefined;
  const name = key(tool, COMMAND_KEYS) ?? "command";
  const value = tool.properties[name]?.type === "array" ? ["bash", "-lc", command] : command;
  const args: Record<string, unknown> = { [name]: value };
  if ("description" in tool.properties) args.description = "Scripted step";
  return { name: tool.name, args: fillRequired(tool, args) };
}

/**
 * The tool call that performs `action` with the tools the client offered. Reads, writes and edits
 * use a file tool when one is offered and the path can be made absolute (relative paths need `cwd`),
 * else the shell. Returns undefined when the client offered no usable tool at all.
 */
export function callFor(
  action: Action,
  tools: readonly OfferedTool[],
  cwd?: string,
): ToolCall | undefined {
  if (action.kind === "read") {
    const tool = find(tools, READ_TOOLS);
    const path = absolute(action.path, cwd);
    const pathKey = tool && key(tool, PATH_KEYS);
    if (tool && path && pathKey) {
      return { name: tool.name, args: fillRequired(tool, { [pathKey]: path }) };
    }
  }
  if (action.kind === "write") {
    const tool = find(tools, WRITE_TOOLS);
    const path = absolute(action.path, cwd);
    const pathKey = tool && key(tool, PATH_KEYS);
    const contentKey = tool && key(tool, CONTENT_KEYS);
    if (tool && path && pathKey && contentKey) {
      return {
        name: tool.name,
        args: fillRequired(tool, { [pathKey]: path, [contentKey]: action.content }),
      };
    }
  }
  if (action.kind === "edit") {
    const tool = find(tools, EDIT_TOOLS);
    const path = absolute(action.path, cwd);
    const pathKey = tool && key(tool, PATH_KEYS);
    const oldKey = tool && key(tool, OLD_KEYS);
    const newKey = tool && key(tool, NEW_KEYS);
    if (tool && path && pathKey && oldKey && newKey) {
      const args = { [pathKey]: path, [oldKey]: action.old, [newKey]: action.new };
      return { name: tool.name, args: fillRequired(tool, args) };
    }
  }
  return shellCall(tools, shellFor(action));
}

/** The names of the tools a client offered, function tools and server tools alike. */
export function toolNames(tools: readonly OfferedTool[]): string[] {
  return tools.map((t) => t.name);
}

/** Normalise one JSON-schema object (any API's spelling) into an {@linkcode OfferedTool}. */
export function offeredTool(
  name: string,
  kind: OfferedTool["kind"],
  schema: unknown,
): OfferedTool {
  const s = (schema ?? {}) as { properties?: Record<string, unknown>; required?: unknown };
  const properties: OfferedTool["properties"] = {};
  for (const [prop, raw] of Object.entries(s.properties ?? {})) {
    const p = (raw ?? {}) as { type?: unknown; enum?: unknown[]; default?: unknown };
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
    properties[prop] = {
      type: typeof type === "string" ? type.toLowerCase() : undefined,
      enum: Array.isArray(p.enum) ? p.enum : undefined,
      default: p.default,
    };
  }
  const required = Array.isArray(s.required) ? s.required.filter((r) => typeof r === "string") : [];
  return { name, kind, properties, required };
}
