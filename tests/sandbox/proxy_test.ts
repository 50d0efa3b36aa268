import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { join } from "node:path";
import { BugboutError } from "../../lib/errors.ts";
import { isLoopback, parseTarget, startProxy } from "../../lib/sandbox/proxy.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Read from `conn` until it closes (or `until` matches what was read). */
async function readText(conn: Deno.Conn, until?: RegExp): Promise<string> {
  let text = "";
  const buf = new Uint8Array(4096);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return text;
    text += decoder.decode(buf.subarray(0, n));
    if (until?.test(text)) return text;
  }
}

/** A raw TCP server on 127.0.0.1 that records each request head and answers `HELLO`. */
function rawServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      const text = await readText(conn, /\r\n\r\n[\s\S]*$/);
      heads.push(text);
      await conn.write(
        encoder.encode("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nHELLO"),
      );
      conn.close();
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    heads,
    async close() {
      listener.close();
      await serving;
    },
  };
}

async function withProxy(
  allow: string[],
  body: (socket: string, proxy: ReturnType<typeof startProxy>) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "bugbout-proxy-test-" });
  try {
    await using proxy = startProxy({ allow, listen: { unix: join(dir, "p.sock") } });
    await body(join(dir, "p.sock"), proxy);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("startProxy tunnels CONNECT to an allowed target and refuses others with 403", async () => {
  const server = rawServer();
  try {
    await withProxy([`127.0.0.1:${server.port}`], async (socket, proxy) => {
      const conn = await Deno.connect({ transport: "unix", path: socket });
      await conn.write(encoder.encode(`CONNECT 127.0.0.1:${server.port} HTTP/1.1\r\n\r\n`));
      const established = await readText(conn, /\r\n\r\n$/);
      match(established, /^HTTP\/1\.1 200 /);
      await conn.write(encoder.encode("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"));
      match(await readText(conn), /HELLO$/);
      conn.close();

      const denied = await Deno.connect({ transport: "unix", path: socket });
      await denied.write(encoder.encode(`CONNECT 127.0.0.1:${server.port + 1} HTTP/1.1\r\n\r\n`));
      match(await readText(denied), /^HTTP\/1\.1 403 Forbidden/);
      denied.close();
      deepEqual(proxy.denied, [`127.0.0.1:${server.port + 1}`]);
    });
  } finally {
    await server.close();
  }
  equal(server.heads.length, 1);
});

Deno.test("startProxy sends absolute-form requests in origin form, one request per connection", async () => {
  const server = rawServer();
  try {
    await withProxy([`127.0.0.1:${server.port}`], async (socket) => {
      const conn = await Deno.connect({ transport: "unix", path: socket });
      await conn.write(encoder.encode(
        `POST http://127.0.0.1:${server.port}/v1/chat?stream=1 HTTP/1.1\r\n` +
          `Host: 127.0.0.1:${server.port}\r\nProxy-Authorization: Basic c2VjcmV0\r\n` +
          `Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nbody`,
      ));
      match(await readText(conn), /^HTTP\/1\.1 200 OK[\s\S]*HELLO$/);
      conn.close();
    });
  } finally {
    await server.close();
  }
  const head = server.heads[0];
  match(head, /^POST \/v1\/chat\?stream=1 HTTP\/1\.1\r\n/);
  match(head, /\r\nHost: 127\.0\.0\.1:\d+\r\n/);
  match(head, /\r\nConnection: close\r\n/);
  ok(!/proxy-/i.test(head), head);
  ok(!/keep-alive/i.test(head), head);
  match(head, /\r\n\r\nbody$/);
});

Deno.test("startProxy answers 400 to requests that are not proxy requests", async () => {
  await withProxy(["127.0.0.1:9"], async (socket, proxy) => {
    for (
      const line of [
        "GET / HTTP/1.1",
        "GET https://127.0.0.1:9/ HTTP/1.1",
        "CONNECT nohost HTTP/1.1",
      ]
    ) {
      const conn = await Deno.connect({ transport: "unix", path: socket });
      await conn.write(encoder.encode(`${line}\r\nHost: x\r\n\r\n`));
      match(await readText(conn), /^HTTP\/1\.1 400 Bad Request/, line);
      conn.close();
    }
    equal(proxy.denied.length, 3);
  });
});

Deno.test("startProxy on loopback TCP reports its port", async () => {
  await using proxy = startProxy({ allow: [], listen: { tcp: "127.0.0.1" } });
  ok(proxy.port! > 0);
  equal(proxy.address, `127.0.0.1:${proxy.port}`);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port! });
  await conn.write(encoder.encode("CONNECT example.com:443 HTTP/1.1\r\n\r\n"));
  match(await readText(conn), /^HTTP\/1\.1 403/);
  conn.close();
});

Deno.test("close() ends open tunnels and removes the socket", async () => {
  const server = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of server) held.push(conn);
  })().catch(() => {});
  const dir = await Deno.makeTempDir({ prefix: "bugbout-proxy-test-" });
  try {
    const path = join(dir, "p.sock");
    const proxy = startProxy({ allow: [`127.0.0.1:${server.addr.port}`], listen: { unix: path } });
    const conn = await Deno.connect({ transport: "unix", path });
    await conn.write(encoder.encode(`CONNECT 127.0.0.1:${server.addr.port} HTTP/1.1\r\n\r\n`));
    match(await readText(conn, /\r\n\r\n$/), /200/);
    const idle = await Deno.connect({ transport: "unix", path });
    await proxy.close();
    equal(await readText(conn), "");
    equal(await readText(idle), "");
    conn.close();
    idle.close();
    let gone = false;
    await Deno.lstat(path).catch(() => gone = true);
    ok(gone);
  } finally {
    server.close();
    await accepting;
    for (const c of held) c.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseTarget reads host:port and rejects anything else", () => {
  deepEqual(parseTarget("API.OpenAI.com:443"), { host: "api.openai.com", port: 443 });
  deepEqual(parseTarget("[::1]:8080"), { host: "::1", port: 8080 });
  for (const bad of ["example.com", "http://x:1", "x:0", "x:70000", "::1:80", "a b:1"]) {
    throws(() => parseTarget(bad), BugboutError, bad);
  }
  throws(() => startProxy({ allow: ["nope"], listen: { tcp: "127.0.0.1" } }), BugboutError);
});

Deno.test("isLoopback knows 127/8, localhost and ::1", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) {
    ok(isLoopback(h), h);
  }
  for (const h of ["10.0.0.1", "api.openai.com", "::2", "localhost.example.com"]) {
    ok(!isLoopback(h), h);
  }
});
