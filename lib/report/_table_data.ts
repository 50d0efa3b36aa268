/**
 * A table as plain strings, and how one set of columns gives the table of either voice.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

/** How a column's cells line up: text left, numbers right. */
export type Align = "left" | "right";

/** A table as plain strings: the renderers escape, pad and colour them. */
export interface TableData {
  /** One heading per column. */
  headers: string[];
  /** One cell per column in every row. */
  rows: string[][];
  /** One alignment per column. */
  align: Align[];
  /**
   * What the rows are, where a table needs saying so: HTML puts it above the table, the text
   * formats in place of the first heading.
   */
  caption?: string;
}

/** A section that is one table and the sentences under it. */
export interface TableSection {
  /** The table. */
  table: TableData;
  /** Sentences printed after it. */
  sentences: string[];
}

/** `full`: Markdown and HTML; `short`: the terminal's narrower headings, labels and columns. */
export type Voice = "full" | "short";

/** A column of a table: the short voice lowercases `head` unless `short` is given. */
export interface Column<T> {
  /** The heading in the full voice. */
  head: string;
  /** The heading in the short voice. */
  short?: string;
  /** Aligned right. */
  num?: boolean;
  /** Shown in this voice only. */
  only?: Voice;
  /** The cell of an item. */
  cell: (item: T) => string;
}

/** A table of items, a row each, with the columns shown in a voice. */
export function tableOf<T>(voice: Voice, items: readonly T[], columns: Column<T>[]): TableData {
  const shown = columns.filter((c) => (c.only ?? voice) === voice);
  return {
    headers: shown.map((c) => voice === "full" ? c.head : c.short ?? c.head.toLowerCase()),
    rows: items.map((item) => shown.map((c) => c.cell(item))),
    align: shown.map((c) => c.num ? "right" : "left"),
  };
}

/** The headings a text format prints: the caption, if any, in place of the first. */
export function textHeaders(table: TableData): string[] {
  return table.caption === undefined ? table.headers : [table.caption, ...table.headers.slice(1)];
}
