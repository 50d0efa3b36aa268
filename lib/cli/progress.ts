/**
 * Progress of a bout for a person: a summary line per stage with counts and time, and in between
 * what is running. On a terminal, the lines of work in flight (agents, tasks with the tree their
 * test session is on) are redrawn every second under a line with counts and an estimate of the
 * time left; otherwise a timestamped line as each attempt or task ends, and, when nothing was
 * printed for a while, one that says what is running. `quiet` prints nothing.
 *
 * @module
 */

import type { BoutEvent, Stage } from "../bout.ts";
import { palette } from "../style.ts";
import { elapsed, plural } from "../words.ts";
import type { Io } from "./io.ts";

/** How progress is printed. */
export interface ProgressOptions {
  /** Print nothing. */
  quiet?: boolean;
  /** Off a terminal: how long without a line before one says what is running (default 10 s). */
  heartbeatMs?: number;
  /** The clock, in milliseconds (tests pass their own). */
  now?: () => number;
  /** Call `tick` every `ms` until the returned function is called (tests pass their own). */
  every?: (ms: number, tick: () => void) => () => void;
}

/** A progress printer: feed it the bout's events, and call `stop()` when the bout ends. */
export interface ProgressPrinter {
  onEvent(event: BoutEvent): void;
  stop(): void;
}

/** Something running: an agent on a task, or a task of a stage that runs tests. */
interface Lane {
  label: string;
  at: number;
  /** The tree its current test session runs on, and since when. */
  tree?: { id: string; at: number };
  sessions: number;
}

/** Tasks of the stage that runs tests now: how many, how many done, since when. */
interface Tally {
  stage: Stage;
  total: number;
  done: number;
  sessions: number;
  at: number;
  /** The time left as estimated when the last task finished, and when that was. */
  estimate?: { ms: number; at: number };
}

const realEvery = (ms: number, tick: () => void) => {
  const id = setInterval(tick, ms);
  return () => clearInterval(id);
};

function stamp(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/**
 * The time left, once two units are done. It is estimated only from finished work, when a unit
 * finishes (the time so far for each, times what is left), and counts down from there while
 * waiting: waiting alone never makes it grow.
 */
function eta(tally: Tally, now: number): string | undefined {
  if (tally.done < 2 || tally.done >= tally.total || !tally.estimate) return undefined;
  const left = tally.estimate.ms - (now - tally.estimate.at);
  return left > 0 ? elapsed(left) : undefined;
}

/** Count one more finished unit of `tally` at `now`, and estimate the time left from it. */
function finished(tally: Tally, now: number) {
  tally.done++;
  tally.estimate = {
    ms: ((now - tally.at) / tally.done) * (tally.total - tally.done),
    at: now,
  };
}

/** A progress printer writing to `io`'s standard error. */
export function progressPrinter(io: Io, options: ProgressOptions = {}): ProgressPrinter {
  const p = palette(io.color);
  const now = options.now ?? (() => Date.now());
  const every = options.every ?? realEvery;
  const heartbeat = options.heartbeatMs ?? 10_000;
  const live = io.interactive && io.errRaw !== undefined;
  const lanes = new Map<string, Lane>();
  let tally: Tally | undefined;
  let stage: Stage | undefined;
  let drawn = 0;
  let lastLine = now();
  let cancel: (() => void) | undefined;

  const clear = () => {
    if (!live || drawn === 0) return;
    io.errRaw!(`\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  const laneText = (lane: Lane, t: number) => {
    const on = lane.tree ? ` on ${lane.tree.id} ${p.dim(`(${elapsed(t - lane.tree.at)})`)}` : "";
    const count = lane.sessions ? p.dim(` · ${lane.sessions} done`) : "";
    return `${lane.label}${on}${count}${lane.tree ? "" : ` ${p.dim(`(${elapsed(t - lane.at)})`)}`}`;
  };
  const tallyText = (t: number) => {
    if (!tally) return undefined;
    const left = eta(tally, t);
    return `${tally.done}/${tally.total} tasks done, ${plural(tally.sessions, "test session")}` +
      (left ? `, about ${left} left` : "");
  };
  const draw = () => {
    if (!live) return;
    clear();
    const t = now();
    const rows: string[] = [];
    const head = tallyText(t);
    if (head) rows.push(`  ${p.dim(`${stage} ${head}`)}`);
    for (const lane of lanes.values()) rows.push(`  ${p.accent("▸")} ${laneText(lane, t)}`);
    for (const row of rows) io.err(row);
    drawn = rows.length;
  };
  const line = (text: string) => {
    clear();
    io.err(live ? text : `[${stamp(now())}] ${text}`);
    lastLine = now();
    draw();
  };
  /** Off a terminal, when nothing was said for a while: what is running. */
  const beat = () => {
    const t = now();
    if (live) return draw();
    if (t - lastLine < heartbeat || !stage) return;
    const running = [...lanes.values()].map((l) => laneText(l, t)).join("; ");
    const head = tallyText(t);
    const parts = [head, running ? `running ${running}` : undefined].filter(Boolean);
    if (parts.length) line(`${stage.padEnd(8)} ${parts.join("; ")}`);
  };
  const lane = (key: string, label: string, at = now()) => {
    lanes.set(key, { label, at, sessions: 0 });
    if (live) draw();
  };

  if (options.quiet) return { onEvent() {}, stop() {} };
  return {
    onEvent(event) {
      switch (event.kind) {
        case "stage-start":
          stage = event.stage;
          cancel ??= every(live ? 1000 : Math.min(1000, heartbeat), beat);
          break;
        case "stage-end":
          lanes.clear();
          tally = undefined;
          stage = undefined;
          line(
            `${p.bold(event.stage.padEnd(8))} ${event.summary} ${p.dim(`(${elapsed(event.ms)})`)}`,
          );
          break;
        case "race": {
          const e = event.event;
          const key = `${e.task}\0${e.agent}`;
          if (e.kind === "start") {
            lane(key, `${e.agent} on ${e.task}`, e.at);
            if (!live) line(`race     ${e.agent} started on ${e.task}`);
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
        case "tasks": {
          const e = event.event;
          if (e.event === "prepare") {
            lanes.clear();
            lane("prepare", `${e.task}, getting ready`);
          } else if (e.event === "plan") {
            lanes.delete("prepare");
            tally = { stage: event.stage, total: e.run, done: 0, sessions: 0, at: now() };
          } else if (e.event === "start") {
            lane(e.task, e.task);
          } else if (e.event === "session") {
            const running = lanes.get(e.task);
            if (running) running.tree = { id: e.tree, at: now() };
          } else if (e.event === "run") {
            const running = lanes.get(e.task);
            if (running) running.sessions++;
            if (tally) tally.sessions++;
          } else if (e.event === "done") {
            const running = lanes.get(e.task);
            lanes.delete(e.task);
            if (tally) finished(tally, now());
            const t = now();
            const took = running ? ` ${p.dim(`(${elapsed(t - running.at)})`)}` : "";
            const sessions = running ? `, ${plural(running.sessions, "test session")}` : "";
            const left = tally ? eta(tally, t) : undefined;
            line(
              `${event.stage.padEnd(8)} ${e.task} done${sessions}${took}` +
                (tally ? p.dim(` · ${tally.done}/${tally.total} tasks`) : "") +
                (left ? p.dim(` · about ${left} left`) : ""),
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
      cancel?.();
      cancel = undefined;
      clear();
    },
  };
}
