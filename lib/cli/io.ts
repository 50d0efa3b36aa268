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

/**
 * A writer to one of the process's streams: every byte written (a pipe takes a large write in
 * parts), and a reader that went away (`bugbout tasks | head -1`) ends the writing quietly instead
 * of failing the command; the work itself goes on and its files are written as usual.
 */
function streamWriter(stream: { writeSync(p: Uint8Array): number }): (bytes: Uint8Array) => void {
  let closed = false;
  return (bytes) => {
    let rest = bytes;
    while (!closed && rest.length > 0) {
      try {
        rest = rest.subarray(stream.writeSync(rest));
      } catch (e) {
        if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
        closed = true;
      }
    }
  };
}

/** The process's real standard streams. */
export function processIo(options: { noColor?: boolean } = {}): Io {
  const encoder = new TextEncoder();
  const noColor = options.noColor || (Deno.env.get("NO_COLOR") ?? "") !== "";
  const stdout = streamWriter(Deno.stdout);
  const stderr = streamWriter(Deno.stderr);
  return {
    out: (text) => stdout(encoder.encode(text + "\n")),
    err: (text) => stderr(encoder.encode(text + "\n")),
    errRaw: (text) => stderr(encoder.encode(text)),
    color: !noColor && Deno.stdout.isTerminal(),
    interactive: Deno.stderr.isTerminal(),
  };
}
