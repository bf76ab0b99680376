#!/usr/bin/env bash
# Log lines and --log_level (docs/logging.md): every tool lists the flag; a bad value is a usage error;
# warning hides the INFO lines, error the WARNING lines too, off every log line but the failure's ERROR
# line; the result lines on stdout stay the same; the level reaches the child of
# --delegate_isolation=process and, with ../shared, a delegate plugin's own INFO line. Also TFLite's
# lines whose figures are deterministic, byte for byte: their numbers in iostream's default form.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$R/tools/benchmark_model/benchmark_model"
PLUGIN="$R/delegates/sample/libsample_delegate_plugin.so"
FAST=(--num_runs=2 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0)

# --- Every tool takes --log_level -------------------------------------------------------------------
for tool in benchmark_model inference_diff imagenet_eval coco_eval delegate_qualify report_view report_diff \
            merge_reports make_model make_eval_set host_probe; do
  "$R/tools/$tool/$tool" --help >"$TMP/help.txt" 2>&1
  check "$tool --help lists --log_level=\"info\"" grep -qF -- '--log_level="info"' "$TMP/help.txt"
done
expect_failure 2 "an unknown level" \
  "ERROR: --log_level=verbose: must be one of debug, info, warning, error, off" --log_level=verbose
check "the usage error names the choices exactly" grep -qxF \
  "ERROR: --log_level=verbose: must be one of debug, info, warning, error, off" "$TMP/failure.err"

# --- What each level prints ---------------------------------------------------------------------------
"$MAKE" --output="$TMP/m.tflite" --input_size=32 >/dev/null
# XNNPACK (on by default) prints TFLite's INFO lines; --allow_fp16 a WARNING line.
for level in default debug info warning error off; do
  flags=(--graph="$TMP/m.tflite" "${FAST[@]}" --allow_fp16=true)
  [ "$level" = default ] || flags+=(--log_level="$level")
  run "$level" "${flags[@]}"
  check "--log_level=$level: runs" test "$(rc "$level")" -eq 0
done
for level in default debug info; do
  check "--log_level=$level: TFLite's INFO line" grep -qxF "INFO: Created TensorFlow Lite XNNPACK delegate for CPU." \
    "$TMP/$level.err"
  check "--log_level=$level: the WARNING line" grep -qE '^WARNING: --allow_fp16: ' "$TMP/$level.err"
done
check "--log_level=warning: no INFO line" test "$(grep -c '^INFO: ' "$TMP/warning.err")" -eq 0
check "--log_level=warning: the WARNING line" grep -qE '^WARNING: --allow_fp16: ' "$TMP/warning.err"
for level in error off; do
  check "--log_level=$level: nothing on stderr" test ! -s "$TMP/$level.err"
done
check "every log line is one of TFLite's prefixed lines" \
  test "$(grep -cvE '^(INFO|WARNING|ERROR): ' "$TMP/default.err")" -eq 0
# The result lines do not depend on the level (their figures do, run to run: digits left out).
for level in warning off; do
  check "--log_level=$level: the same result lines on stdout" \
    cmp -s <(sed 's/[0-9.e+-]//g' "$TMP/default.out") <(sed 's/[0-9.e+-]//g' "$TMP/$level.out")
done
# The failure line explains the exit code: printed at every level.
for level in error off; do
  run "fail_$level" --graph="$TMP/missing.tflite" --log_level="$level"
  check "--log_level=$level: a failure still prints its one ERROR line (exit 3)" \
    test "$(rc "fail_$level")" -eq 3 -a "$(grep -c '^ERROR: ' "$TMP/fail_$level.err")" -eq 1 \
    -a "$(wc -l <"$TMP/fail_$level.err")" -eq 1
done
# The child process of --delegate_isolation=process logs at the parent's level.
run isolated --graph="$TMP/m.tflite" "${FAST[@]}" --delegate_isolation=process --log_level=warning
check "isolated child: runs" test "$(rc isolated)" -eq 0
check "isolated child: no INFO line at --log_level=warning" test "$(grep -c '^INFO: ' "$TMP/isolated.err")" -eq 0
run isolated_info --graph="$TMP/m.tflite" "${FAST[@]}" --delegate_isolation=process
check "isolated child: its INFO lines by default" grep -qxF "INFO: Created TensorFlow Lite XNNPACK delegate for CPU." \
  "$TMP/isolated_info.err"
# stderr and stdout into one file keep the order the run wrote them: XNNPACK's line comes after the
# "Loaded model" line and before the results.
"$BIN" --graph="$TMP/m.tflite" "${FAST[@]}" >"$TMP/both.txt" 2>&1
check "2>&1: the log lines in the run's order" python3 - "$TMP/both.txt" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
loaded = next(i for i, l in enumerate(lines) if l.startswith("Loaded model "))
created = lines.index("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.")
timings = next(i for i, l in enumerate(lines) if l.startswith("Inference timings in us: "))
assert loaded < created < timings, (loaded, created, timings)
EOF

# --- TFLite's lines with deterministic figures, byte for byte -----------------------------------------
run pinned --graph="$TMP/m.tflite" --use_xnnpack=false --num_runs=2 --min_secs=0.25 --max_secs=12.5 \
  --warmup_runs=1 --warmup_min_secs=0.125 --run_delay=0.001 --verbose
check "pinned: runs" test "$(rc pinned)" -eq 0
size_mb="$(python3 -c 'import os, sys; print("%g" % (os.path.getsize(sys.argv[1]) / 1e6))' "$TMP/m.tflite")"
for line in "The input model file size (MB): $size_mb" "Min runs duration (seconds): [0.25]" \
            "Max runs duration (seconds): [12.5]" "Inter-run delay (seconds): [0.001]" \
            "Min warmup runs duration (seconds): [0.125]" "Number of prorated runs per second: [-1]" \
            "Max regression (%): [5]" \
            "Running benchmark for at least 1 iterations and at least 0.125 seconds but terminate if exceeding 12.5 seconds." \
            "Running benchmark for at least 2 iterations and at least 0.25 seconds but terminate if exceeding 12.5 seconds."; do
  check "pinned: '$line'" grep -qxF "$line" "$TMP/pinned.out"
done
check "pinned: the averages with six significant digits at most" python3 - "$TMP/pinned.out" <<'EOF'
import re, sys
out = open(sys.argv[1]).read()
m = re.search(r"^Inference timings in us: Init: \d+, First inference: \d+, Warmup \(avg\): (\S+), Inference \(avg\): (\S+)$", out, re.M)
assert m, "no timings line"
for figure in m.groups():
    assert figure == "%g" % float(figure), figure
EOF

# --- A delegate plugin's own copy of the logging code follows the tool's level -------------------------
require_golden log_level_test
mapfile -t ARGS < <(golden_model_args litert_testdata/simple_add_dynamic_shape)
PLUGIN_FLAGS=(--use_xnnpack=false --external_delegate_path="$PLUGIN" "${FAST[@]}")
run plugin_info "${ARGS[@]}" "${PLUGIN_FLAGS[@]}"
check "plugin: its INFO line by default" grep -qE '^INFO: SampleDelegate delegate: [0-9]+ nodes delegated' "$TMP/plugin_info.err"
run plugin_warning "${ARGS[@]}" "${PLUGIN_FLAGS[@]}" --log_level=warning
check "plugin: runs at --log_level=warning" test "$(rc plugin_warning)" -eq 0
check "plugin: no INFO line from the plugin either" test "$(grep -c '^INFO: ' "$TMP/plugin_warning.err")" -eq 0
finish log_level_test
