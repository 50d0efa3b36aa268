/**
 * Error responses in each vendor's own shape: the quota bodies agents classify as quota, and
 * plain HTTP errors (5xx, 400) that they must not.
 *
 * @module
 */

import type { Api } from "./requests.ts";
import type { QuotaFlavor } from "./script.ts";

/** A status, headers and JSON body to answer with. */
export interface ErrorResponse {
  /** HTTP status. */
  status: number;
  /** Extra headers (`retry-after`). */
  headers: Record<string, string>;
  /** The JSON body. */
  body: unknown;
}

/** OpenAI's message for an exhausted quota, as agents quote it. */
export const OPENAI_QUOTA_MESSAGE: string =
  "You exceeded your current quota, please check your plan and billing details. For more " +
  "information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.";

/** Anthropic's rate-limit message. */
export const ANTHROPIC_RATE_LIMIT_MESSAGE =
  "This request would exceed your account's rate limit. Please try again later.";

/** The quota id that makes gemini-cli treat a 429 as terminal (a per-day quota). */
export const GEMINI_DAILY_QUOTA_ID = "GenerateRequestsPerDayPerProjectPerModel-FreeTier";

/** The vendor's usual quota flavor for an API. */
export function defaultFlavor(api: Api): Exclude<QuotaFlavor, "auto"> {
  switch (api) {
    case "responses":
    case "chat":
      return "insufficient_quota";
    case "anthropic":
      return "rate_limit_error";
    case "gemini":
      return "daily";
  }
}

function geminiQuota(flavor: "daily" | "per_minute"): unknown {
  const daily = flavor === "daily";
  const details: unknown[] = [{
    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
    violations: [{
      quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
      quotaId: daily
        ? GEMINI_DAILY_QUOTA_ID
        : "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
      quotaDimensions: { location: "global", model: "fake-model" },
      quotaValue: daily ? "250" : "10",
    }],
  }, {
    "@type": "type.googleapis.com/google.rpc.Help",
    links: [{
      description: "Learn more about Gemini API quotas",
      url: "https://ai.google.dev/gemini-api/docs/rate-limits",
    }],
  }];
  if (!daily) {
    details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" });
  }
  return {
    error: {
      code: 429,
      message: `${OPENAI_QUOTA_MESSAGE.split(" For more")[0]} * Quota exceeded for metric: ` +
        "generativelanguage.googleapis.com/generate_content_free_tier_requests",
      status: "RESOURCE_EXHAUSTED",
      details,
    },
  };
}

/**
 * The 429 response for a quota flavor on an API. `auto` picks the vendor's usual body; a flavor
 * from another vendor is sent as asked (a test may want codex to see an Anthropic body).
 */
export function quotaResponse(
  api: Api,
  flavor: QuotaFlavor = "auto",
  retryAfterSeconds?: number,
  now = Date.now(),
): ErrorResponse {
  const chosen = flavor === "auto" ? defaultFlavor(api) : flavor;
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers["retry-after"] = String(retryAfterSeconds);
  let body: unknown;
  switch (chosen) {
    case "insufficient_quota":
      body = {
        error: {
          message: OPENAI_QUOTA_MESSAGE,
          type: "insufficient_quota",
          param: null,
          code: "insufficient_quota",
        },
      };
      break;
    case "usage_limit_reached":
      body = {
        error: {
          type: "usage_limit_reached",
          message: "The usage limit has been reached",
          plan_type: "plus",
          resets_at: Math.floor(now / 1000) + 3600,
          resets_in_seconds: 3600,
        },
      };
      break;
    case "rate_limit_error":
      body = {
        type: "error",
        error: { type: "rate_limit_error", message: ANTHROPIC_RATE_LIMIT_MESSAGE },
      };
      break;
    case "daily":
    case "per_minute":
      body = geminiQuota(chosen);
      break;
  }
  return { status: 429, headers, body };
}

const GEMINI_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** A plain HTTP error (not a quota) in the API's error shape. */
export function statusResponse(api: Api, status: number, message?: string): ErrorResponse {
  const client = status >= 400 && status < 500;
  const text = message ??
    (client ? "Invalid request: the scripted server rejected it." : "The server had an error.");
  let body: unknown;
  switch (api) {
    case "responses":
    case "chat":
      body = {
        error: {
          message: text,
          type: client ? "invalid_request_error" : "server_error",
          param: null,
          code: null,
        },
      };
      break;
    case "anthropic": {
      const type = status === 529
        ? "overloaded_error"
        : client
        ? "invalid_request_error"
        : "api_error";
      body = { type: "error", error: { type, message: text } };
      break;
    }
    case "gemini":
      body = {
        error: { code: status, message: text, status: GEMINI_STATUS[status] ?? "UNKNOWN" },
      };
      break;
  }
  return { status, headers: {}, body };
}
