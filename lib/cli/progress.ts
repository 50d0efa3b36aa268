/**
 * Progress of a bout for a person: a summary line per stage with counts and time; while agents run,
 * one line per lane on a terminal (redrawn), plain timestamped lines otherwise.
 *
 * @module
 */

import type { BoutEvent } from "../bout.ts";
import { palette } from "../style.ts";
import type { Io } from "./io.ts";
import { elapsed } from "../words.ts";

function stamp(): string {
  return new Date().toISOString().slice(11, 19);
}

/** A progress printer; call `stop()` when the bout ends. */
export function progressPrinter(io: Io): { onEvent(event: BoutEvent): void; stop(): void } {
  const p = palette(io.color);
  const lanes = new Map<string, { task: string; agent: string; at: number }>();
  let drawn = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const clear = () => {
    if (!io.interactive || drawn === 0 || !io.errRaw) return;
    io.errRaw(`\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    if (!io.interactive || !io.errRaw) return;
    clear();
    const rows = [...lanes.values()].map((l) =>
      `  ${p.accent("▸")} ${l.agent} on ${l.task}  ${p.dim(elapsed(Date.now() - l.at))}`
    );
    for (const row of rows) io.err(row);
    drawn = rows.length;
  };
  const line = (text: string) => {
    clear();
    io.err(io.interactive ? text : `[${stamp()}] ${text}`);
    draw();
  };
  return {
    onEvent(event) {
      switch (event.kind) {
        case "stage-start":
          if (event.stage === "race" && io.interactive) timer = setInterval(draw, 1000);
          break;
        case "stage-end":
          if (event.stage === "race" && timer !== undefined) {
            clearInterval(timer);
            timer = undefined;
          }
          line(
            `${p.bold(event.stage.padEnd(8))} ${event.summary} ${p.dim(`(${elapsed(event.ms)})`)}`,
          );
          break;
        case "race": {
          const e = event.event;
          const key = `${e.task}\0${e.agent}`;
          if (e.kind === "start") {
            lanes.set(key, { task: e.task, agent: e.agent, at: e.at });
            if (!io.interactive) line(`race     ${e.agent} started on ${e.task}`);
            else draw();
          } else if (e.kind === "end") {
            lanes.delete(key);
            const mark = e.status === "patch"
              ? p.ok(e.status)
              : e.status === "no-change"
              ? e.status
              : p.warn(e.status);
            line(
              `race     ${e.agent} on ${e.task}: ${mark} ${p.dim(`(${elapsed(e.durationMs)})`)}`,
            );
          }
          break;
        }
        case "note":
          line(p.dim(event.text));
          break;
      }
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      clear();
    },
  };
}
