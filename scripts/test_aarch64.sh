#!/usr/bin/env bash
# The arm64 pass (docs/arm64.md): builds Touchstone for arm64 with Debian's cross compiler and runs it
# under qemu-aarch64 on two CPU models, cortex-a53 (NEON without the dot-product instructions) and max
# (with them), so that both quantized NEON paths run:
#   - the optimized-vs-reference kernel tests (every NEON microkernel set the CPU model runs), the op
#     suite and the golden harness (every tier), as cc_tests under --run_under=qemu-aarch64;
#   - the static binaries (--config=aarch64_static): the hostile walk for benchmark_model (on max), one
#     end-to-end run of each tool against TensorFlow Lite's own figures (benchmark_model, inference_diff's verdict,
#     imagenet_eval's Top-k on ../shared/data/imagenet_sample, coco_eval's --debug_mode detections on
#     ../shared/data/coco), and scripts/adb_run over the stand-in adb (tests/cli/adb_run_test.sh).
# Prints one "ok:"/"FAIL:" line per check and a closing "aarch64: N passed, N failed"; the test logs
# and checks go to TOUCHSTONE_AARCH64_LOGS (default: a temporary folder) for scripts/test_summary.py.
# Exit code 0 when everything passed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --aarch64 || { echo "setup --aarch64 failed"; exit 1; }

source scripts/lib.sh
find_shared_dir 1 "the arm64 pass needs ../shared: skipped"
[ -n "$SHARED_DIR" ] || exit 0
LOGS="${TOUCHSTONE_AARCH64_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/touchstone-aarch64.XXXXXX")}"
mkdir -p "$LOGS"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/touchstone-aarch64-work.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
CHECKS="$LOGS/checks.log"
: >"$CHECKS"
QEMU=/usr/bin/qemu-aarch64
CPUS=(cortex-a53 max)
TEST_TARGETS=(//runtime/kernels/optimized:all //tests/opsuite:opsuite_test //tests/golden:golden_test)
TOOLS=(benchmark_model inference_diff imagenet_eval coco_eval)

REPO="$(pwd)"

pass() { echo "ok: $1" | tee -a "$CHECKS"; }
fail() { echo "FAIL: $1" | tee -a "$CHECKS"; }

# --- the static binaries ----------------------------------------------------------------------------------
bazel build --config=aarch64_static "${TOOLS[@]/#/\/\/tools\/}" || fail "the static arm64 build failed"
bin="$(bazel info --config=aarch64_static bazel-bin 2>/dev/null)/tools"
mkdir -p "$WORK/static"
for tool in "${TOOLS[@]}"; do
  cp "$bin/$tool/$tool" "$WORK/static/$tool" 2>/dev/null || { fail "no static $tool"; continue; }
  kind="$(file -b "$WORK/static/$tool")"
  if [[ "$kind" == *"ARM aarch64"*"statically linked"* ]]; then pass "$tool: $kind"; else fail "$tool is not a static arm64 executable: $kind"; fi
done

# static_checks <cpu>: the end-to-end runs and the hostile walk with the static binaries on one CPU model.
static_checks() {
  local cpu="$1"
  cd "$SHARED_DIR" || return
  # One wrapper per tool, so scripts that run "a binary" run the arm64 one on this CPU model.
  wrap="$WORK/$cpu"
  mkdir -p "$wrap"
  for tool in "${TOOLS[@]}"; do
    printf '#!/bin/sh\nexec %s -cpu %s %s "$@"\n' "$QEMU" "$cpu" "$WORK/static/$tool" >"$wrap/$tool"
    chmod +x "$wrap/$tool"
  done
  out="$WORK/$cpu.out"

  "$wrap/benchmark_model" --graph=models/classification/mobilenet_v1_0.25_128_quant.tflite --num_runs=5 \
    --warmup_runs=1 --min_secs=0 --warmup_min_secs=0 --report_json="$WORK/bm.json" >"$out" 2>&1
  if [ $? -eq 0 ] && grep -q '^Inference timings in us' "$out" && grep -q '"isa"' "$WORK/bm.json"; then
    pass "$cpu: benchmark_model on mobilenet_v1_0.25_128_quant ($(grep -o '"isa": *"[^"]*"' "$WORK/bm.json" | head -1))"
  else
    fail "$cpu: benchmark_model: $(tail -3 "$out")"
  fi

  # Integer outputs: the optimized kernels byte for byte the reference's.
  "$wrap/inference_diff" --model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite --num_runs=2 \
    --max_abs_error=0 >"$out" 2>&1
  if [ $? -eq 0 ] && grep -qx 'PASS' "$out"; then
    pass "$cpu: inference_diff, optimized against reference kernels, max_abs_error 0: PASS"
  else
    fail "$cpu: inference_diff: $(tail -3 "$out")"
  fi

  # TFLite 2.14.1's run_eval Top-k on the sample set (data/imagenet_sample/README.md), as printed.
  "$wrap/imagenet_eval" --model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite \
    --ground_truth_images_path=data/imagenet_sample/images \
    --ground_truth_labels=data/imagenet_sample/ground_truth_labels.txt \
    --model_output_labels=data/labels/imagenet_labels_1001.txt --num_images=0 --num_interpreter_threads=1 \
    >"$out" 2>&1
  got="$(grep -o '^Top-[0-9]* Accuracy: [0-9.]*' "$out" | sed 's/ Accuracy//')"
  want="$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["printed"]; print("\n".join("%s: %s" % (k, p[k]) for k in p))' \
    data/imagenet_sample/expected_mobilenet_v1_0.25_128_quant.json)"
  if [ -n "$got" ] && [ "$got" = "$want" ]; then
    pass "$cpu: imagenet_eval Top-1..10 exactly TFLite's ($(echo "$got" | head -1))"
  else
    fail "$cpu: imagenet_eval Top-k differ from TFLite's: $(echo $got) vs $(echo $want)"
  fi

  # TFLite's --debug_mode detections for the SSD model on data/coco (tests/coco/coco_ssd_test.sh).
  "$wrap/coco_eval" --model_file=models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite \
    --model_output_labels=data/coco/labelmap_91_with_background.txt --ground_truth_images_path=data/coco/val2017 \
    --ground_truth_json=data/coco/instances_shared.json --num_interpreter_threads=1 --debug_mode \
    --output_file_path="$WORK/coco.json" >"$out" 2>&1
  coco_rc=$?
  grep -E '^(Image: |Object \[|  Score: |  Class-ID: |  Bounding Box:|    Normalized |={54}$)' "$out" >"$WORK/debug.txt"
  if [ $coco_rc -eq 0 ] && diff -q data/coco/predictions_debug_ssd.txt "$WORK/debug.txt" >/dev/null; then
    pass "$cpu: coco_eval --debug_mode detections exactly TFLite's"
  else
    fail "$cpu: coco_eval detections differ from TFLite's (exit $coco_rc): $(tail -3 "$out")"
  fi

  # Every damaged model through benchmark_model (tests/cli/hostile_cli_test.sh, with the arm64 binary), on
  # the last CPU model only: a damaged file is refused while loading and preparing, before any microkernel
  # the CPU model chooses runs, and one walk under emulation takes minutes of CI's budget.
  [ "$cpu" = "${CPUS[-1]}" ] || return 0
  mkdir -p "$WORK/runfiles" && ln -sfn "$REPO" "$WORK/runfiles/touchstone"
  (cd "$WORK" && TEST_SRCDIR="$WORK/runfiles" TEST_TMPDIR="$WORK/hostile_tmp" HOSTILE_BIN="$wrap/benchmark_model" \
    TOUCHSTONE_SHARED_DIR="$SHARED_DIR" CI="${CI:-}" HOSTILE_TIMEOUT_S=120 \
    bash "$WORK/runfiles/touchstone/tests/cli/hostile_cli_test.sh" benchmark_model) >"$LOGS/hostile_$cpu.log" 2>&1
  hostile_rc=$?
  mkdir -p "$LOGS/$cpu/hostile_cli" && cp "$LOGS/hostile_$cpu.log" "$LOGS/$cpu/hostile_cli/test.log"
  if [ $hostile_rc -eq 0 ]; then
    pass "$cpu: hostile walk, $(grep '^hostile_cli ' "$LOGS/hostile_$cpu.log")"
  else
    fail "$cpu: hostile walk: $(grep -c '^FAIL' "$LOGS/hostile_$cpu.log") failures (see $LOGS/hostile_$cpu.log)"
    grep '^FAIL' "$LOGS/hostile_$cpu.log" | head -10
  fi
}

# The static checks run beside the cc_tests below (qemu runs one process on one core; the golden test
# alone keeps only one of the two busy).
( for cpu in "${CPUS[@]}"; do static_checks "$cpu"; done ) >"$LOGS/static_checks.log" 2>&1 &
static_pid=$!

# --- cc_tests under emulation ---------------------------------------------------------------------------
for cpu in "${CPUS[@]}"; do
  echo "aarch64 tests on qemu -cpu $cpu: ${TEST_TARGETS[*]}"
  bazel test --config=aarch64 --run_under="$QEMU" --test_env=QEMU_CPU="$cpu" \
    --test_env=TOUCHSTONE_SHARED_DIR="$SHARED_DIR" --test_env=CI="${CI:-}" --test_output=errors \
    "${TEST_TARGETS[@]}" || fail "bazel test --config=aarch64 on -cpu $cpu"
  # Both CPU models write the same bazel-testlogs folder: keep each one's logs.
  testlogs="$(bazel info --config=aarch64 bazel-testlogs 2>/dev/null)"
  rm -rf "${LOGS:?}/$cpu/bazel" && mkdir -p "$LOGS/$cpu/bazel" && cp -rL "$testlogs/." "$LOGS/$cpu/bazel/" ||
    fail "cannot copy the test logs of -cpu $cpu"
done
wait "$static_pid"
cat "$LOGS/static_checks.log"

# scripts/adb_run end to end with the static binaries, which the stand-in adb runs under qemu-aarch64.
TOUCHSTONE_SHARED_DIR="$SHARED_DIR" TEST_TMPDIR="$WORK/adb_tmp" bash tests/cli/adb_run_test.sh \
  --binary-dir="$WORK/static" >"$LOGS/adb_run.log" 2>&1
if [ $? -eq 0 ]; then
  pass "adb_run over the stand-in adb with the static binaries: $(tail -1 "$LOGS/adb_run.log")"
else
  fail "adb_run with the static binaries: $(grep '^FAIL' "$LOGS/adb_run.log" | head -5)"
fi

python3 scripts/test_summary.py --only_aarch64 --aarch64_logs="$LOGS" "${CI:-}"
