#!/usr/bin/env bash
# coco_eval runs the SSD MobileNet of ../shared/models/detection over the 7 images of
# ../shared/data/coco/val2017 with instances_shared.json: its TFLite-mode lines must be exactly those
# TensorFlow Lite 2.14.1's coco_object_detection_run_eval printed (expected_tflite_ssd.json), its
# --debug_mode detections exactly TFLite's (predictions_debug_ssd.txt), and the 12 COCO metrics must be
# printed (and equal the JSON report's). Pipelined (2 threads) and inline preprocessing both; and TFLite's
# own command line (with its binary --ground_truth_proto) prints the same lines.
set -uo pipefail
BIN="$TEST_SRCDIR/touchstone/tools/coco_eval/coco_eval"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
check() {  # check <description> <command...>
  local what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

if [ -z "${TOUCHSTONE_SHARED_DIR:-}" ] || [ ! -d "$TOUCHSTONE_SHARED_DIR/data/coco" ]; then
  if [ "${CI:-}" = "true" ]; then echo "FAIL: CI=true but TOUCHSTONE_SHARED_DIR is not set"; exit 1; fi
  echo "skip: ../shared not available (set TOUCHSTONE_SHARED_DIR)"
  exit 0
fi
S="$TOUCHSTONE_SHARED_DIR"
EXPECTED="$S/data/coco/expected_tflite_ssd.json"
# TFLite's log lines without the "INFO: " prefix.
python3 -c 'import json, sys
for line in json.load(open(sys.argv[1]))["log_lines"]: print(line[len("INFO: "):] if line.startswith("INFO: ") else line)' \
  "$EXPECTED" >"$TMP/expected_lines.txt"
check "expected lines read" test "$(wc -l <"$TMP/expected_lines.txt")" -eq 12

for threads in 2 0; do
  (cd "$S" && "$BIN" --model_file=models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite \
     --model_output_labels=data/coco/labelmap_91_with_background.txt --ground_truth_images_path=data/coco/val2017 \
     --ground_truth_json=data/coco/instances_shared.json --num_interpreter_threads=1 \
     --num_preprocessing_threads=$threads --debug_mode --output_file_path="$TMP/report_$threads.json") \
    >"$TMP/out_$threads.txt" 2>"$TMP/err_$threads.txt"
  rc=$?
  check "runs ($threads preprocessing threads; exit $rc; $(tail -1 "$TMP/err_$threads.txt"))" test $rc -eq 0
  # TFLite's lines, in TFLite's order: Num evaluation runs, then the ten APs and the mAP.
  grep -E '^(Num evaluation runs|Average Precision \[IOU|Overall mAP)' "$TMP/out_$threads.txt" >"$TMP/ours_$threads.txt"
  check "TFLite's AP lines exactly ($threads threads)" diff "$TMP/expected_lines.txt" "$TMP/ours_$threads.txt"
  # The per-image detections, as TFLite's --debug_mode prints them.
  grep -E '^(Image: |Object \[|  Score: |  Class-ID: |  Bounding Box:|    Normalized |={54}$)' "$TMP/out_$threads.txt" >"$TMP/debug_$threads.txt"
  check "TFLite's --debug_mode detections exactly ($threads threads)" diff "$S/data/coco/predictions_debug_ssd.txt" "$TMP/debug_$threads.txt"
  check "12 COCO metric lines" test "$(grep -cE '^ Average (Precision|Recall) +\((AP|AR)\) @\[ IoU=0\.(50|75)(:0\.95)? +\| area= *(all|small|medium|large) \| maxDets= *[0-9]+ \] = [0-9]\.[0-9]{3}$' "$TMP/out_$threads.txt")" -eq 12
  check "COCO AP line" grep -qF ' Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = ' "$TMP/out_$threads.txt"
  check "report holds the printed numbers" python3 - "$TMP/report_$threads.json" "$TMP/out_$threads.txt" "$EXPECTED" <<'PY'
import json, sys
report = json.load(open(sys.argv[1])); out = open(sys.argv[2]).read(); expected = json.load(open(sys.argv[3]))
assert report["num_evaluation_runs"] == 7 and report["num_images"] == 7 and report["num_detections"] == 70, report
aps = report["tflite"]["average_precision"]
want = expected["proto_average_precision_float32"]
assert len(aps) == 10
for a, w in zip(aps, want):
    assert abs(a["iou_threshold"] - w["iou_threshold"]) < 1e-6 and abs(a["average_precision"] - w["average_precision"]) < 1e-8, (a, w)
assert abs(report["tflite"]["overall_map"] - expected["proto_overall_mean_average_precision_float32"]) < 1e-8
assert " = %0.3f" % report["coco"]["AP"] in out
assert report["details"]["output_tensors"]["found_by"] == "names"
PY
done
# TFLite's own command line, as expected_tflite_ssd.json records it (its binary proto ground truth).
COMMAND="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command"])' "$EXPECTED")"
ARGS="${COMMAND#coco_object_detection_run_eval }"
ARGS="${ARGS//<out.pb>/$TMP/out.pb}"
(cd "$S" && eval "\"\$BIN\" $ARGS") >"$TMP/tflite_command.txt" 2>"$TMP/tflite_command_err.txt"
check "TFLite's own command runs (exit $?; $(tail -1 "$TMP/tflite_command_err.txt"))" grep -q "Overall mAP" "$TMP/tflite_command.txt"
grep -E '^(Num evaluation runs|Average Precision \[IOU|Overall mAP)' "$TMP/tflite_command.txt" >"$TMP/tflite_command_lines.txt"
check "TFLite's own command (--ground_truth_proto): TFLite's lines exactly" diff "$TMP/expected_lines.txt" "$TMP/tflite_command_lines.txt"

check "same report with and without the pipeline" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["tflite"] == b["tflite"] and a["coco"] == b["coco"] else 1)' "$TMP/report_2.json" "$TMP/report_0.json"

echo "coco_ssd_test: $failures failures"
[ "$failures" -eq 0 ]
