// The unit tier: test files that start no process, write no file and open no socket.
// `deno task test:unit` runs them without the permissions to do any of that, so a file that
// starts needing one fails here and is moved out of this list. `deno task test` runs them too.
import "./adapters/claude_code_test.ts";
import "./adapters/command_test.ts";
import "./adapters/gemini_cli_test.ts";
import "./adapters/opencode_test.ts";
import "./cli/args_test.ts";
import "./cli/progress_test.ts";
import "./fixtures/recorded/recordings_test.ts";
import "./go/report_test.ts";
import "./judge/mod_test.ts";
import "./judge/policies_test.ts";
import "./judge/rules_test.ts";
import "./judge/voices_test.ts";
import "./lang/results_test.ts";
import "./mine/clean_test.ts";
import "./mine/package_test.ts";
import "./mine/refs_test.ts";
import "./node/changed_tests_test.ts";
import "./oracle/ground_truth_test.ts";
import "./python/classify_test.ts";
import "./race/lanes_test.ts";
import "./report/build_test.ts";
import "./report/discovery_test.ts";
import "./report/render_test.ts";
import "./report/repeats_test.ts";
import "./report/schema_test.ts";
import "./report/stats_repeats_test.ts";
import "./report/stats_test.ts";
import "./report/tables_test.ts";
import "./score/flags_test.ts";
import "./self_test.ts";
import "./shard/ci_docs_test.ts";
import "./structure_test.ts";
import "./testbed/roles_test.ts";
