/**
 * A headless Chromium driven over the DevTools protocol, for tests of the HTML report: start it
 * with a fresh profile, open one page, watch its network requests, evaluate expressions and take
 * screenshots. The only connection is to the browser's own debugging port on 127.0.0.1.
 *
 * Requires `--allow-run`, `--allow-read`, `--allow-write` (the profile) and `--allow-net`
 * (127.0.0.1).
 *
 * @module
 */

import { join } from "node:path";

/** The switches the browser starts with (besides the profile and the debugging port). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--mute-audio",
  "--hide-scrollbars",
];

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

type Event = { method: string; params: Record<string, unknown>; sessionId?: string };

/** One browser, one page. */
export class Chromium implements AsyncDisposable {
  /** Every `Network.requestWillBeSent` of the page: the URLs it asked for. */
  readonly requests: string[] = [];
  #child: Deno.ChildProcess;
  #socket: WebSocket;
  #next = 1;
  #pending = new Map<number, Pending>();
  #waiters: { method: string; resolve: (e: Event) => void }[] = [];
  #session = "";

  private constructor(child: Deno.ChildProcess, socket: WebSocket) {
    this.#child = child;
    this.#socket = socket;
    socket.onmessage = (message) => this.#receive(JSON.parse(String(message.data)));
  }

  /** Start the browser with a fresh profile under `dir`, and attach to a new blank page. */
  static async launch(executable: string, dir: string): Promise<Chromium> {
    const profile = join(dir, "profile");
    await Deno.mkdir(profile, { recursive: true });
    // A profile left by an earlier browser must not point this one at a port long closed.
    const port = join(profile, "DevToolsActivePort");
    if (await Deno.lstat(port).then(() => true, () => false)) await Deno.remove(port);
    const child = new Deno.Command(executable, {
      args: [
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        "about:blank",
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      const endpoint = await debuggingEndpoint(profile);
      const socket = new WebSocket(endpoint);
      await new Promise<void>((resolve, reject) => {
        socket.onopen = () => resolve();
        socket.onerror = () => reject(new Error(`Cannot connect to Chromium at ${endpoint}`));
      });
      const browser = new Chromium(child, socket);
      const { targetId } = await browser.send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await browser.send("Target.attachToTarget", {
        targetId,
        flatten: true,
      });
      browser.#session = String(sessionId);
      await browser.send("Network.enable");
      await browser.send("Page.enable");
      return browser;
    } catch (error) {
      child.kill("SIGKILL");
      await child.status;
      throw error;
    }
  }

  /** Send a command to the page (or to the browser before a page is attached). */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#next++;
    const message = { id, method, params, ...(this.#session ? { sessionId: this.#session } : {}) };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify(message));
    });
  }

  /** Navigate to a URL and wait for its load event. */
  async open(url: string): Promise<void> {
    const loaded = this.#waitFor("Page.loadEventFired");
    const result = await this.send("Page.navigate", { url });
    if (result.errorText) throw new Error(`Cannot open ${url}: ${result.errorText}`);
    await loaded;
  }

  /** Evaluate an expression in the page and return its value (JSON-serialisable). */
  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send("Runtime.evaluate", {
      expression,
      returnByValue: true,
    });
    if (exceptionDetails) {
      throw new Error(`Cannot evaluate ${expression}: ${JSON.stringify(exceptionDetails)}`);
    }
    return (result as { value: T }).value;
  }

  /** Lay the page out in a viewport of the given size (CSS pixels), as a window of that size. */
  async viewport(width: number, height = 900): Promise<void> {
    await this.send("Emulation.setDeviceMetricsOverride", {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
  }

  /** A PNG of the whole page at the given width. */
  async screenshot(width: number): Promise<Uint8Array> {
    const metrics = { width, deviceScaleFactor: 1, mobile: false };
    // Lay the page out at the width first: its height depends on it.
    await this.send("Emulation.setDeviceMetricsOverride", { ...metrics, height: 800 });
    const height = await this.evaluate<number>("document.documentElement.scrollHeight");
    await this.send("Emulation.setDeviceMetricsOverride", { ...metrics, height });
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    return Uint8Array.from(atob(String(data)), (c) => c.charCodeAt(0));
  }

  /** Close the browser and wait for it to exit. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#session = "";
    const closed = new Promise<void>((resolve) => {
      if (this.#socket.readyState === WebSocket.CLOSED) resolve();
      this.#socket.onclose = () => resolve();
    });
    try {
      await Promise.race([this.send("Browser.close"), closed]);
    } catch {
      // already going
    }
    this.#socket.close();
    await closed;
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 5000);
    await this.#child.status;
    clearTimeout(timer);
  }

  #waitFor(method: string): Promise<Event> {
    return new Promise((resolve) => this.#waiters.push({ method, resolve }));
  }

  #receive(
    message: {
      id?: number;
      result?: Record<string, unknown>;
      error?: { message: string };
    } & Partial<Event>,
  ) {
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) pending?.reject(new Error(message.error.message));
      else pending?.resolve(message.result ?? {});
      return;
    }
    if (!message.method) return;
    const event = message as Event;
    if (event.method === "Network.requestWillBeSent") {
      this.requests.push(String((event.params.request as { url: string }).url));
    }
    const index = this.#waiters.findIndex((w) => w.method === event.method);
    if (index >= 0) this.#waiters.splice(index, 1)[0].resolve(event);
  }
}

/** Wait for Chromium to write `DevToolsActivePort` into the profile, and read its endpoint. */
async function debuggingEndpoint(profile: string): Promise<string> {
  const file = join(profile, "DevToolsActivePort");
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      const [port, path] = (await Deno.readTextFile(file)).trim().split("\n");
      if (port && path) return `ws://127.0.0.1:${port}${path}`;
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Chromium did not write ${file} within 15 s`);
}
