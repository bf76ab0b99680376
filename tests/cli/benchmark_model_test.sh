#!/usr/bin/env bash
# End to end: benchmark_model's lines, exit codes, and --output_filepath against TFLite's own
# outputs for a golden model.
set -uo pipefail
BIN="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"
MAKE="$TEST_SRCDIR/touchstone/tools/make_model/make_model"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check <description> <command...>: the command must succeed
  local what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
expect_exit() {  # expect_exit <code> <description> <args...>
  local code="$1" what="$2"; shift 2
  "$BIN" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt"
  local got=$?
  if [ "$got" -eq "$code" ] && [ "$(wc -l <"$TMP/err.txt")" -le 1 ]; then
    echo "ok: $what (exit $got: $(cat "$TMP/err.txt"))"
  else
    echo "FAIL: $what: exit $got, expected $code; stderr: $(cat "$TMP/err.txt")"
    failures=$((failures + 1))
  fi
}

# A model Touchstone makes itself: TFLite's lines appear, in order.
"$MAKE" --output="$TMP/m.tflite" --input_size=64 >/dev/null
"$BIN" --graph="$TMP/m.tflite" --num_runs=3 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0 >"$TMP/run.txt" 2>&1
check "runs the made model" test $? -eq 0
for line in "Loaded model $TMP/m.tflite" "The input model file size (MB): " "Initialized session in " \
            "Running benchmark for at least 3 iterations and at least 0 seconds but terminate if exceeding 150 seconds." \
            "Inference timings in us: Init: "; do
  check "prints '$line'" grep -qF "$line" "$TMP/run.txt"
done
check "prints the statistics line" grep -qE '^count=3 first=[0-9]+ curr=[0-9]+ min=[0-9]+ max=[0-9]+ avg=[0-9.e+]+ std=[0-9]+ p5=[0-9]+ median=[0-9]+ p95=[0-9]+$|^count=3 curr=[0-9]+ \(all same\)$' "$TMP/run.txt"

# Usage and input errors: one line, documented exit codes.
expect_exit 2 "unknown flag" --graph="$TMP/m.tflite" --num_rnus=3
expect_exit 2 "bad flag value" --graph="$TMP/m.tflite" --num_runs=many
expect_exit 2 "missing --graph"
expect_exit 3 "missing model file" --graph="$TMP/does_not_exist.tflite"
head -c 100 "$TMP/m.tflite" >"$TMP/truncated.tflite"
expect_exit 3 "truncated model" --graph="$TMP/truncated.tflite"
expect_exit 2 "input name the model lacks" --graph="$TMP/m.tflite" --input_layer=nope --input_layer_shape=1,2

# Against TFLite's own outputs (../shared/golden), through --input_layer_value_files/--output_filepath.
if [ -n "${TOUCHSTONE_SHARED_DIR:-}" ] && [ -d "$TOUCHSTONE_SHARED_DIR/golden" ]; then
  G="$TOUCHSTONE_SHARED_DIR/golden/misc/hello_world_float"
  "$BIN" --graph="$TOUCHSTONE_SHARED_DIR/models/misc/hello_world_float.tflite" \
    --input_layer_value_files="serving_default_dense_input::0:$G/input_0.bin" \
    --output_filepath="$TMP/hw.bin" --num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0 \
    --use_reference_kernels >/dev/null 2>&1
  check "hello_world_float runs from value files" test -f "$TMP/hw.bin"
  # Float outputs: within 1e-5 of the largest magnitude, as the golden harness compares them.
  check "hello_world_float output matches TFLite's" python3 -c '
import struct, sys
a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read()
assert len(a) == len(b) and len(a) > 0
x = struct.unpack("%df" % (len(a) // 4), a); y = struct.unpack("%df" % (len(b) // 4), b)
m = max(abs(v) for v in y)
sys.exit(0 if all(abs(p - q) <= 1e-5 * m for p, q in zip(x, y)) else 1)' "$TMP/hw.bin" "$G/output_0.bin"
elif [ "${CI:-}" = "true" ]; then
  echo "FAIL: CI=true but TOUCHSTONE_SHARED_DIR is not set"; failures=$((failures + 1))
else
  echo "skip: ../shared not available"
fi

echo "benchmark_model_test: $failures failures"
[ "$failures" -eq 0 ]
