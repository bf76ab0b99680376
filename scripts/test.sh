#!/usr/bin/env bash
# Runs every test: installs missing packages, then `bazel test //...` with ../shared passed in, then
# prints how many golden / op-suite / hostile / model cases ran and a closing "N passed, N failed"
# line counted from the test cases in bazel-testlogs. Exit code: 0 when everything passed.
# Extra arguments go to bazel test (e.g. scripts/test.sh //runtime/...).
#
# Two more passes (docs/reliability.md), on by default under CI=true:
#   TOUCHSTONE_ASAN=1          the sanitizer pass: `bazel test --config=asan` (clang-14, ASan+UBSan) over
#                              TOUCHSTONE_ASAN_TARGETS (default: the subset below), in its own output base
#                              (TOUCHSTONE_CLANG_OUTPUT_BASE, default ~/.cache/touchstone-clang/<workspace>)
#   TOUCHSTONE_FUZZ_SECONDS=N  scripts/fuzz.sh for N seconds per target (CI: 20), same output base
#   TOUCHSTONE_AARCH64=1       the arm64 pass: scripts/test_aarch64.sh (cross build, tests under
#                              qemu-aarch64 on two CPU models; docs/arm64.md)
# They add to the closing line: the sanitizer run's test cases, one case per fuzz target, and the arm64
# pass's test cases and checks.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

source scripts/lib.sh
find_shared_dir 1 "tests that need real models and data will skip"

TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(//...); fi

bazel test "${TARGETS[@]}" \
  --test_env=TOUCHSTONE_SHARED_DIR="$SHARED_DIR" \
  --test_env=CI="${CI:-}" \
  --test_output=errors
BAZEL_RC=$?

# Read the logs through `bazel info`, not the bazel-testlogs symlink, which another Bazel output base
# (e.g. a sanitizer build) may have repointed.
TESTLOGS="$(bazel info bazel-testlogs 2>/dev/null)"
SUMMARY_ARGS=()

# The sanitizer subset that fits CI's time budget on 2 cores (docs/reliability.md): the unit tests, the
# golden, op-suite and op-sweep tests, the shared models (walked and cross-checked) and hostile corpus,
# every binary over the hostile corpus, and the fuzz targets' regression inputs; not the long CLI,
# ImageNet, COCO, XNNPACK op-suite and GPU runs.
DEFAULT_ASAN_TARGETS=(//runtime/... //evaluation/... //datasets/... //tools/... //delegates/...
  //tests/golden:golden_test //tests/opsuite:opsuite_test //tests/opsuite:opsuite_sweep_test
  //tests/models:models_walk_test //tests/models:model_consistency_test //tests/fuzz/...
  //tests/cli:hostile_cli_benchmark_model_test //tests/cli:hostile_cli_inference_diff_test
  //tests/cli:hostile_cli_imagenet_eval_test //tests/cli:hostile_cli_coco_eval_test
  -//delegates/xnnpack:xnnpack_opsuite_test)
DEFAULT_ASAN_SUITES="golden,hostile,hostile_cli,model_consistency,models,opsuite,opsuite_sweep"
ASAN="${TOUCHSTONE_ASAN:-}"
FUZZ_SECONDS="${TOUCHSTONE_FUZZ_SECONDS:-}"
if [ "${CI:-}" = "true" ]; then
  ASAN="${ASAN:-1}"
  FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
  AARCH64="${TOUCHSTONE_AARCH64:-1}"
fi
AARCH64="${AARCH64:-${TOUCHSTONE_AARCH64:-}}"
WORKSPACE_HASH="$(pwd | md5sum | cut -c1-12)"  # two clones never share a clang output base or fuzz corpus
CLANG_BASE="${TOUCHSTONE_CLANG_OUTPUT_BASE:-$HOME/.cache/touchstone-clang/$WORKSPACE_HASH}"
CLANG_BAZEL=(env CC=clang-14 bazel --output_base="$CLANG_BASE")
ASAN_RC=0
if [ "$ASAN" = "1" ]; then
  if [ -n "${TOUCHSTONE_ASAN_TARGETS:-}" ]; then
    read -r -a ASAN_TARGETS <<<"$TOUCHSTONE_ASAN_TARGETS"
    ASAN_SUITES=""
  else
    ASAN_TARGETS=("${DEFAULT_ASAN_TARGETS[@]}")
    ASAN_SUITES="$DEFAULT_ASAN_SUITES"
  fi
  echo "sanitizer pass (--config=asan, output base $CLANG_BASE): ${ASAN_TARGETS[*]}"
  # `--` lets the subset exclude targets with a leading '-'.
  "${CLANG_BAZEL[@]}" test --config=asan \
    --test_env=TOUCHSTONE_SHARED_DIR="$SHARED_DIR" \
    --test_env=CI="${CI:-}" \
    --test_output=errors -- "${ASAN_TARGETS[@]}"
  ASAN_RC=$?
  ASAN_LOGS="$("${CLANG_BAZEL[@]}" info --config=asan bazel-testlogs 2>/dev/null)"
  if [ -n "$ASAN_LOGS" ]; then
    SUMMARY_ARGS+=(--sanitizer_logs="$ASAN_LOGS" --sanitizer_suites="$ASAN_SUITES")
  else
    echo "ERROR: cannot find the sanitizer run's test logs"
    ASAN_RC=1
  fi
fi

FUZZ_RC=0
if [ -n "$FUZZ_SECONDS" ] && [ "$FUZZ_SECONDS" != "0" ]; then
  FUZZ_LOG="$(mktemp "${TMPDIR:-/tmp}/touchstone-fuzz-log.XXXXXX")"
  FUZZ_SKIP_SETUP=1 FUZZ_OUTPUT_BASE="$CLANG_BASE" TOUCHSTONE_SHARED_DIR="$SHARED_DIR" \
    FUZZ_WORK="${FUZZ_WORK:-${TMPDIR:-/tmp}/touchstone-fuzz-$WORKSPACE_HASH}" \
    bash scripts/fuzz.sh "$FUZZ_SECONDS" 2>&1 | tee "$FUZZ_LOG"
  FUZZ_RC=${PIPESTATUS[0]}
  SUMMARY_ARGS+=(--fuzz_log="$FUZZ_LOG")
fi
if [ "$ASAN" = "1" ] || [ -n "${FUZZ_LOG:-}" ]; then
  if [ "${CI:-}" = "true" ]; then "${CLANG_BAZEL[@]}" shutdown >/dev/null 2>&1 || true; fi
fi

AARCH64_RC=0
if [ "$AARCH64" = "1" ]; then
  AARCH64_LOGS="$(mktemp -d "${TMPDIR:-/tmp}/touchstone-aarch64-logs.XXXXXX")"
  TOUCHSTONE_SHARED_DIR="$SHARED_DIR" TOUCHSTONE_AARCH64_LOGS="$AARCH64_LOGS" bash scripts/test_aarch64.sh
  AARCH64_RC=$?
  SUMMARY_ARGS+=(--aarch64_logs="$AARCH64_LOGS")
fi

python3 scripts/test_summary.py "${TESTLOGS:-bazel-testlogs}" "${CI:-}" "${SUMMARY_ARGS[@]}"
SUMMARY_RC=$?
[ -z "${FUZZ_LOG:-}" ] || rm -f "$FUZZ_LOG"
[ -z "${AARCH64_LOGS:-}" ] || rm -rf "$AARCH64_LOGS"

if [ $BAZEL_RC -ne 0 ] || [ $ASAN_RC -ne 0 ] || [ $FUZZ_RC -ne 0 ] || [ $AARCH64_RC -ne 0 ] || [ $SUMMARY_RC -ne 0 ]; then
  exit 1
fi
exit 0
