/**
 * The network bridge that runs inside a bubblewrap sandbox for an agent with network access.
 *
 * The sandbox has its own network namespace (only its own loopback), so the bridge is the one way
 * out: it listens on a free port of the sandbox's `127.0.0.1` and relays each connection to
 * bugbout's proxy over the bind-mounted Unix socket; for each allowed loopback target it also
 * listens on the same port inside and tunnels it with `CONNECT`, so a client pointed at
 * `http://127.0.0.1:PORT` works without proxy support. Then it starts the real command with
 * inherited stdio and the proxy variables set, and returns its exit code.
 *
 * bugbout starts it by re-running itself (see `lib/self.ts`): a compiled bugbout runs
 * {@linkcode runBridge} in-process for its internal command `__bridge`; under Deno (source or
 * bundle) the Deno that runs bugbout runs {@linkcode bridgeScript}, the same function as a
 * self-contained script. So `runBridge` refers to nothing outside its own body: no import, no
 * module-level name.
 *
 * @module
 */

/** What the bridge reads from its config file (no secrets: those travel in the environment). */
export interface BridgeConfig {
  /** The proxy's Unix socket, as seen inside the sandbox. */
  socket: string;
  /** Loopback targets to forward on the same port inside. */
  forwards: { port: number; target: string }[];
  /**
   * Variables the bridge's own runtime needed (e.g. `DENO_DIR`): the command gets them back as
   * the caller set them (a string) or not at all (`null`).
   */
  restore: Record<string, string | null>;
  /**
   * What starts the command with its limits (`prlimit --nproc=... --`): the bridge itself runs
   * without them, and says so itself when the command cannot be found.
   */
  launcher?: string[];
}

/**
 * Run the bridge: `args` are `<config.json> <argv...>`. Returns the command's exit code (127 when
 * it could not start); the caller exits with it, which also closes the bridge's listeners.
 * Self-contained (see the module's documentation). Requires `--allow-all` (it listens, connects,
 * reads its config and runs the command).
 */
export async function runBridge(args: readonly string[]): Promise<number> {
  const config = JSON.parse(Deno.readTextFileSync(args[0])) as BridgeConfig;
  const argv = args.slice(1);
  const encoder = new TextEncoder();
  type Conn = Deno.Conn;

  function closeQuietly(conn: Conn | undefined): void {
    try {
      conn?.close();
    } catch { /* already closed */ }
  }
  async function writeAll(conn: Conn, data: Uint8Array): Promise<void> {
    let off = 0;
    while (off < data.length) off += await conn.write(data.subarray(off));
  }
  async function pump(from: Conn, to: Conn): Promise<void> {
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      await writeAll(to, buf.subarray(0, n));
    }
    await to.closeWrite();
  }
  async function splice(a: Conn, b: Conn): Promise<void> {
    const fail = () => {
      closeQuietly(a);
      closeQuietly(b);
    };
    await Promise.all([pump(a, b).catch(fail), pump(b, a).catch(fail)]);
    fail();
  }
  function headEnd(bytes: Uint8Array): number {
    for (let i = 3; i < bytes.length; i++) {
      if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) {
        return i + 1;
      }
    }
    return -1;
  }
  async function relay(conn: Conn): Promise<void> {
    let up: Conn | undefined;
    try {
      up = await Deno.connect({ transport: "unix", path: config.socket });
      await splice(conn, up);
    } catch {
      closeQuietly(conn);
      closeQuietly(up);
    }
  }
  async function tunnel(conn: Conn, target: string): Promise<void> {
    let up: Conn | undefined;
    try {
      up = await Deno.connect({ transport: "unix", path: config.socket });
      const connect = `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`;
      await writeAll(up, encoder.encode(connect));
      let data = new Uint8Array(0);
      const buf = new Uint8Array(4096);
      let end = -1;
      while (end < 0 && data.length < 65536) {
        const n = await up.read(buf);
        if (n === null) break;
        const next = new Uint8Array(data.length + n);
        next.set(data);
        next.set(buf.subarray(0, n), data.length);
        data = next;
        end = headEnd(data);
      }
      const status = new TextDecoder().decode(data.subarray(0, Math.max(end, 0)));
      if (end < 0 || !/^HTTP\/1\.[01] 200/.test(status)) throw new Error(status);
      if (end < data.length) await writeAll(conn, data.subarray(end));
      await splice(conn, up);
    } catch {
      closeQuietly(conn);
      closeQuietly(up);
    }
  }
  async function serve(listener: Deno.Listener, handler: (conn: Conn) => unknown): Promise<void> {
    try {
      for await (const conn of listener) handler(conn);
    } catch { /* closed */ }
  }
  function findable(program: string, path: string | undefined): boolean {
    const dirs = program.includes("/") ? [""] : (path ?? "").split(":").filter(Boolean);
    for (const dir of dirs) {
      try {
        if (Deno.statSync(dir ? `${dir}/${program}` : program).isFile) return true;
      } catch { /* not here */ }
    }
    return false;
  }

  const proxy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  serve(proxy, relay);
  for (const f of config.forwards) {
    try {
      serve(Deno.listen({ hostname: "127.0.0.1", port: f.port }), (c) => tunnel(c, f.target));
    } catch (error) {
      console.error(
        `bugbout bridge: cannot listen on 127.0.0.1:${f.port} inside the sandbox: ${error}`,
      );
    }
    try {
      serve(Deno.listen({ hostname: "::1", port: f.port }), (c) => tunnel(c, f.target));
    } catch { /* no IPv6 loopback inside */ }
  }

  const env = Deno.env.toObject();
  for (const [key, value] of Object.entries(config.restore)) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  const url = `http://127.0.0.1:${proxy.addr.port}`;
  const proxyKeys = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy"];
  for (const key of [...proxyKeys, "all_proxy"]) env[key] = url;
  // Node 22.21+/24 built-in fetch and http only honour the proxy variables when asked to.
  env.NODE_USE_ENV_PROXY = "1";
  if (config.forwards.length > 0) {
    env.NO_PROXY = "127.0.0.1,localhost,::1";
    env.no_proxy = env.NO_PROXY;
  }
  const launcher = config.launcher ?? [];
  try {
    if (launcher.length > 0 && !findable(argv[0], env.PATH)) throw new Error("not found on PATH");
    const command = [...launcher, ...argv];
    const child = new Deno.Command(command[0], {
      args: command.slice(1),
      clearEnv: true,
      env,
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    return (await child.status).code;
  } catch (error) {
    console.error(`bugbout bridge: cannot start ${argv[0]}: ${error}`);
    return 127;
  }
}

/**
 * {@linkcode runBridge} as a self-contained script for `deno run` (plain JavaScript: the function's
 * own text, as the running Deno compiled it, so a bundle's copy is as good as the source's).
 * Args: `<config.json> <argv...>`. A program of its own, so it exits itself.
 */
export function bridgeScript(): string {
  return [
    "// bugbout network bridge (generated from runBridge in lib/sandbox/bridge.ts)",
    `const runBridge = ${runBridge.toString()};`,
    "Deno.exit(await runBridge(Deno.args));",
    "",
  ].join("\n");
}
