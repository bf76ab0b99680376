#!/usr/bin/env bash
# Every damaged model in ../shared/hostile through one binary (the first argument: benchmark_model,
# inference_diff, imagenet_eval or coco_eval; the evaluators get a one-image set made here, so they reach
# the model). Each run must end, within HOSTILE_TIMEOUT_S seconds (default 60), either with a result
# (exit 0, or 1 where a check the tool makes on the result failed) or with exactly one line
# "ERROR: ..." on stderr that names the file and a documented exit code (2 to 5, docs/exit-codes.md).
# A signal, a timeout, another exit code, a missing or multi-line error, a sanitizer report: a failure.
# Prints one line per file, the counts, and "TOUCHSTONE_CASES hostile_cli ..." for scripts/test_summary.py.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
TOOL="${1:?usage: hostile_cli_test.sh <binary name>}"
# HOSTILE_BIN runs another build of the tool (scripts/test_aarch64.sh: an arm64 one under qemu-aarch64).
BIN="${HOSTILE_BIN:-$TEST_SRCDIR/touchstone/tools/$TOOL/$TOOL}"
LIMIT_S="${HOSTILE_TIMEOUT_S:-60}"
require_shared -d hostile "SKIP: TOUCHSTONE_SHARED_DIR not set; the hostile corpus lives in ../shared/hostile" \
  "CI=true but TOUCHSTONE_SHARED_DIR/hostile is missing"
SHARED="$S"

# One 32x32 BMP with its label and ground truth: enough for the evaluators to load the model.
mkdir -p "$TMP/images"
python3 - "$TMP" <<'PY'
import json, struct, sys
root = sys.argv[1]
w = h = 32
row = (w * 3 + 3) // 4 * 4
data = bytes((x * 7 + y * 3) % 256 for y in range(h) for x in range(row))
header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 2835, 2835, 0, 0)
open(root + "/images/a.bmp", "wb").write(header + info + data)
open(root + "/labels.txt", "w").write("class_0\n")
open(root + "/model_labels.txt", "w").write("".join("class_%d\n" % i for i in range(1001)))
json.dump({"images": [{"id": 1, "file_name": "a.bmp", "width": w, "height": h}],
           "annotations": [{"id": 10, "image_id": 1, "category_id": 1, "bbox": [4, 4, 20, 20], "area": 400,
                            "iscrowd": 0}],
           "categories": [{"id": 1, "name": "person"}]}, open(root + "/gt.json", "w"))
open(root + "/coco_labels.txt", "w").write("???\nperson\n")
PY

MODEL_FLAG=--model_file
case "$TOOL" in
  benchmark_model) MODEL_FLAG=--graph; ARGS=(--num_runs=1 --warmup_runs=0 --warmup_min_secs=0 --min_secs=0 --max_secs=10) ;;
  inference_diff) ARGS=(--num_runs=1) ;;
  imagenet_eval) ARGS=(--ground_truth_images_path="$TMP/images" --ground_truth_labels="$TMP/labels.txt"
                       --model_output_labels="$TMP/model_labels.txt" --num_preprocessing_threads=0) ;;
  coco_eval) ARGS=(--ground_truth_images_path="$TMP/images" --ground_truth_json="$TMP/gt.json"
                   --model_output_labels="$TMP/coco_labels.txt") ;;
  *) echo "FAIL: unknown binary $TOOL"; exit 1 ;;
esac

# The sanitizer config preloads Mesa's lavapipe for the GPU tests (.bazelrc); these runs never open
# Vulkan, and loading it costs about half a second per run under ASan.
unset LD_PRELOAD

files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$SHARED/hostile" -maxdepth 1 -type f -name '*.tflite' | sort)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no .tflite files in $SHARED/hostile"; exit 1; }
# Bazel's test sharding (shard_count in BUILD.bazel): this shard takes every TOTAL-th file. The shards'
# TOUCHSTONE_CASES lines add up in scripts/test_summary.py.
if [ -n "${TEST_TOTAL_SHARDS:-}" ] && [ "${TEST_TOTAL_SHARDS}" -gt 1 ]; then
  [ -z "${TEST_SHARD_STATUS_FILE:-}" ] || touch "$TEST_SHARD_STATUS_FILE"
  shard=()
  for i in "${!files[@]}"; do
    if [ $((i % TEST_TOTAL_SHARDS)) -eq "${TEST_SHARD_INDEX:-0}" ]; then shard+=("${files[$i]}"); fi
  done
  files=("${shard[@]}")
  echo "shard ${TEST_SHARD_INDEX:-0} of $TEST_TOTAL_SHARDS: ${#files[@]} files"
fi

declare -A by_code=()
for f in "${files[@]}"; do
  name="$(basename "$f")"
  timeout -s KILL "$LIMIT_S" "$BIN" "$MODEL_FLAG=$f" "${ARGS[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"
  rc=$?
  errors="$(grep -c '^ERROR: ' "$TMP/err.txt")"
  verdict=""
  if [ $rc -eq 137 ]; then
    verdict="FAIL: killed after ${LIMIT_S}s (hang)"
  elif [ $rc -gt 128 ]; then
    verdict="FAIL: signal $((rc - 128))"
  elif grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: (Address|Undefined|Leak)Sanitizer' "$TMP/err.txt"; then
    verdict="FAIL: sanitizer report (exit $rc)"
  elif [ $rc -eq 0 ] || [ $rc -eq 1 ]; then
    verdict="ok: result (exit $rc)"
  elif [ $rc -ge 2 ] && [ $rc -le 5 ]; then
    if [ "$errors" -ne 1 ]; then
      verdict="FAIL: exit $rc with $errors ERROR lines"
    elif ! grep '^ERROR: ' "$TMP/err.txt" | grep -qF -- "$name"; then
      verdict="FAIL: exit $rc, the error does not name the file"
    else
      verdict="ok: refused (exit $rc)"
    fi
  else
    verdict="FAIL: undocumented exit code $rc"
  fi
  by_code[$rc]=$(( ${by_code[$rc]:-0} + 1 ))
  line="$(grep -m1 '^ERROR: ' "$TMP/err.txt" | cut -c1-200)"
  echo "$verdict $name ${line:+| $line}"
  if [ "${verdict:0:4}" = "FAIL" ]; then
    failures=$((failures + 1))
    sed 's/^/    /' "$TMP/err.txt" | head -30
  fi
done

counts=""
for code in $(printf '%s\n' "${!by_code[@]}" | sort -n); do counts="$counts exit $code: ${by_code[$code]},"; done
echo "hostile_cli $TOOL${TEST_TOTAL_SHARDS:+ (shard ${TEST_SHARD_INDEX:-0} of $TEST_TOTAL_SHARDS)}: ${#files[@]} files,${counts%,}; $failures failed"
echo "TOUCHSTONE_CASES hostile_cli ran=${#files[@]} of=${#files[@]}"
[ $failures -eq 0 ]
