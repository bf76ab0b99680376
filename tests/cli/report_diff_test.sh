#!/usr/bin/env bash
# End to end: report_diff on two benchmark_model reports of a made model (the table, per-op deltas, the
# latency gate's verdict and exit code), a synthetic 3x slowdown, two tools refused, usage errors.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/report_diff/report_diff"
BENCH="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"

"$MAKE" --output="$TMP/m.tflite" --input_size=32 >/dev/null || { echo "FAIL: make_model"; exit 1; }
for name in a b; do
  "$BENCH" --graph="$TMP/m.tflite" --num_runs=20 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0 \
    --enable_op_profiling --report_json="$TMP/$name.json" >/dev/null 2>&1
done
"$BIN" "$TMP/a.json" "$TMP/b.json" --max_regression_pct=100000 >"$TMP/same.txt" 2>&1
check "two runs of one model: PASS, exit 0" test $? -eq 0 -a "$(tail -1 "$TMP/same.txt")" = "Verdict: PASS (exit code 0)"
check "the header and the configuration" test "$(head -2 "$TMP/same.txt" | tail -1)" = "Configuration: the same"
check "the table: a row per shared figure" grep -qE '^latency\.regular\.mean_us +[0-9.e+]+ +[0-9.e+]+ +[-+0-9.]+% +(PASS|IMPROVEMENT|REGRESSION)$' "$TMP/same.txt"
check "the table: memory figures" grep -qE '^memory\.arena_bytes +[0-9.e+]+ +[0-9.e+]+ +same +PASS$' "$TMP/same.txt"
check "per-op deltas" test "$(grep -cE '^  (CONV_2D|DEPTHWISE_CONV_2D|AVERAGE_POOL_2D|FULLY_CONNECTED|SOFTMAX) ' "$TMP/same.txt")" -ge 10
check "the latency gate's line" grep -qE '^Latency gate: PASS: ' "$TMP/same.txt"

# The baseline run made three times slower: a REGRESSION by the gate's statistics, exit 1 (derived from
# the baseline itself, so a noisy second run cannot blur the factor).
python3 - "$TMP/a.json" "$TMP/slow.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["latency"]["regular"]["samples"]
s["latency_us"] = [3 * v for v in s["latency_us"]]
r["latency"]["regular"]["mean_us"] *= 3
json.dump(r, open(sys.argv[2], "w"))
PY
"$BIN" "$TMP/a.json" "$TMP/slow.json" >"$TMP/slow.txt" 2>&1
check "3x slower: REGRESSION, exit 1" test $? -eq 1 -a "$(tail -1 "$TMP/slow.txt")" = "Verdict: REGRESSION (exit code 1)"
check "3x slower: the mean's row says so" grep -qE '^latency\.regular\.mean_us .* \+[0-9]+\.[0-9]{2}% +REGRESSION$' "$TMP/slow.txt"

# Another configuration is shown, not refused (this tool is for people).
"$BENCH" --graph="$TMP/m.tflite" --num_runs=20 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0 --num_threads=2 \
  --report_json="$TMP/two.json" >/dev/null 2>&1
"$BIN" "$TMP/a.json" "$TMP/two.json" --max_regression_pct=100000 >"$TMP/two.txt" 2>&1
check "another configuration: named" grep -qxF "Configuration differs: num_threads 1 -> 2" "$TMP/two.txt"

# Errors: one line, documented exit codes.
echo '{"tool": "imagenet_eval"}' >"$TMP/other.json"
"$BIN" "$TMP/a.json" "$TMP/other.json" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "two tools: exit 3, one line" test $? -eq 3 -a "$(grep -c '^ERROR: the reports are of two tools' "$TMP/err.txt")" -eq 1
"$BIN" "$TMP/a.json" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "one report: exit 2" test $? -eq 2 -a "$(grep -c '^ERROR: expected two reports' "$TMP/err.txt")" -eq 1
"$BIN" "$TMP/a.json" "$TMP/none.json" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "a missing report: exit 3" test $? -eq 3 -a "$(grep -c "^ERROR: $TMP/none.json: cannot read the file" "$TMP/err.txt")" -eq 1

finish "report_diff_test"
