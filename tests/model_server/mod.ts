/**
 * The scripted model server for tests, and the helpers tests use with it.
 *
 * ```ts
 * await using server = startModelServer({
 *   cwd: workdir,
 *   script: [{ run: "cat src/pkg/mod.py" }, { write: { path: "x.py", content: "x = 1\n" } }, {
 *     finish: "Done.",
 *   }],
 * });
 * // point the agent at server.url (Anthropic, Gemini) or `${server.url}/v1` (OpenAI shapes)
 * server.fail({ kind: "quota" }); // every model request now gets the vendor's 429 body
 * server.healthy();
 * server.requests; // everything the agent sent
 * ```
 *
 * Requires `--allow-net=127.0.0.1`.
 *
 * @module
 */

export * from "./server.ts";
export * from "./script.ts";
export type { Api, ParsedRequest } from "./requests.ts";
export type { OfferedTool } from "./tools.ts";
export { MINI_SUBMIT, shellFor } from "./tools.ts";
export {
  ANTHROPIC_RATE_LIMIT_MESSAGE,
  type ErrorResponse,
  GEMINI_DAILY_QUOTA_ID,
  OPENAI_QUOTA_MESSAGE,
  quotaResponse,
  statusResponse,
} from "./failures.ts";
export { anthropicUsage } from "./anthropic_wire.ts";
export { geminiUsage } from "./gemini_wire.ts";
export { chatUsage, responsesUsage } from "./openai_wire.ts";
export { parseSse, type SseFrame, sseJson } from "./sse.ts";
