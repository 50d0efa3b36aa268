/**
 * Output for the CLI renderers: where text goes and whether it may be coloured.
 *
 * @module
 */

/** Where the CLI writes, and how. */
export interface Io {
  /** Write a line (or lines) to standard output. */
  out(text: string): void;
  /** Write a line (or lines) to standard error. */
  err(text: string): void;
  /** Write to standard error as is (no newline): for redrawing progress lines on a terminal. */
  errRaw?(text: string): void;
  /** Colour is allowed: a TTY, no NO_COLOR, no --no-color. */
  color: boolean;
  /** Standard error is a terminal (live progress lines may be redrawn). */
  interactive: boolean;
}

/** The process's real standard streams. */
export function processIo(options: { noColor?: boolean } = {}): Io {
  const encoder = new TextEncoder();
  const noColor = options.noColor || (Deno.env.get("NO_COLOR") ?? "") !== "";
  return {
    out: (text) => Deno.stdout.writeSync(encoder.encode(text + "\n")),
    err: (text) => Deno.stderr.writeSync(encoder.encode(text + "\n")),
    errRaw: (text) => Deno.stderr.writeSync(encoder.encode(text)),
    color: !noColor && Deno.stdout.isTerminal(),
    interactive: Deno.stderr.isTerminal(),
  };
}
