#!/usr/bin/env bash
# End to end: benchmark_model's lines (checked with the regexes scripts use on TFLite's output), its
# JSON report against docs/schemas/benchmark_model.schema.json, the op profile (text and CSV), memory
# lines, the regression gate's verdicts and exit codes on synthetic baselines and its refusal of another
# configuration, every bad flag (one line on stderr, a documented exit code), the flag file, the heartbeat of a long
# run into a log, and, with ../shared, golden models: '::' escapes, signatures, dynamic input shapes,
# control flow, a delegate in the profile, and a bounded report and gate on a sub-microsecond model.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"
# XNNPACK, applied by default over the optimized kernels, has its own test (xnnpack_test.sh); here the
# CPU kernels' nodes are what the profiles, state dumps, gates and delegation checks look at.
NO_XNNPACK=(--use_xnnpack=false)
expect_exit() {  # expect_exit <code> <description> <args...>: that exit code, at most one line on stderr
  local code="$1" what="$2"; shift 2
  "$BIN" "${NO_XNNPACK[@]}" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt"
  local got=$?
  if [ "$got" -eq "$code" ] && [ "$(wc -l <"$TMP/err.txt")" -le 1 ]; then
    echo "ok: $what (exit $got: $(cat "$TMP/err.txt"))"
  else
    echo "FAIL: $what: exit $got, expected $code; stderr: $(cat "$TMP/err.txt")"
    failures=$((failures + 1))
  fi
}
run() {  # run <name> <args...>: stdout to $TMP/<name>.out, stderr to $TMP/<name>.err, exit code to .rc
  local name="$1"; shift
  "$BIN" "${NO_XNNPACK[@]}" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
gate_check() {  # gate_check <run name> <description> <exit code> <regex one line of stdout must match>
  local name="$1" what="$2" code="$3" pattern="$4"
  if [ "$(rc "$name")" -eq "$code" ] && [ "$(grep -cE "$pattern" "$TMP/$name.out")" -eq 1 ]; then
    echo "ok: $what"
  else
    echo "FAIL: $what: exit $(rc "$name"); $(grep -iE 'gate' "$TMP/$name.out" | tr '\n' '|') $(cat "$TMP/$name.err")"
    failures=$((failures + 1))
  fi
}
FAST=(--num_runs=3 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0)

# --- TFLite's lines, as scripts written for TFLite read them ------------------------------------------
"$MAKE" --output="$TMP/m.tflite" --input_size=64 >/dev/null
run plain --graph="$TMP/m.tflite" "${FAST[@]}"
check "runs the made model" test "$(rc plain)" -eq 0
for line in "STARTING!" "Graph: [$TMP/m.tflite]" "Loaded model $TMP/m.tflite" "The input model file size (MB): " \
            "Initialized session in " \
            "Running benchmark for at least 1 iterations and at least 0 seconds but terminate if exceeding 150 seconds." \
            "Running benchmark for at least 3 iterations and at least 0 seconds but terminate if exceeding 150 seconds." \
            "Inference timings in us: Init: " "Memory footprint delta from the start of the tool (MB): init=" \
            "Inference latency in us (3 runs): min=" "Memory, tensor arena (planned at AllocateTensors"; do
  check "prints '$line'" grep -qF "$line" "$TMP/plain.out"
done
check "the kernels line: every node's kernel counted" grep -qE '^Kernels: [0-9]+ optimized, [0-9]+ reference( \(.*\))?, [0-9]+ delegated(, [0-9]+ computed at Prepare \([^)]*\))?(, [0-9]+ chosen at the first Invoke)?$' "$TMP/plain.out"
check "the statistics lines, TFLite's form" test "$(grep -cE '^count=[0-9]+ (first=[0-9]+ curr=[0-9]+ min=[0-9]+ max=[0-9]+ avg=[0-9.e+]+ std=[0-9]+|curr=[0-9]+( \(all same\))?) p5=[0-9]+ median=[0-9]+ p95=[0-9]+$' "$TMP/plain.out")" -eq 2
check "a script's parse of the timings line and the avg (python re)" python3 - "$TMP/plain.out" <<'EOF'
import re, sys
out = open(sys.argv[1]).read()
m = re.search(r"Inference timings in us: Init: (\d+), First inference: (\d+), Warmup \(avg\): ([\d.e+-]+), Inference \(avg\): ([\d.e+-]+)", out)
assert m, "no timings line"
init, first, warm, avg = int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4))
counts = re.findall(r"count=(\d+)", out)
assert counts[-1] == "3", counts
avgs = re.findall(r"avg=([\d.e+-]+)", out)
assert all(float(a) > 0 for a in avgs) and init > 0 and first > 0 and warm > 0 and avg > 0
EOF
check "a shell script's grep/awk of the Inference (avg)" test -n "$(grep 'Inference timings in us' "$TMP/plain.out" | awk -F'Inference \\(avg\\): ' '{print $2}')"
check "no progress line when stderr is not a terminal" test "$(grep -c $'\r' "$TMP/plain.err")" -eq 0
check "stderr is empty on a plain run" test ! -s "$TMP/plain.err"

run verbose --graph="$TMP/m.tflite" "${FAST[@]}" --verbose
check "--verbose logs every parameter" grep -qxF "Num threads: [-1]" "$TMP/verbose.out"
check "--verbose logs delegate flags too" grep -qF "use_sample_delegate: [0]" "$TMP/verbose.out"
check "without --verbose only given parameters" test "$(grep -c '^Num threads: ' "$TMP/plain.out")" -eq 0

run dry --graph="$TMP/m.tflite" --dry_run
check "--dry_run runs nothing" test "$(rc dry)" -eq 0 -a "$(grep -c '^count=0$' "$TMP/dry.out")" -eq 2
check "--dry_run: TFLite's loop line" grep -qF "Running benchmark for at least 0 iterations and at least -1 seconds" "$TMP/dry.out"

run sigs --graph="$TMP/m.tflite" --list_signatures
check "--list_signatures on a model without any" grep -qxF "The Model contains 0 signature key(s)." "$TMP/sigs.out"

run samples --graph="$TMP/m.tflite" "${FAST[@]}" --print_latency_samples
check "--print_latency_samples" grep -qE '^Inference latency samples in us: [0-9]+\.[0-9]{3} [0-9.]+ [0-9.]+$' "$TMP/samples.out"

# --- Memory --------------------------------------------------------------------------------------------
run peak --graph="$TMP/m.tflite" "${FAST[@]}" --report_peak_memory_footprint --memory_footprint_check_interval_ms=5
check "--report_peak_memory_footprint: TFLite's line" grep -qE '^Overall peak memory footprint \(MB\) via periodic monitoring: [0-9.]+$' "$TMP/peak.out"
check "--report_peak_memory_footprint: the sampled peak, labelled" grep -qE '^Memory, peak process RSS sampled every 5 ms on its own thread: [0-9.]+ MB \([0-9]+ samples\)$' "$TMP/peak.out"
check "memory lines say what they measure" test "$(grep -cE '^Memory, (model file|tensor arena|tensors allocated outside|process RSS now|process RSS high-water)' "$TMP/peak.out")" -eq 5

# --- State dumps ---------------------------------------------------------------------------------------
run state --graph="$TMP/m.tflite" "${FAST[@]}" --print_preinvoke_state --print_postinvoke_state --tensor_name_display_length=10
check "pre-invoke state" grep -qF "====Printing out TfLite interpreter pre-invoke state begins====" "$TMP/state.out"
check "post-invoke state" grep -qF "====Printing out TfLite interpreter post-invoke state ends====" "$TMP/state.out"
check "state lists the subgraph" grep -qE '^-----------Subgraph-0 has [0-9]+ tensors and 30 nodes------------$' "$TMP/state.out"
check "pre-invoke before the first run, post-invoke after the timings" python3 - "$TMP/state.out" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
pre = [i for i, l in enumerate(lines) if "pre-invoke state begins" in l][0]
run = [i for i, l in enumerate(lines) if l.startswith("Running benchmark")][0]
timings = [i for i, l in enumerate(lines) if l.startswith("Inference timings")][0]
post = [i for i, l in enumerate(lines) if "post-invoke state begins" in l][0]
assert pre < run < timings < post
EOF

# --- Op profiling --------------------------------------------------------------------------------------
run prof --graph="$TMP/m.tflite" "${FAST[@]}" --enable_op_profiling
check "op profile: TFLite's heading" grep -qxF "Operator-wise Profiling Info for Regular Benchmark Runs:" "$TMP/prof.out"
for section in "Run Order" "Top by Computation Time" "Summary by node type"; do
  check "op profile: $section" grep -qxF "============================== $section ==============================" "$TMP/prof.out"
done
check "op profile: TFLite's columns" grep -qP '^\t\s+\[node type\]\t\s+\[first\]\t\s+\[avg ms\]\t\s+\[%\]\t\s+\[cdf%\]\t\s+\[mem KB\]\t\[times called\]\t\[Name\]$' "$TMP/prof.out"
check "op profile: one row per node in run order (30)" python3 - "$TMP/prof.out" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
block = text.split("============================== Run Order ==============================\n")[1].split("\n\n")[0]
rows = block.split("\n")[1:]
assert len(rows) == 30, len(rows)
for i, r in enumerate(rows):
    f = r.split("\t")
    assert f[-1].endswith(":%d" % i), r        # "[tensor]:node_index"
    assert f[1].strip() in ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"), r
assert abs(float(rows[-1].split("\t")[5].strip().rstrip("%")) - 100.0) < 0.01   # cdf ends at 100%
assert "Number of nodes executed: 30" in text and "30 nodes observed" in text
EOF
check "op profile: Touchstone's kernel per node, after TFLite's tables" python3 - "$TMP/prof.out" <<'EOF'
import sys
text = open(sys.argv[1]).read()
assert text.index("============================== Kernel per node ==============================") > text.index("30 nodes observed")
block = text.split("============================== Kernel per node ==============================\n")[1].split("\n\n")[0]
rows = block.split("\n")[1:]
assert len(rows) == 30, len(rows)
assert all(r.split("\t")[4].strip() in ("optimized", "reference") for r in rows), rows
assert sum(r.split("\t")[4].strip() == "optimized" for r in rows) >= 25, rows
EOF
run csv --graph="$TMP/m.tflite" "${FAST[@]}" --enable_op_profiling --op_profiling_output_mode=csv \
  --op_profiling_output_file="$TMP/profile.csv"
check "csv profile written to the file, not stdout" test -s "$TMP/profile.csv" -a "$(grep -c 'Run Order' "$TMP/csv.out")" -eq 0
check "csv profile: TFLite's CSV columns and rows" python3 - "$TMP/profile.csv" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "Operator-wise Profiling Info for Regular Benchmark Runs:", lines[0]
i = lines.index("node type, first, avg_ms, %, cdf%, mem KB, times called, name")
rows = []
for l in lines[i + 1:]:
    if not l: break
    rows.append([c.strip() for c in l.split(",")])
assert len(rows) == 30, len(rows)
total = sum(float(r[3].rstrip("%")) for r in rows)
assert abs(total - 100.0) < 0.1, total
assert "node type, count, avg_ms, avg %, cdf %, mem KB, times called" in lines
EOF
run csv_old --graph="$TMP/m.tflite" "${FAST[@]}" --enable_op_profiling --profiling_output_csv_file="$TMP/old.csv"
check "--profiling_output_csv_file (TFLite's deprecated flag) writes csv" grep -qxF "node type, first, avg_ms, %, cdf%, mem KB, times called, name" "$TMP/old.csv"
run delegate_prof --graph="$TMP/m.tflite" "${FAST[@]}" --enable_op_profiling --use_sample_delegate
check "a delegate that takes nothing leaves the CPU nodes in the profile" grep -qE $'^\t +CONV_2D\t' "$TMP/delegate_prof.out"

# --- JSON report and TFLite's result file ----------------------------------------------------------
run json --graph="$TMP/m.tflite" "${FAST[@]}" --enable_op_profiling --report_peak_memory_footprint \
  --report_json="$TMP/report.json" --result_file_path="$TMP/result.json" --benchmark_name=demo
check "JSON report written" test "$(rc json)" -eq 0 -a -s "$TMP/report.json"
check "JSON report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/report.json"
check "JSON report matches the text" python3 - "$TMP/report.json" "$TMP/json.out" <<'EOF'
import json, re, sys
report = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
# The text is a view of the report.
reg = report["latency"]["regular"]
assert reg["count"] == 3 and len(reg["samples"]["latency_us"]) == 3 and reg["samples"]["all_kept"]
m = re.search(r"Inference timings in us: Init: (\d+), First inference: (\d+), Warmup \(avg\): ([\d.e+-]+), Inference \(avg\): ([\d.e+-]+)", text)
assert int(m.group(1)) == report["latency"]["init_us"]
# Init's parts add up to Init, in the text and the JSON.
parts = report["latency"]["init_parts_us"]
assert sum(parts.values()) == report["latency"]["init_us"], parts
q = re.search(r"^Init parts in us: load (\d+), build (\d+), prepare (\d+), allocate (\d+)$", text, re.M)
assert [int(x) for x in q.groups()] == [parts["load"], parts["build"], parts["prepare"], parts["allocate"]]
assert abs(int(m.group(2)) - report["latency"]["first_inference_us"]) <= 1
# TFLite's whole-microsecond avg against the JSON's nanosecond one.
assert abs(float(m.group(4)) - reg["tflite"]["avg"]) <= 1e-6 * reg["tflite"]["avg"] + 0.05
assert abs(reg["tflite"]["avg"] - reg["mean_us"]) <= 1.0
p = re.search(r"p5=([\d.]+) p50=([\d.]+) p90=([\d.]+) p95=([\d.]+) p99=([\d.]+)", text)
assert [float(x) for x in p.groups()] == [reg["p5_us"], reg["p50_us"], reg["p90_us"], reg["p95_us"], reg["p99_us"]]
assert report["benchmark_name"] == "demo"
assert report["configuration"]["flags"]["num_runs"] == "3"
assert report["configuration"]["num_threads"] == 1 and report["configuration"]["kernels"] == "optimized"
assert report["configuration"]["inputs"][0]["shape"] == [1, 64, 64, 3], report["configuration"]["inputs"]
assert report["touchstone_version"] and report["machine"]["isa"]
assert len(report["op_profile"]["subgraphs"][0]["nodes"]) == 30
assert report["memory"]["peak_rss_bytes"] > 0
EOF
check "--result_file_path: TFLite's BenchmarkResult fields" python3 - "$TMP/result.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("init_ms", "first_inference_ms", "average_warm_up_ms", "avg_ms", "min_ms", "max_ms", "stddev_ms", "median_ms", "p5_ms", "p95_ms"):
    assert k in r["latency_metrics"], k
assert r["misc_metrics"]["num_runs"] == 3 and r["misc_metrics"]["num_warmup_runs"] >= 1
assert "init_footprint_kb" in r["memory_metrics"] and r["memory_metrics"]["peak_mem_mb"] > 0
EOF

# --- The regression gate on synthetic baselines ----------------------------------------------------
# baseline <file> <python expression for the kept samples' latency_us, given m = this run's median>
baseline() {
  python3 - "$TMP/report.json" "$1" "$2" "${3:-}" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = sorted(r["latency"]["regular"]["samples"]["latency_us"])
m = max(1, s[len(s) // 2])
samples = eval(sys.argv[3])
r["latency"]["regular"]["samples"]["latency_us"] = samples
r["latency"]["regular"]["samples"]["run_index"] = list(range(len(samples)))
r["latency"]["regular"]["count"] = len(samples)
if sys.argv[4]:
    r["memory"]["arena_bytes"] = eval(sys.argv[4])
json.dump(r, open(sys.argv[2], "w"))
EOF
}
GATE=(--graph="$TMP/m.tflite" --num_runs=10 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0)
baseline "$TMP/regress.json" "[max(1, m // 20)] * 10"
run regress "${GATE[@]}" --baseline="$TMP/regress.json" --report_json="$TMP/gated.json"
gate_check regress "gate: a 20x faster baseline is a REGRESSION, exit 1" 1 \
  '^Latency gate: REGRESSION: median [0-9]+\.[0-9]{3} us vs baseline [0-9]+\.[0-9]{3} us, ratio [0-9.]+ \(95% CI [0-9.]+ to [0-9.]+\), limit \+5%, 10 vs 10 runs$'
check "gate: the overall verdict" grep -qxF "Gate verdict: REGRESSION (exit code 1)" "$TMP/regress.out"
check "gate: the gated report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/gated.json"
check "gate: the JSON report carries the verdict" python3 -c '
import json, sys; g = json.load(open(sys.argv[1]))["gate"]
assert g["verdict"] == "REGRESSION" and g["exit_code"] == 1 and g["latency"]["ci_low"] > 1.05' "$TMP/gated.json"
baseline "$TMP/improve.json" "[m * 50] * 10"
run improve "${GATE[@]}" --baseline="$TMP/improve.json"
gate_check improve "gate: a 50x slower baseline is an IMPROVEMENT, exit 0" 0 '^Latency gate: IMPROVEMENT: '
# PASS on a machine whose speed varies from run to run: a limit no load can exceed.
baseline "$TMP/same.json" "s * 4"
run pass "${GATE[@]}" --baseline="$TMP/same.json" --max_regression_pct=100000
gate_check pass "gate: within the limit is a PASS, exit 0" 0 '^Latency gate: PASS: '
baseline "$TMP/noisy.json" "[1] * 10 + [10**9] * 10"
run noisy "${GATE[@]}" --baseline="$TMP/noisy.json"
gate_check noisy "gate: a bimodal baseline is NOISY, exit 5" 5 '^Latency gate: NOISY: .*contains the limit'
baseline "$TMP/few.json" "[m, m]"
run few "${GATE[@]}" --baseline="$TMP/few.json"
gate_check few "gate: two baseline samples are too few: NOISY, exit 5" 5 'too few samples \(2 baseline, 10 current'
baseline "$TMP/memory.json" "s * 4" "r['memory']['arena_bytes'] // 2"
run memory "${GATE[@]}" --baseline="$TMP/memory.json" --max_regression_pct=100000 --gate_memory
gate_check memory "gate: twice the baseline's arena is a memory REGRESSION, exit 1" 1 '^Memory gate \(arena_bytes\): REGRESSION: '
baseline "$TMP/memory_ok.json" "s * 4" "r['memory']['arena_bytes']"
run memory_ok "${GATE[@]}" --baseline="$TMP/memory_ok.json" --max_regression_pct=100000 --gate_memory \
  --max_memory_regression_pct=100000
gate_check memory_ok "gate: the same arena passes" 0 '^Memory gate \(arena_bytes\): PASS: '
echo "not json" >"$TMP/bad.json"
expect_exit 3 "gate: a baseline that is not a report" --graph="$TMP/m.tflite" "${FAST[@]}" --baseline="$TMP/bad.json"
expect_exit 3 "gate: a missing baseline" --graph="$TMP/m.tflite" "${FAST[@]}" --baseline="$TMP/none.json"
expect_exit 2 "gate: --gate_memory without --baseline" --graph="$TMP/m.tflite" --gate_memory
expect_exit 2 "gate: --allow_config_change without --baseline" --graph="$TMP/m.tflite" --allow_config_change
# Another configuration is refused before any run, one line naming what differs; or compared on request.
expect_exit 2 "gate: a one-thread baseline against --num_threads=2 is refused" "${GATE[@]}" --baseline="$TMP/same.json" \
  --num_threads=2
check "gate: the refusal names the field" grep -qxF "ERROR: --baseline=$TMP/same.json: the configuration differs from this run's: num_threads 1 -> 2 (--allow_config_change compares them anyway)" "$TMP/err.txt"
check "gate: refused before any run" test "$(grep -c '^Running benchmark' "$TMP/out.txt")" -eq 0
expect_exit 2 "gate: against --use_reference_kernels, refused" "${GATE[@]}" --baseline="$TMP/same.json" --use_reference_kernels
check "gate: names the kernel set" grep -qF "kernels optimized -> reference" "$TMP/err.txt"
"$MAKE" --output="$TMP/other.tflite" --input_size=32 >/dev/null
expect_exit 2 "gate: another model (sha256) is refused, not a warning" --graph="$TMP/other.tflite" --num_runs=10 \
  --min_secs=0 --baseline="$TMP/same.json"
check "gate: names the model and the input shape" grep -qE "model sha256 [0-9a-f]{12} -> [0-9a-f]{12}; input 'input' shape \[1,64,64,3\] -> \[1,32,32,3\]" "$TMP/err.txt"
run changed "${GATE[@]}" --baseline="$TMP/same.json" --num_threads=2 --max_regression_pct=100000 --allow_config_change
gate_check changed "gate: --allow_config_change compares, the verdict line says what changed" 0 \
  '^Gate verdict: PASS \(exit code 0\); configuration changed: num_threads 1 -> 2$'
expect_exit 2 "--num_threads=0 is refused" --graph="$TMP/m.tflite" --num_threads=0
expect_exit 2 "--num_threads=-2 is refused" --graph="$TMP/m.tflite" --num_threads=-2
run many_threads --graph="$TMP/m.tflite" "${FAST[@]}" --num_threads=4096
check "more threads than CPUs: one warning line" test "$(rc many_threads)" -eq 0 -a \
  "$(grep -c '^WARNING: --num_threads=4096 is more threads than the ' "$TMP/many_threads.err")" -eq 1

# --- Flags TFLite has that do nothing here: accepted, one warning naming each -------------------------
run inapplicable --graph="$TMP/m.tflite" "${FAST[@]}" --use_caching=true --use_hexagon=false --use_nnapi \
  --max_profiling_buffer_entries=2048
check "inapplicable flags are accepted" test "$(rc inapplicable)" -eq 0
for flag in use_caching use_hexagon use_nnapi max_profiling_buffer_entries; do
  check "a warning names --$flag" test "$(grep -c "^WARNING: --$flag " "$TMP/inapplicable.err")" -eq 1
done
run fp16 --graph="$TMP/m.tflite" "${FAST[@]}" --allow_fp16 --release_dynamic_tensors
check "--allow_fp16 warns, --release_dynamic_tensors (implemented) does not" test "$(rc fp16)" -eq 0 -a \
  "$(grep -c '^WARNING: --allow_fp16' "$TMP/fp16.err")" -eq 1 -a "$(grep -c '^WARNING: --release_dynamic' "$TMP/fp16.err")" -eq 0

# --- Bad flags: one line, documented exit codes --------------------------------------------------------
expect_exit 2 "unknown flag" --graph="$TMP/m.tflite" --num_rnus=3
check "unknown flag: the error names the nearest flag" \
  grep -qxF 'ERROR: unknown flag --num_rnus; did you mean --num_runs? (see --help)' "$TMP/err.txt"
expect_exit 2 "'--graph m.tflite' (TFLite's syntax is --graph=m.tflite)" --graph "$TMP/m.tflite"
check "'--graph m.tflite': the error says how" grep -qxF 'ERROR: --graph needs a value (--graph=...)' "$TMP/err.txt"
expect_exit 2 "a value outside the flag's range" --graph="$TMP/m.tflite" --max_secs=0
check "a value outside the range: the error names it" grep -qxF 'ERROR: --max_secs=0: must be greater than 0' "$TMP/err.txt"
expect_exit 2 "bad flag value" --graph="$TMP/m.tflite" --num_runs=many
expect_exit 2 "missing --graph"
expect_exit 3 "missing model file" --graph="$TMP/does_not_exist.tflite"
"$MAKE" --output="$TMP/big.tflite" --input_size=1024 >/dev/null
expect_exit 3 "--max_tensor_memory_mb: a model over the limit is refused" --graph="$TMP/big.tflite" "${FAST[@]}" --max_tensor_memory_mb=1
check "--max_tensor_memory_mb: the error says how much it asked for" grep -qE 'would need 12582912 bytes, more than the tensor memory limit of 1048576 bytes' "$TMP/err.txt"
expect_exit 0 "--max_tensor_memory_mb: under the limit it runs" --graph="$TMP/big.tflite" "${FAST[@]}" --max_tensor_memory_mb=512
expect_exit 2 "--max_tensor_memory_mb=0 is a usage error" --graph="$TMP/big.tflite" --max_tensor_memory_mb=0
head -c 100 "$TMP/m.tflite" >"$TMP/truncated.tflite"
expect_exit 3 "truncated model" --graph="$TMP/truncated.tflite"
expect_exit 2 "input name the model lacks" --graph="$TMP/m.tflite" --input_layer=nope --input_layer_shape=1,2
expect_exit 2 "bad shape (-1)" --graph="$TMP/m.tflite" --input_layer=input --input_layer_shape=1,-1,64,3
expect_exit 2 "shape of the wrong rank" --graph="$TMP/m.tflite" --input_layer=input --input_layer_shape=1,64
expect_exit 2 "names and shapes differ in number" --graph="$TMP/m.tflite" --input_layer=a,b --input_layer_shape=1,2
head -c 10 /dev/zero >"$TMP/ten.bin"
expect_exit 3 "input file of the wrong size" --graph="$TMP/m.tflite" --input_layer_value_files=input:"$TMP/ten.bin"
expect_exit 3 "missing input file" --graph="$TMP/m.tflite" --input_layer_value_files=input:"$TMP/none.bin"
expect_exit 2 "input file for an unknown input" --graph="$TMP/m.tflite" --input_layer_value_files=nope:"$TMP/ten.bin"
expect_exit 2 "bad value range" --graph="$TMP/m.tflite" --input_layer_value_range=input,5,1
expect_exit 2 "bad op profiling mode" --graph="$TMP/m.tflite" --enable_op_profiling --op_profiling_output_mode=xml
expect_exit 2 "output into a missing folder" --graph="$TMP/m.tflite" --report_json="$TMP/no/such/dir/r.json"
expect_exit 2 "a signature the model lacks" --graph="$TMP/m.tflite" --signature_to_run_for=serving_default
expect_exit 2 "malformed fd: graph" --graph=fd:3:0
expect_exit 2 "negative --num_runs" --graph="$TMP/m.tflite" --num_runs=-1

# --- The flag file (docs/tools.md): its flags as if given where --config stands, the command line's over them
printf '# a CI run\ngraph = %s\nnum_runs = 7\nwarmup_runs = 0\nmin_secs = 0\nwarmup_min_secs = "0"\nreport_json = %s\n' \
  "$TMP/m.tflite" "$TMP/config.json" >"$TMP/run.ini"
run config --config="$TMP/run.ini" --num_runs=3
check "--config: runs with the file's flags" test "$(rc config)" -eq 0 -a -s "$TMP/config.json"
check "--config: the command line overrides the file" grep -qxF 'Min num runs: [3]' "$TMP/config.out"
check "--config: the file's flags are logged as given" grep -qxF 'Min warmup runs: [0]' "$TMP/config.out"
check "--config: the report records the file's flags, not --config" python3 -c '
import json, sys
flags = json.load(open(sys.argv[1]))["configuration"]["flags"]
sys.exit(0 if flags.get("num_runs") == "3" and flags.get("warmup_runs") == "0" and "config" not in flags else 1)' \
  "$TMP/config.json"
printf 'graph = %s\ngrpah = x\n' "$TMP/m.tflite" >"$TMP/bad.ini"
expect_exit 2 "--config: an unknown name in the file" --config="$TMP/bad.ini"
check "--config: the error names the file, the line and the nearest flag" \
  grep -qxF "ERROR: $TMP/bad.ini:2: unknown flag --grpah; did you mean --graph?" "$TMP/err.txt"
expect_exit 2 "--config: a missing file" --config="$TMP/none.ini"

# --- A long run into a log: a heartbeat line every 10 s (stdout is a file here) ----------------------
run heartbeat --graph="$TMP/m.tflite" --num_runs=1 --min_secs=11 --warmup_runs=1 --warmup_min_secs=0
check "heartbeat: one 'regular runs: N in T s' line after 10 s" test "$(rc heartbeat)" -eq 0 -a \
  "$(grep -cE '^regular runs: [0-9]+ in 1[0-9]\.[0-9] s$' "$TMP/heartbeat.out")" -eq 1
check "no output file is left behind by a failed run" test ! -e "$TMP/no/such/dir/r.json"

# --- Against TFLite's own outputs and models (../shared) ---------------------------------------------
if shared_has -d golden; then
  S="$TOUCHSTONE_SHARED_DIR"
  G="$S/golden/misc/hello_world_float"
  run hw --graph="$S/models/misc/hello_world_float.tflite" \
    --input_layer_value_files="serving_default_dense_input::0:$G/input_0.bin" \
    --output_filepath="$TMP/hw.bin" --num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0 \
    --use_reference_kernels
  check "hello_world_float runs from value files ('::' escape)" test "$(rc hw)" -eq 0 -a -f "$TMP/hw.bin"
  check "hello_world_float: its one signature is used" grep -qxF "Using signature: serving_default" "$TMP/hw.out"
  # Float outputs: within 1e-5 of the largest magnitude, as the golden harness compares them.
  check "hello_world_float output matches TFLite's" python3 -c '
import struct, sys
a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read()
assert len(a) == len(b) and len(a) > 0
x = struct.unpack("%df" % (len(a) // 4), a); y = struct.unpack("%df" % (len(b) // 4), b)
m = max(abs(v) for v in y)
sys.exit(0 if all(abs(p - q) <= 1e-5 * m for p, q in zip(x, y)) else 1)' "$TMP/hw.bin" "$G/output_0.bin"

  MS="$S/models/litert_testdata/multi_signatures.bin"
  run ms_list --graph="$MS" --list_signatures
  check "--list_signatures lists both" test "$(grep -cE '^-> Signature Key: (add|sub)$' "$TMP/ms_list.out")" -eq 2
  run ms_none --graph="$MS" "${FAST[@]}"
  check "several signatures and none chosen: the primary subgraph, one warning" \
    test "$(rc ms_none)" -eq 0 -a "$(grep -c '^WARNING: the model has 2 signatures (add, sub)' "$TMP/ms_none.err")" -eq 1
  run ms_sub --graph="$MS" "${FAST[@]}" --signature_to_run_for=sub --enable_op_profiling
  check "--signature_to_run_for=sub runs the sub subgraph" test "$(rc ms_sub)" -eq 0 -a "$(grep -cE $'^\t +SUB\t' "$TMP/ms_sub.out")" -ge 1

  DYN="$S/models/litert_testdata/simple_add_dynamic_shape.tflite"
  run dyn --graph="$DYN" "${FAST[@]}" --input_layer=arg0,arg1 --input_layer_shape=3,128,4:3,128,4 \
    --output_filepath="$TMP/dyn.bin"
  check "dynamic input shapes: a batch of 3" test "$(rc dyn)" -eq 0 -a "$(stat -c %s "$TMP/dyn.bin" 2>/dev/null)" = "6144"

  run while --graph="$S/models/litert_testdata/multi_subgraphs_while.bin" "${FAST[@]}" --enable_op_profiling
  check "control flow: the body subgraph is profiled under its own heading" grep -qE '^Subgraph \(index: [12], name: .*\) profile:$' "$TMP/while.out"
  check "control flow: the WHILE node in the primary graph" grep -qE $'^\t +WHILE\t' "$TMP/while.out"

  run add_delegate --graph="$S/models/litert_testdata/add.bin" "${FAST[@]}" --use_sample_delegate --enable_op_profiling
  check "a delegate kernel is one node named after the delegate" test "$(grep -cE $'^\t +SampleDelegate\t' "$TMP/add_delegate.out")" -ge 2
  check "the Explicitly applied line is kept" grep -qxF "Explicitly applied SAMPLE delegate, and the model graph will be completely executed by the delegate." "$TMP/add_delegate.out"
  # The ops the delegate ran inside its kernel, as TFLite lists them: "Delegate/<op>:<index>" rows.
  check "delegate-internal ops: the Delegate internal table" grep -qxF "Delegate internal: " "$TMP/add_delegate.out"
  for op in 0 1; do
    check "delegate-internal ops: ADD node $op is a row" grep -qE $'^\t +ADD\t.*\tDelegate/ADD:'"$op"'$' "$TMP/add_delegate.out"
  done

  # --release_dynamic_tensors: the dynamic tensors' bytes left at the end drop; outputs are the same.
  DS="$S/models/litert_testdata/dynamic_shapes.bin"
  run keep_dyn --graph="$DS" "${FAST[@]}" --output_filepath="$TMP/keep_dyn.bin"
  run release_dyn --graph="$DS" "${FAST[@]}" --release_dynamic_tensors --output_filepath="$TMP/release_dyn.bin"
  outside() { sed -nE 's/^Memory, tensors allocated outside the arena .* \(([0-9]+) bytes\)$/\1/p' "$TMP/$1.out"; }
  check "--release_dynamic_tensors runs" test "$(rc release_dyn)" -eq 0 -a -n "$(outside release_dyn)"
  check "--release_dynamic_tensors: fewer bytes outside the arena ($(outside keep_dyn) -> $(outside release_dyn))" \
    test "$(outside release_dyn)" -lt "$(outside keep_dyn)"
  check "--release_dynamic_tensors: the same outputs" cmp -s "$TMP/keep_dyn.bin" "$TMP/release_dyn.bin"
  expect_exit 4 "--require_full_delegation without a delegate" --graph="$S/models/litert_testdata/add.bin" "${FAST[@]}" --require_full_delegation

  # An operator version TFLite 2.14.1 does not register: refused at load as TFLite does, or run on request.
  NEWER="$S/opsuite_sweep/ADD/float32_opversion6_unregistered/model.tflite"
  expect_exit 3 "an unregistered operator version is refused at load" --graph="$NEWER" "${FAST[@]}"
  check "the refusal names the op and its version" grep -qF "version 6 of ADD is not registered in TensorFlow Lite 2.14.1" "$TMP/err.txt"
  run newer --graph="$NEWER" "${FAST[@]}" --allow_newer_op_versions
  check "--allow_newer_op_versions runs it, with one warning line" test "$(rc newer)" -eq 0 -a \
    "$(grep -c '^WARNING: ' "$TMP/newer.err")" -eq 1

  # A sub-microsecond model run for seconds: millions of runs, a report under 1 MB with nanosecond
  # figures, and a gate that answers at once.
  HW=(--graph="$S/models/misc/hello_world_float.tflite" --min_secs=2)
  run hw_long "${HW[@]}" --report_json="$TMP/hw_long.json"
  check "hello_world for 2 s: the report stays under 1 MB" test "$(rc hw_long)" -eq 0 -a \
    "$(stat -c %s "$TMP/hw_long.json")" -lt 1000000
  check "hello_world: the report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/hw_long.json"
  check "hello_world: sub-microsecond figures, a bounded summary of every run" python3 - "$TMP/hw_long.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["latency"]["regular"]
assert r["count"] > 100000, r["count"]
assert 0 < r["mean_us"] < 5 and r["mean_us"] != int(r["mean_us"]), r["mean_us"]
assert r["samples"]["kept"] == 4096 and not r["samples"]["all_kept"] and not r["percentiles_exact"]
assert sum(r["histogram"]["count"]) == r["count"]
EOF
  START=$(date +%s%N)
  run hw_gate "${HW[@]}" --min_secs=0.5 --baseline="$TMP/hw_long.json" --max_regression_pct=100000
  END=$(date +%s%N)
  gate_check hw_gate "hello_world: the gate answers on a summary of millions of runs" 0 \
    '^Latency gate: PASS: .*, bootstrap over 4096 vs 4096 kept samples$'
  echo "note: hello_world gate run took $(( (END - START) / 1000000 )) ms including 0.5 s of runs"
else
  unavailable "CI=true but TOUCHSTONE_SHARED_DIR is not set" "skip: ../shared not available"
fi

finish "benchmark_model_test"
