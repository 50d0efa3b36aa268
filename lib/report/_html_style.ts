/**
 * The HTML report's stylesheet, inlined into the page: system fonts only, nothing to fetch.
 *
 * @module
 */

/** The CSS of the HTML report. */
export const HTML_STYLE = `
:root { --fg: #1a202c; --muted: #4a5568; --faint: #718096; --line: #e2e8f0; --bg: #f4f6f9;
  --card: #fff; --accent: #2b6cb0; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 48px; }
header h1 { margin: 0 0 4px; font-size: 28px; letter-spacing: -0.01em; }
.sub { margin: 0 0 16px; color: var(--faint); font-size: 13px; }
.warning { background: #fff5f5; border: 2px solid #c53030; color: #742a2a; border-radius: 8px;
  padding: 12px 16px; margin: 0 0 16px; font-size: 15px; }
.notice { background: #fffff0; border: 2px solid #d69e2e; color: #744210; border-radius: 8px;
  padding: 12px 16px; margin: 0 0 16px; font-size: 15px; }
nav { display: flex; flex-wrap: wrap; gap: 6px 8px; margin: 0 0 16px; }
nav a { color: var(--accent); text-decoration: none; background: var(--card);
  border: 1px solid var(--line); border-radius: 999px; padding: 3px 12px; font-size: 13px; }
nav a:hover { border-color: var(--accent); }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 22px 14px; margin: 0 0 18px; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.03); }
h2 { margin: 0 0 4px; font-size: 20px; }
h3 { margin: 18px 0 6px; font-size: 16px; }
.lead { margin: 0 0 12px; color: var(--muted); max-width: 80ch; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 12px; font-variant-numeric: tabular-nums;
  font-size: 14px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12.5px; background: #f7fafc;
  border-bottom: 2px solid var(--line); }
tbody tr:hover { background: #f7fafc; }
.num { text-align: right; }
td.num { white-space: nowrap; }
table.fit td.num { white-space: normal; }
.name { white-space: nowrap; }
td .name { display: inline-block; max-width: 20em; overflow: hidden; text-overflow: ellipsis;
  vertical-align: bottom; }
.tag { display: inline-block; font-size: 11.5px; color: var(--faint); }
.chart { display: block; margin: 6px 0 10px; max-width: 100%; height: auto; }
.sentences { margin: 6px 0 8px; padding-left: 20px; }
.sentences li { margin: 2px 0; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12.5px; color: var(--muted);
  margin: 4px 0 10px; }
.legend i { display: inline-block; width: 11px; height: 11px; border-radius: 2px;
  margin-right: 5px; vertical-align: -1px; }
.pill { display: inline-block; color: #fff; border-radius: 999px; padding: 0 9px;
  font-size: 12.5px; white-space: nowrap; }
.pill.muted { color: var(--muted); background: #edf2f7; }
.badge { font-size: 11.5px; font-weight: 600; border-radius: 4px; padding: 1px 7px;
  vertical-align: 2px; margin-left: 6px; }
.badge.ok { background: #c6f6d5; color: #22543d; }
.badge.off { background: #fefcbf; color: #744210; }
.task { border-top: 1px solid var(--line); padding: 10px 0 4px; }
.task h3 { margin-top: 4px; overflow-wrap: anywhere; }
.task .title { font-weight: 400; }
.task p { margin: 2px 0; }
.facts, .muted { color: var(--faint); font-size: 13px; }
.why { color: #975a16; }
ul.reasons { margin: 4px 0 8px; padding-left: 1.2em; font-size: 13px; }
ul.reasons li { margin: 2px 0; overflow-wrap: anywhere; }
.note { color: var(--faint); font-size: 13px; }
details { margin: 8px 0 6px; }
summary { cursor: pointer; font-weight: 600; color: var(--accent); }
footer { color: var(--faint); font-size: 12px; text-align: center; margin-top: 24px; }
@media (max-width: 900px) {
  main { padding: 16px 10px 32px; }
  section { padding: 14px 12px 10px; }
  table { font-size: 13px; }
  th, td { padding: 4px 6px; }
  td .name { max-width: 10em; }
  table.fit { font-size: 12.5px; }
  table.fit th, table.fit td { padding: 4px 4px; }
}
@media print { body { background: #fff; } section { box-shadow: none; break-inside: avoid; } }
`;
