/**
 * Seatbelt cannot run here (it is macOS only), so these tests read the generated profile: what is
 * denied, that the run's own directories come after the denials (the last matching rule wins),
 * and that paths are quoted safely.
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  homeSecrets,
  sbplString,
  type SeatbeltPolicy,
  seatbeltProfile,
} from "../../lib/sandbox/seatbelt.ts";

const policy: SeatbeltPolicy = {
  workdir: "/Users/me/.cache/bugbout/checkouts/run1",
  writable: ["/Users/me/proj/.bugbout/logs/run1"],
  readable: ["/Users/me/.pyenv/versions/3.11.7"],
  deny: ["/Users/me/proj", "/Users/me/.cache/bugbout", "/Users/me/proj/.bugbout", "/Users/me/.ssh"],
  tmpdir: "/private/var/folders/xy/T/bugbout-tmp-1",
  home: "/private/var/folders/xy/T/bugbout-tmp-1/home",
  ports: [],
};

/** The rule blocks of a profile, each starting with `(allow` or `(deny`. */
function rules(profile: string): string[] {
  const code = profile.split("\n").filter((l) => !l.startsWith(";")).join("\n");
  return code.split(/\n(?=\((?:allow|deny) )/).filter((b) => /^\((allow|deny) /.test(b));
}

/** The top-level forms of a profile, read the way a Scheme reader does (strings respected). */
function forms(profile: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < profile.length; i++) {
    const ch = profile[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === ";" && depth === 0) i = profile.indexOf("\n", i);
    else if (ch === "(") {
      if (depth++ === 0) start = i;
    } else if (ch === ")" && --depth === 0) out.push(profile.slice(start, i + 1));
    if (i < 0) break;
  }
  equal(depth, 0, "unbalanced profile");
  return out;
}

Deno.test("seatbeltProfile denies by default and reads everything but the future", () => {
  const profile = seatbeltProfile(policy);
  ok(profile.startsWith("(version 1)\n(deny default)\n"));
  const blocks = rules(profile);
  const readAll = blocks.findIndex((b) => b === "(allow file-read*)\n");
  const deny = blocks.findIndex((b) => b.startsWith("(deny file-read*"));
  const reallow = blocks.findIndex((b, i) => i > deny && b.startsWith("(allow file-read*"));
  ok(readAll >= 0 && deny > readAll && reallow > deny, "order: read all, deny, re-allow");
  for (const p of policy.deny) ok(blocks[deny].includes(`(subpath "${p}")`), p);
  for (const p of [policy.workdir, ...policy.writable, ...policy.readable, policy.tmpdir]) {
    ok(blocks[reallow].includes(`(subpath "${p}")`), p);
  }
  // The home lies inside the temporary directory: only the outer one is listed.
  ok(!blocks[reallow].includes(`(subpath "${policy.home}")`));
});

Deno.test("seatbeltProfile writes only to the run's directories", () => {
  const profile = seatbeltProfile(policy);
  const writes = rules(profile).filter((b) => b.includes("file-write*"));
  const run = writes.find((b) => b.startsWith("(allow file-write*"))!;
  for (const p of [policy.workdir, ...policy.writable, policy.tmpdir]) {
    ok(run.includes(`(subpath "${p}")`), p);
  }
  ok(!run.includes(policy.readable[0]), "a readable path is not writable");
  ok(!run.includes('"/Users/me/proj"'), "the repository is not writable");
  // The only other writable things are device files.
  for (const block of writes.filter((b) => b !== run)) {
    for (const filter of block.match(/\((?:literal|subpath|regex) [^)]*\)/g) ?? []) {
      match(filter, /\/dev\//);
    }
  }
});

Deno.test("seatbeltProfile lets the metadata of parents of allowed paths be read", () => {
  const profile = seatbeltProfile(policy);
  const meta = rules(profile).find((b) => b.startsWith("(allow file-read-metadata"))!;
  ok(meta.includes('(literal "/Users/me/.cache/bugbout/checkouts")'));
  ok(meta.includes('(literal "/Users")'));
  ok(!meta.includes("(subpath"), "metadata of parents only, not their contents");
});

Deno.test("seatbeltProfile opens the network only to the given loopback ports", () => {
  const tests = seatbeltProfile(policy);
  ok(!/network/.test(rules(tests).join("")), "tests get no network rule at all");
  const agent = seatbeltProfile({ ...policy, ports: [53123, 8080] });
  const net = rules(agent).filter((b) => b.includes("network"));
  equal(net.length, 1);
  equal(
    net[0],
    '(allow network-outbound\n  (remote ip "localhost:53123")\n  (remote ip "localhost:8080"))\n',
  );
});

Deno.test("sbplString escapes quotes and backslashes in paths", () => {
  equal(sbplString("/a/b"), '"/a/b"');
  equal(sbplString('/tmp/we"ird'), '"/tmp/we\\"ird"');
  equal(sbplString("/tmp/back\\slash"), '"/tmp/back\\\\slash"');
  const odd = '/Users/me/my "repo") (allow file-read* (subpath "/';
  const profile = seatbeltProfile({ ...policy, deny: [odd] });
  // The path stays one string: no unescaped quote can close it and start a rule.
  ok(profile.includes(`(subpath "/Users/me/my \\"repo\\") (allow file-read* (subpath \\"/")`));
  const plain = forms(seatbeltProfile({ ...policy, deny: ["/Users/me/repo"] }));
  const tricky = forms(profile);
  equal(tricky.length, plain.length);
  equal(tricky.filter((f) => f.startsWith("(deny file-read*")).length, 1);
});

Deno.test("homeSecrets lists the home directory's dot-entries and Library", async () => {
  const home = await Deno.makeTempDir({ prefix: "bugbout-home-" });
  try {
    for (const name of [".ssh", ".claude", "Library", "projects"]) {
      await Deno.mkdir(join(home, name));
    }
    await Deno.writeTextFile(join(home, ".netrc"), "machine x");
    equal(
      (await homeSecrets(home)).join(","),
      [".claude", ".netrc", ".ssh", "Library"].map((n) => join(home, n)).join(","),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
