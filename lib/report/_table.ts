/**
 * Plain-text tables and paragraphs that fit a terminal's width.
 *
 * @module
 */

/** How a table is laid out. */
export interface TableOptions {
  /** Alignment per column; left by default. */
  align?: readonly ("left" | "right")[];
  /** The widest a line may be, indent included. */
  width: number;
  /** Spaces before every line. */
  indent?: number;
  /** Style a cell after padding (colour), given its row (-1 for the header) and column. */
  style?: (text: string, row: number, column: number) => string;
  /** Style the header line. */
  headerStyle?: (text: string) => string;
}

const GAP = 2;
const MIN_COLUMN = 5;
const MIN_TEXT = 10;

/** The width of a string in columns (one per code point; no wide characters expected). */
export function textWidth(text: string): number {
  return [...text].length;
}

/**
 * Text as the terminal shows it, never as instructions to the terminal: a test id, message or
 * title an agent wrote can hold escape sequences that would clear the screen or rewrite a line,
 * so control characters become a space (tabs, newlines) or "\uFFFD".
 */
export function printable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\t\n\v\f\r]/g, " ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "\uFFFD");
}

/** Cut text to a width, ending in "…" when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return chars.slice(0, Math.max(0, width - 1)).join("") + "…";
}

/**
 * Lay out a table: columns as wide as their widest cell, then, while the lines are too wide, the
 * widest column loses a column (down to a minimum, its cells cut with "…").
 */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions,
): string[] {
  const indent = " ".repeat(options.indent ?? 2);
  const widths = header.map((h, i) =>
    Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? "")))
  );
  const total = () => indent.length + widths.reduce((s, w) => s + w, 0) + GAP * (widths.length - 1);
  // Text columns give way first (down to a few characters), then any column.
  const text = widths.map((_, i) => options.align?.[i] !== "right");
  for (const floor of [MIN_TEXT, MIN_COLUMN]) {
    while (total() > options.width) {
      const candidates = widths.map((w, i) =>
        (floor === MIN_TEXT && !text[i]) || w <= floor ? -1 : w
      );
      const widest = candidates.indexOf(Math.max(...candidates));
      if (candidates[widest] <= 0) break;
      widths[widest]--;
    }
  }
  const line = (cells: readonly string[], row: number) =>
    indent + cells.map((cell, i) => {
      const text = truncate(printable(cell ?? ""), widths[i]);
      const pad = " ".repeat(widths[i] - textWidth(text));
      const padded = options.align?.[i] === "right" ? pad + text : text + pad;
      return options.style ? options.style(padded, row, i) : padded;
    }).join(" ".repeat(GAP)).trimEnd();
  const head = line(header, -1);
  return [
    options.headerStyle ? options.headerStyle(head) : head,
    ...rows.map((r, i) => line(r, i)),
  ];
}

/** Wrap a paragraph to a width, every line indented. */
export function wrap(text: string, width: number, indent = 2): string[] {
  const pad = " ".repeat(indent);
  const lines: string[] = [];
  let current = "";
  for (const word of printable(text).split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word;
    if (textWidth(pad + next) > width && current) {
      lines.push(pad + current);
      current = word;
    } else {
      current = next;
    }
  }
  if (current) lines.push(pad + current);
  return lines.map((l) => textWidth(l) > width ? truncate(l, width) : l);
}
