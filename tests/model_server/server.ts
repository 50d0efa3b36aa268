/**
 * A scripted model server on 127.0.0.1 for tests: it speaks the OpenAI Responses API, Chat
 * Completions, the Anthropic Messages API, Gemini `generateContent` and the bits of the Ollama
 * API `codex --oss` needs, plays a script of abstract turns in each client's own tool
 * vocabulary, records every request, and fails on demand (quota, HTTP errors, slow, truncated or
 * hanging streams).
 *
 * Requires `--allow-net=127.0.0.1`.
 *
 * @module
 */

import { type ErrorResponse, quotaResponse, statusResponse } from "./failures.ts";
import { type Api, apiOf, type ParsedRequest, parseRequest } from "./requests.ts";
import { encodeReply, planReply } from "./replies.ts";
import {
  DEFAULT_AUX_USAGE,
  DEFAULT_USAGE,
  type Failure,
  type Reply,
  type Turn,
  turnKind,
  type Usage,
} from "./script.ts";
import { deliver, type Delivery, OpenStreams } from "./sse.ts";
import { handleMeta } from "./meta.ts";

/** Options for {@linkcode startModelServer}. */
export interface ModelServerOptions {
  /** The turns to play, in order (one per model request that offers tools). */
  script?: Turn[];
  /** The agent's working directory: relative `write`/`edit` paths become absolute against it. */
  cwd?: string;
  /** Usage reported for turns that do not set their own. */
  usage?: Usage;
  /** Usage reported for auxiliary requests (ones that offer no tools, such as title requests). */
  auxUsage?: Usage;
  /** The text auxiliary requests get. */
  auxText?: string;
  /** What the model says once the script has run out. */
  exhaustedText?: string;
  /** Model ids listed by the model-list endpoints (and Ollama's `/api/tags`). */
  models?: string[];
  /** The version `/api/version` reports (codex `--oss` needs at least 0.13.4). */
  ollamaVersion?: string;
  /** A failure in force from the start (see {@linkcode ModelServer.fail}). */
  failure?: Failure;
}

/** One request as the server saw it, with what it answered. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  seq: number;
  /** Arrival time, ISO 8601. */
  at: string;
  /** HTTP method. */
  method: string;
  /** URL path. */
  path: string;
  /** Query parameters. */
  query: Record<string, string>;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** The parsed JSON body (or the raw text when it is not JSON; undefined when empty). */
  body: unknown;
  /** The model API, for model requests. */
  api?: Api;
  /** The model asked for. */
  model?: string;
  /** True when a stream was asked for. */
  stream?: boolean;
  /** Names of the tools offered. */
  tools: string[];
  /** All instruction and message text of the request. */
  text: string;
  /** Tool outputs the client sent back. */
  toolResults: string[];
  /**
   * `turn`: played a script turn (or the exhausted answer); `aux`: a tool-less side request;
   * `failure`: answered with a failure; `meta`: not a model request.
   */
  role: "turn" | "aux" | "failure" | "meta";
  /** Index of the script turn played, when one was. */
  turn?: number;
  /** The kind of that turn. */
  turnKind?: ReturnType<typeof turnKind>;
  /** What was answered, for model requests. */
  reply?: Reply;
  /** The failure applied, if any. */
  failure?: Failure;
  /** Usage reported (API-neutral). */
  usage?: Usage;
  /** HTTP status sent. */
  status: number;
  /** Why a turn could not be played as scripted. */
  problem?: string;
}

/** A running scripted model server. Close it with `await using` or {@linkcode close}. */
export class ModelServer implements AsyncDisposable {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #streams = new OpenStreams();
  readonly #options: ModelServerOptions;
  readonly #requests: RecordedRequest[] = [];
  #script: Turn[];
  #cwd?: string;
  #position = 0;
  #failure?: Failure;
  #failuresLeft = Infinity;
  #closed?: Promise<void>;

  /** Base URL without a path, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port chosen by the system. */
  readonly port: number;

  /** Start listening; prefer {@linkcode startModelServer}. */
  constructor(options: ModelServerOptions = {}) {
    this.#options = options;
    this.#script = [...(options.script ?? [])];
    this.#cwd = options.cwd;
    this.#failure = options.failure;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#handle(request),
    );
    this.port = this.#server.addr.port;
    this.url = `http://127.0.0.1:${this.port}`;
  }

  /** Every request so far, in arrival order. */
  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  /** Only the model requests (turns, auxiliary requests and failures). */
  modelRequests(): RecordedRequest[] {
    return this.#requests.filter((r) => r.role !== "meta");
  }

  /** How many script turns have been played. */
  get played(): number {
    return this.#position;
  }

  /** How many script turns are left. */
  get remaining(): number {
    return Math.max(0, this.#script.length - this.#position);
  }

  /** Replace the script (and optionally the working directory) and start it from the top. */
  setScript(turns: Turn[], options: { cwd?: string } = {}): void {
    this.#script = [...turns];
    this.#position = 0;
    if (options.cwd !== undefined) this.#cwd = options.cwd;
  }

  /**
   * Fail model requests from now on (auxiliary ones too) until {@linkcode healthy}, or only the
   * next `times` of them. Script turns are not consumed by a request that fails.
   */
  fail(failure: Failure, options: { times?: number } = {}): void {
    this.#failure = failure;
    this.#failuresLeft = options.times ?? Infinity;
  }

  /** Stop failing: the next request plays the script again. */
  healthy(): void {
    this.#failure = undefined;
    this.#failuresLeft = Infinity;
  }

  /** Sum of the usage the server reported, over played turns (and aux requests if asked). */
  usageSent(options: { aux?: boolean } = {}): Required<Usage> {
    const sum = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 };
    for (const r of this.#requests) {
      if (!r.usage || !(r.role === "turn" || (options.aux && r.role === "aux"))) continue;
      sum.input += r.usage.input;
      sum.output += r.usage.output;
      sum.cachedInput += r.usage.cachedInput ?? 0;
      sum.cacheWrite += r.usage.cacheWrite ?? 0;
      sum.reasoning += r.usage.reasoning ?? 0;
    }
    return sum;
  }

  /** End open streams (hanging ones too) and stop listening. Safe to call twice. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#streams.endAll();
      await this.#server.shutdown();
    })();
    return this.#closed;
  }

  /** Same as {@linkcode close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #takeFailure(): Failure | undefined {
    if (!this.#failure || this.#failuresLeft <= 0) return undefined;
    const failure = this.#failure;
    if (--this.#failuresLeft <= 0) this.healthy();
    return failure;
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const raw = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
    let body: unknown = undefined;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const record: RecordedRequest = {
      seq: this.#requests.length,
      at: new Date().toISOString(),
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(request.headers),
      body,
      tools: [],
      text: "",
      toolResults: [],
      role: "meta",
      status: 200,
    };
    this.#requests.push(record);
    const api = request.method === "POST" ? apiOf(url.pathname) : undefined;
    if (!api) {
      const response = handleMeta(request.method, url.pathname, body, {
        models: this.#options.models ?? ["fake-model"],
        ollamaVersion: this.#options.ollamaVersion ?? "0.13.5",
      });
      record.status = response.status;
      return response;
    }
    const parsed = parseRequest(api, body, url.pathname);
    Object.assign(record, {
      api,
      model: parsed.model,
      stream: parsed.stream,
      tools: parsed.tools.map((t) => t.name),
      text: parsed.text,
      toolResults: parsed.toolResults,
    });
    return this.#answer(parsed, record, url.searchParams);
  }

  #answer(
    parsed: ParsedRequest,
    record: RecordedRequest,
    query: URLSearchParams,
  ): Response {
    const aux = parsed.tools.length === 0;
    let failure = this.#takeFailure();
    let index = this.#position;
    if (!failure && !aux && index < this.#script.length) {
      const turn = this.#script[index];
      if ("fail" in turn) {
        failure = turn.fail;
        record.turn = index;
        record.turnKind = "fail";
        index = ++this.#position;
      }
    }
    record.failure = failure;
    if (failure?.kind === "quota" || failure?.kind === "status") {
      const error: ErrorResponse = failure.kind === "quota"
        ? quotaResponse(parsed.api, failure.flavor, failure.retryAfterSeconds)
        : statusResponse(parsed.api, failure.status, failure.message);
      record.role = "failure";
      record.status = error.status;
      return Response.json(error.body, { status: error.status, headers: error.headers });
    }
    const delivery: Delivery = {};
    if (failure?.kind === "slow") delivery.delayMs = failure.delayMs;
    if (failure?.kind === "truncate") delivery.truncate = failure.abort ? "abort" : "end";
    if (failure?.kind === "hang") delivery.hang = true;
    const broken = delivery.truncate !== undefined || delivery.hang === true;

    let reply: Reply;
    let usage: Usage;
    if (aux) {
      reply = { text: this.#options.auxText ?? "Scripted title" };
      usage = this.#options.auxUsage ?? DEFAULT_AUX_USAGE;
      record.role = broken ? "failure" : "aux";
    } else {
      const turn: Turn = this.#script[index] ??
        { finish: this.#options.exhaustedText ?? "Nothing more to do." };
      const planned = planReply(turn, parsed, this.#cwd);
      reply = planned.reply;
      record.problem = planned.problem;
      usage = ("usage" in turn ? turn.usage : undefined) ?? this.#options.usage ?? DEFAULT_USAGE;
      record.role = broken ? "failure" : "turn";
      if (index < this.#script.length) {
        record.turn = index;
        record.turnKind = turnKind(turn);
        if (!broken) this.#position = index + 1;
      }
    }
    record.reply = reply;
    record.usage = usage;
    const encoded = encodeReply(parsed, reply, {
      seq: record.seq,
      model: parsed.model ?? "fake-model",
      usage,
      created: Math.floor(Date.now() / 1000),
    }, query);
    return new Response(deliver(encoded.chunks, delivery, this.#streams), {
      headers: { "content-type": encoded.contentType, "cache-control": "no-cache" },
    });
  }
}

/** Start a scripted model server on 127.0.0.1 at a free port. */
export function startModelServer(options: ModelServerOptions = {}): ModelServer {
  return new ModelServer(options);
}
