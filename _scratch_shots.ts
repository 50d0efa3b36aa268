import { Chromium } from "./tests/report/_chromium.ts";
import { fixtureInput } from "./tests/report/fixture.ts";
import { buildReport } from "./lib/report/build.ts";
import { renderHtml } from "./lib/report/html.ts";
const dir = await Deno.makeTempDir();
await Deno.writeTextFile(dir + "/r.html", renderHtml(buildReport(fixtureInput())));
{
await using b = await Chromium.launch("/usr/bin/chromium", dir);
await b.open("file://" + dir + "/r.html");
const h = await b.evaluate<number>("document.documentElement.scrollHeight");
console.log("height", h);
await b.send("Emulation.setDeviceMetricsOverride", { width: 1280, height: h, deviceScaleFactor: 1, mobile: false });
const step = 1400;
for (let y = 0, i = 0; y < h; y += step, i++) {
  const { data } = await b.send("Page.captureScreenshot", { format: "png", clip: { x: 0, y, width: 1280, height: Math.min(step, h - y), scale: 1 } });
  await Deno.writeFile(`/tmp/seg${i}.png`, Uint8Array.from(atob(String(data)), (c) => c.charCodeAt(0)));
}
}
await Deno.remove(dir, { recursive: true });
