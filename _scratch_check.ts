import { fixtureInput } from "./tests/report/fixture.ts";
import { judge } from "./judge/mod.ts";
import { attemptSchema, matrixSchema, oraclesFileSchema, resolutionsFileSchema, tasksFileSchema, verdictsFileSchema } from "./lib/records.ts";
import { buildReport } from "./lib/report/build.ts";
import { reportSchema } from "./lib/report/types.ts";
const input = fixtureInput();
tasksFileSchema.parse(input.tasks); oraclesFileSchema.parse(input.oracles);
input.attempts.forEach((a) => attemptSchema.parse(a)); input.matrices.forEach((m) => matrixSchema.parse(m));
verdictsFileSchema.parse({version:1, kind:"verdicts", policy:"majority", verdicts: input.verdicts});
resolutionsFileSchema.parse({version:1, kind:"resolutions", resolutions: input.resolutions});
for (const m of input.matrices) {
  const v = judge(m, { policy: "majority", agents: input.agents });
  const mine = input.verdicts[m.task];
  console.log(m.task, "judge:", v.pick, Object.entries(v.patches).map(([a, p]) => `${a}=${p.approved}/${p.support.toFixed(2)}`).join(" "), "| fixture:", mine.pick, Object.entries(mine.patches).map(([a,p]) => `${a}=${p.approved}/${p.support}`).join(" "));
  console.log("   ", v.reason);
}
const r = buildReport(input);
reportSchema.parse(r);
console.log(JSON.stringify({agents: r.agents, comparisons: r.comparisons, picking: r.picking, gate: r.mergeGate, sep: r.separation, ev: r.evidence, disc: r.discovery}, null, 1));
