/**
 * Terminal styles: green, red, yellow, dim, bold and cyan text when colour is on, plain text when
 * it is off. The CLI and the terminal report share them.
 *
 * No permissions needed.
 *
 * @module
 */

import { styleText } from "node:util";

/** Text styles that are no-ops when colour is off. */
export function palette(color: boolean) {
  const style = (format: Parameters<typeof styleText>[0]) => (text: string) =>
    color ? styleText(format, text, { validateStream: false }) : text;
  return {
    ok: style("green"),
    bad: style("red"),
    warn: style("yellow"),
    dim: style("dim"),
    bold: style("bold"),
    accent: style("cyan"),
  };
}

/** The palette type. */
export type Palette = ReturnType<typeof palette>;
