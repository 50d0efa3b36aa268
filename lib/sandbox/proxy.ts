/**
 * The allow-listing HTTP proxy that gives a sandboxed agent its model API and nothing else.
 *
 * It listens on a Unix socket (Linux: bind-mounted into the sandbox and bridged to a loopback
 * port there) or on `127.0.0.1` (macOS). It understands `CONNECT host:port` (HTTPS tunnels) and
 * absolute-form plain-HTTP requests (`POST http://127.0.0.1:8080/v1/... HTTP/1.1`), and passes only
 * the `host:port` pairs it was given; everything else gets `403 Forbidden`.
 *
 * Requires `--allow-net` (and `--allow-read`/`--allow-write` for a Unix socket path).
 *
 * @module
 */

import { BugboutError } from "../errors.ts";
import { removeIfExists } from "../fs.ts";

/** One `host:port` pair the proxy lets through. */
export interface ProxyTarget {
  /** Lower-case host name or IP address, without IPv6 brackets. */
  host: string;
  /** TCP port. */
  port: number;
}

/** Where the proxy listens. */
export type ProxyListen = { unix: string } | { tcp: "127.0.0.1" };

/** Options for {@linkcode startProxy}. */
export interface ProxyOptions {
  /** The `host:port` pairs to let through, e.g. `api.openai.com:443` or `127.0.0.1:8080`. */
  allow: readonly string[];
  /** A Unix socket path (created; must not exist) or loopback TCP on a free port. */
  listen: ProxyListen;
}

/** A running proxy. Close it (or `await using` it) when the run ends. */
export interface ProxyServer extends AsyncDisposable {
  /** The Unix socket path, or `127.0.0.1:<port>`. */
  readonly address: string;
  /** The TCP port for a TCP listener; undefined for a Unix socket. */
  readonly port?: number;
  /** The targets it lets through. */
  readonly allow: readonly ProxyTarget[];
  /** Targets it refused (`host:port`, or the raw request line when unparseable), oldest first. */
  readonly denied: readonly string[];
  /** Stop listening, drop every open connection and wait for their handlers to finish. */
  close(): Promise<void>;
}

const MAX_HEAD = 64 * 1024;
const MAX_DENIED = 100;
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/**
 * Parse `host:port` (IPv6 as `[::1]:443`). Throws a {@linkcode BugboutError} on anything else.
 */
export function parseTarget(text: string): ProxyTarget {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:\/\[\]]+)):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || port < 1 || port > 65535) {
    throw new BugboutError(`Cannot parse network target "${text}": expected host:port.`, {
      hint: "Write allowed targets as host:port, e.g. api.openai.com:443 or [::1]:8080.",
    });
  }
  return { host: (match[1] ?? match[2]).toLowerCase(), port };
}

/** True when `host` names this machine's loopback interface. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Format a target back as `host:port`, bracketing IPv6 addresses. */
export function formatTarget(target: ProxyTarget): string {
  return target.host.includes(":")
    ? `[${target.host}]:${target.port}`
    : `${target.host}:${target.port}`;
}

function findHeadEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (
      bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13
    ) return i + 1;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Read an HTTP head (up to the blank line); returns it and the bytes read past it. */
async function readHead(
  conn: Deno.Conn,
): Promise<{ head: string; rest: Uint8Array } | undefined> {
  let data: Uint8Array = new Uint8Array(0);
  const buf = new Uint8Array(16 * 1024);
  while (data.length <= MAX_HEAD) {
    const n = await conn.read(buf);
    if (n === null) return undefined;
    data = concat(data, buf.subarray(0, n));
    const end = findHeadEnd(data);
    if (end >= 0) {
      return { head: new TextDecoder().decode(data.subarray(0, end)), rest: data.subarray(end) };
    }
  }
  return undefined;
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

function closeQuietly(conn: Deno.Conn | undefined) {
  try {
    conn?.close();
  } catch (error) {
    if (!(error instanceof Deno.errors.BadResource)) throw error; // already closed
  }
}

/** Copy `from` into `to` until EOF, then half-close `to`. */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await from.read(buf);
    if (n === null) break;
    await writeAll(to, buf.subarray(0, n));
  }
  await to.closeWrite();
}

/** Relay bytes both ways until both sides are done (or one fails), then close both. */
async function splice(a: Deno.Conn, b: Deno.Conn): Promise<void> {
  const fail = () => {
    closeQuietly(a);
    closeQuietly(b);
  };
  await Promise.all([pump(a, b).catch(fail), pump(b, a).catch(fail)]);
  fail();
}

function reply(status: string, message: string): Uint8Array {
  const body = `bugbout proxy: ${message}\n`;
  return new TextEncoder().encode(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${
        new TextEncoder().encode(body).length
      }\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Rewrite an absolute-form request head to origin form for the target server. */
function originForm(lines: string[], method: string, url: URL, version: string): string {
  const out = [`${method} ${url.pathname}${url.search} ${version}`];
  let host = false;
  for (const line of lines.slice(1)) {
    if (!line) continue;
    const name = line.slice(0, line.indexOf(":")).trim().toLowerCase();
    if (HOP_HEADERS.has(name)) continue;
    if (name === "host") host = true;
    out.push(line);
  }
  if (!host) out.push(`Host: ${url.host}`);
  // One request per upstream connection, so a kept-alive client cannot reuse this tunnel for
  // another host's request.
  out.push("Connection: close");
  return out.join("\r\n") + "\r\n\r\n";
}

/**
 * Start an allow-listing proxy. Every allowed entry is validated up front (a bad one throws a
 * {@linkcode BugboutError}). Close the returned server when the run ends.
 */
export function startProxy(options: ProxyOptions): ProxyServer {
  const allow = options.allow.map(parseTarget);
  const allowed = (t: ProxyTarget) => allow.some((a) => a.host === t.host && a.port === t.port);
  const listener: Deno.Listener = "unix" in options.listen
    ? Deno.listen({ transport: "unix", path: options.listen.unix })
    : Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const stop = new AbortController();
  const open = new Set<Deno.Conn>();
  const handlers = new Set<Promise<void>>();
  const denied: string[] = [];
  const deny = (what: string) => {
    if (denied.length < MAX_DENIED) denied.push(what);
  };

  const dial = async (t: ProxyTarget): Promise<Deno.Conn> => {
    const conn = await Deno.connect({ hostname: t.host, port: t.port, signal: stop.signal });
    if (stop.signal.aborted) {
      closeQuietly(conn);
      throw new Error("the proxy is closing");
    }
    open.add(conn);
    return conn;
  };

  const handle = async (client: Deno.Conn) => {
    let upstream: Deno.Conn | undefined;
    try {
      const got = await readHead(client);
      if (!got) return;
      const lines = got.head.split("\r\n");
      const [method, target, version] = lines[0].split(" ");
      if (!method || !target || !/^HTTP\/1\.[01]$/.test(version ?? "")) {
        deny(lines[0].slice(0, 200));
        await writeAll(client, reply("400 Bad Request", "not an HTTP/1 proxy request"));
        return;
      }
      if (method.toUpperCase() === "CONNECT") {
        let t: ProxyTarget;
        try {
          t = parseTarget(target);
        } catch {
          deny(target.slice(0, 200));
          await writeAll(client, reply("400 Bad Request", `bad CONNECT target ${target}`));
          return;
        }
        if (!allowed(t)) {
          deny(formatTarget(t));
          await writeAll(client, reply("403 Forbidden", `${formatTarget(t)} is not allowed`));
          return;
        }
        try {
          upstream = await dial(t);
        } catch (error) {
          await writeAll(client, reply("502 Bad Gateway", `cannot reach ${target}: ${error}`));
          return;
        }
        await writeAll(
          client,
          new TextEncoder().encode(`${version} 200 Connection Established\r\n\r\n`),
        );
        if (got.rest.length) await writeAll(upstream, got.rest);
        await splice(client, upstream);
        return;
      }
      let url: URL;
      try {
        url = new URL(target);
        if (url.protocol !== "http:") throw new Error(url.protocol);
      } catch {
        deny(target.slice(0, 200));
        await writeAll(
          client,
          reply("400 Bad Request", "send CONNECT host:port, or an absolute http:// URL"),
        );
        return;
      }
      const t: ProxyTarget = {
        host: url.hostname.toLowerCase().replace(/^\[|\]$/g, ""),
        port: Number(url.port || 80),
      };
      if (!allowed(t)) {
        deny(formatTarget(t));
        await writeAll(client, reply("403 Forbidden", `${formatTarget(t)} is not allowed`));
        return;
      }
      try {
        upstream = await dial(t);
      } catch (error) {
        await writeAll(client, reply("502 Bad Gateway", `cannot reach ${url.host}: ${error}`));
        return;
      }
      await writeAll(upstream, new TextEncoder().encode(originForm(lines, method, url, version)));
      if (got.rest.length) await writeAll(upstream, got.rest);
      await splice(client, upstream);
    } catch {
      // A peer that resets or a close() mid-request ends the connection; nothing to report.
    } finally {
      closeQuietly(client);
      closeQuietly(upstream);
      open.delete(client);
      if (upstream) open.delete(upstream);
    }
  };

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        // A connection can still come out of the backlog after close() began.
        if (stop.signal.aborted) {
          closeQuietly(conn);
          continue;
        }
        open.add(conn);
        const h = handle(conn);
        handlers.add(h);
        h.finally(() => handlers.delete(h));
      }
    } catch {
      // the listener was closed
    }
  })();

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      stop.abort();
      try {
        listener.close();
      } catch (error) {
        if (!(error instanceof Deno.errors.BadResource)) throw error; // already closed
      }
      await accepting;
      for (const conn of open) closeQuietly(conn);
      await Promise.all([...handlers]);
      if ("unix" in options.listen) {
        await removeIfExists(options.listen.unix);
      }
    })();
    return closed;
  };

  const addr = listener.addr;
  return {
    address: addr.transport === "unix" ? addr.path : `127.0.0.1:${(addr as Deno.NetAddr).port}`,
    port: addr.transport === "tcp" ? addr.port : undefined,
    allow,
    denied,
    close,
    [Symbol.asyncDispose]: close,
  };
}
