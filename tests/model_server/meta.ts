/**
 * The non-model endpoints agents touch: Claude's `HEAD /` preflight, model lists (OpenAI,
 * Anthropic and Gemini shapes), token counting, and the Ollama endpoints `codex --oss` checks.
 *
 * @module
 */

/** What the meta endpoints report. */
export interface MetaOptions {
  /** Model ids to list. */
  models: string[];
  /** The Ollama version to report. */
  ollamaVersion: string;
}

function tokensOf(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? "").length / 4));
}

/** Answer a request that is not a model call. Unknown paths get a JSON 404. */
export function handleMeta(
  method: string,
  path: string,
  body: unknown,
  options: MetaOptions,
): Response {
  const created = 1_700_000_000;
  if (method === "HEAD") return new Response(null, { status: 200 });
  if (method === "GET" && path === "/") return new Response("ok");
  if (method === "GET" && path === "/api/version") {
    return Response.json({ version: options.ollamaVersion });
  }
  if (method === "GET" && path === "/api/tags") {
    return Response.json({
      models: options.models.map((name) => ({
        name,
        model: name,
        modified_at: "2026-01-01T00:00:00Z",
        size: 1,
        digest: "0".repeat(64),
        details: { format: "gguf", family: "fake", parameter_size: "1B" },
      })),
    });
  }
  if (method === "POST" && path === "/api/show") {
    return Response.json({ details: { family: "fake" }, model_info: {}, capabilities: ["tools"] });
  }
  if (method === "GET" && /^\/v1(beta|alpha)\/models$/.test(path)) {
    return Response.json({
      models: options.models.map((id) => ({
        name: `models/${id}`,
        displayName: id,
        supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
      })),
    });
  }
  if (method === "GET" && /\/models$/.test(path)) {
    const data = options.models.map((id) => ({
      id,
      object: "model",
      type: "model",
      created,
      created_at: new Date(created * 1000).toISOString(),
      owned_by: "bugbout",
      display_name: id,
    }));
    return Response.json({
      object: "list",
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  }
  const one = path.match(/\/models\/([^/:]+)$/);
  if (method === "GET" && one) {
    const id = decodeURIComponent(one[1]);
    return Response.json({ id, object: "model", type: "model", created, owned_by: "bugbout" });
  }
  if (method === "POST" && /\/messages\/count_tokens$/.test(path)) {
    return Response.json({ input_tokens: tokensOf(body) });
  }
  if (method === "POST" && /:countTokens$/.test(path)) {
    return Response.json({ totalTokens: tokensOf(body) });
  }
  return Response.json(
    { error: { message: `No route for ${method} ${path}`, type: "not_found" } },
    {
      status: 404,
    },
  );
}
