/**
 * Server-sent events both ways: the frames the server writes, with the slow, truncated and hanging
 * failure modes, and a small parser that tests use to read them back.
 *
 * @module
 */

/** One server-sent event. */
export interface SseFrame {
  /** The `event:` line, when the API names its events. */
  event?: string;
  /** The `data:` payload (JSON text, or `[DONE]`). */
  data: string;
}

/** A frame with a JSON payload. */
export function frame(data: unknown, event?: string): SseFrame {
  return { event, data: JSON.stringify(data) };
}

/** The wire text of one frame. */
export function encodeFrame(f: SseFrame): string {
  return `${f.event ? `event: ${f.event}\n` : ""}data: ${f.data}\n\n`;
}

/** Split text into up to three deltas, so clients must join them. */
export function pieces(text: string): string[] {
  if (text.length < 6) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

/**
 * Split tool-call argument JSON into two deltas: the opening brace, then the rest. Clients must
 * join them, yet no string value is cut, so recordings can still replace paths inside them.
 */
export function argumentPieces(json: string): string[] {
  return json.length < 2 ? [json] : [json.slice(0, 1), json.slice(1)];
}

/** How to deliver a list of frames. */
export interface Delivery {
  /** Wait this long before each frame. */
  delayMs?: number;
  /** Send only the first half of the frames, then end the body (or reset, with `abort`). */
  truncate?: "end" | "abort";
  /** Send the first frame, then nothing more. */
  hang?: boolean;
}

/** Streams the server still has open, so that closing the server can end them. */
export class OpenStreams {
  #open = new Set<() => void>();
  /** Register a way to end a stream; returns the function that unregisters it. */
  add(end: () => void): () => void {
    this.#open.add(end);
    return () => {
      this.#open.delete(end);
    };
  }
  /** End every stream still open. */
  endAll(): void {
    for (const end of [...this.#open]) end();
    this.#open.clear();
  }
  /** How many streams are open. */
  get size(): number {
    return this.#open.size;
  }
}

/**
 * A response body that writes `chunks` one by one as `delivery` says. It stops early when the
 * client goes away (the body is cancelled) or when `streams.endAll()` runs.
 */
export function deliver(
  chunks: readonly string[],
  delivery: Delivery,
  streams: OpenStreams,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let forget: () => void = () => {};
  let closed = false;
  const count = delivery.hang
    ? Math.min(1, chunks.length)
    : delivery.truncate
    ? Math.max(1, Math.floor(chunks.length / 2))
    : chunks.length;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = (how: "close" | "error") => {
        if (closed) return;
        closed = true;
        if (timer !== undefined) clearTimeout(timer);
        forget();
        try {
          if (how === "close") controller.close();
          // Deno logs the reason of an errored body; a string keeps that to one clear line.
          else controller.error("model server: scripted connection reset (truncate abort)");
        } catch {
          // the client already cancelled the body
        }
      };
      forget = streams.add(() => finish("close"));
      let at = 0;
      const step = () => {
        timer = undefined;
        if (closed) return;
        if (at < count) {
          try {
            controller.enqueue(encoder.encode(chunks[at++]));
          } catch {
            finish("close");
            return;
          }
          timer = setTimeout(step, at < count ? delivery.delayMs ?? 0 : 0);
          return;
        }
        if (delivery.hang) return; // stays open until the client leaves or the server closes
        finish(delivery.truncate === "abort" ? "error" : "close");
      };
      timer = setTimeout(step, delivery.delayMs ?? 0);
    },
    cancel() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      forget();
    },
  });
}

/** Parse a whole SSE body into frames (for tests and recordings). */
export function parseSse(text: string): SseFrame[] {
  const out: SseFrame[] = [];
  for (const block of text.replaceAll("\r\n", "\n").split("\n\n")) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length) out.push({ event, data: data.join("\n") });
  }
  return out;
}

/** The JSON payloads of an SSE body, skipping `[DONE]`. */
export function sseJson(text: string): Record<string, unknown>[] {
  return parseSse(text).filter((f) => f.data !== "[DONE]").map((f) => JSON.parse(f.data));
}
