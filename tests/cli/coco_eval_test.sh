#!/usr/bin/env bash
# End to end: coco_eval scoring results files made here (perfect, empty, one false positive), its JSON
# report, and bad inputs (malformed JSON, unknown category, image missing, a model with the wrong
# outputs, corrupt image, usage errors), each a one-line error with its documented exit code; then, with
# ../shared, one image through the SSD model with a delegate and explicit output tensors. The reports
# validate against docs/schemas/coco_eval.schema.json; the mAP gate (--baseline) passes, regresses and
# refuses another image set. The full SSD run against TFLite's numbers is tests/coco/coco_ssd_test.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/coco_eval/coco_eval"

# Ground truth for two 64x48 images (a BMP each), results files, and broken variants.
mkdir -p "$TMP/images"
python3 - "$TMP" <<'PY'
import json, struct, sys
root = sys.argv[1]
def bmp(path, w, h):
    row = (w * 3 + 3) // 4 * 4
    data = bytes(row * h)
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    open(path, "wb").write(header + info + data)
bmp(root + "/images/a.bmp", 64, 48)
bmp(root + "/images/b.bmp", 64, 48)
gt = {"images": [{"id": 1, "file_name": "a.bmp", "width": 64, "height": 48},
                 {"id": 2, "file_name": "b.bmp", "width": 64, "height": 48}],
      "annotations": [{"id": 10, "image_id": 1, "category_id": 1, "bbox": [4, 4, 20, 20], "area": 400, "iscrowd": 0},
                      {"id": 11, "image_id": 2, "category_id": 2, "bbox": [30, 10, 30, 30], "area": 900, "iscrowd": 0}],
      "categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "bicycle"}]}
json.dump(gt, open(root + "/gt.json", "w"))
perfect = [{"image_id": a["image_id"], "category_id": a["category_id"], "bbox": a["bbox"], "score": 0.9} for a in gt["annotations"]]
json.dump(perfect, open(root + "/perfect.json", "w"))
json.dump([], open(root + "/empty.json", "w"))
json.dump(perfect + [{"image_id": 1, "category_id": 2, "bbox": [40, 30, 10, 10], "score": 0.95}], open(root + "/false_positive.json", "w"))
json.dump([{"image_id": 7, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 0.5}], open(root + "/unknown_image.json", "w"))
bad = dict(gt); bad["annotations"] = gt["annotations"] + [{"id": 12, "image_id": 1, "category_id": 99, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0}]
json.dump(bad, open(root + "/unknown_category.json", "w"))
missing = dict(gt); missing["images"] = gt["images"] + [{"id": 3, "file_name": "c.bmp", "width": 64, "height": 48}]
missing["annotations"] = gt["annotations"] + [{"id": 13, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0}]
json.dump(missing, open(root + "/missing_image.json", "w"))
open(root + "/malformed.json", "w").write(json.dumps(gt)[:-20])
open(root + "/labels.txt", "w").write("???\nperson\nbicycle\n")
PY
GT=(--ground_truth_json="$TMP/gt.json")

# Scoring results files without a model.
"$BIN" "${GT[@]}" --detections_json="$TMP/perfect.json" --output_file_path="$TMP/perfect_report.json" >"$TMP/perfect.txt" 2>&1
check "perfect detections score (exit $?)" test -s "$TMP/perfect_report.json"
check "TFLite lines: ten APs of 1" test "$(grep -cE '^Average Precision \[IOU Threshold=0\.[0-9]+\]: 1$' "$TMP/perfect.txt")" -eq 10
check "TFLite line: Overall mAP: 1" grep -qxF "Overall mAP: 1" "$TMP/perfect.txt"
check "COCO line: AP 1.000" grep -qF " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000" "$TMP/perfect.txt"
check "COCO line: no medium objects (-1)" grep -qF " Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = -1.000" "$TMP/perfect.txt"
check "report: every metric and the configuration" python3 - "$TMP/perfect_report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tool"] == "coco_eval" and r["num_images"] == 2 and r["num_detections"] == 2
assert sorted(r["coco"]) == sorted(["AP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"])
assert abs(r["coco"]["AP"] - 1.0) < 1e-9 and r["tflite"]["overall_map"] == 1.0 and len(r["tflite"]["average_precision"]) == 10
assert r["details"]["detections_json"].endswith("perfect.json") and r["details"]["metric"] == "both"
assert r["configuration"]["kernels"] == "none" and r["configuration"]["settings"]["images"] == "2"
assert [(c["name"], round(c["coco_ap"], 9), c["tflite_ap"]) for c in r["per_class"]] == [("person", 1.0, 1.0), ("bicycle", 1.0, 1.0)], r["per_class"]
PY
check "the report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/perfect_report.json"
"$BIN" "${GT[@]}" --detections_json="$TMP/empty.json" >"$TMP/empty.txt" 2>&1
check "no detections: mAP 0" grep -qxF "Overall mAP: 0" "$TMP/empty.txt"
check "no detections: COCO AP 0.000" grep -qF "maxDets=100 ] = 0.000" "$TMP/empty.txt"
"$BIN" "${GT[@]}" --detections_json="$TMP/false_positive.json" --metric=tflite >"$TMP/fp.txt" 2>&1
check "one false positive above the true one: TFLite AP < 1" grep -qE '^Overall mAP: 0\.[0-9]+$' "$TMP/fp.txt"
check "--metric=tflite prints no COCO lines" test "$(grep -c 'maxDets' "$TMP/fp.txt")" -eq 0
"$BIN" "${GT[@]}" --detections_json="$TMP/perfect.json" --metric=coco --image_ids=2 >"$TMP/one.txt" 2>&1
check "--metric=coco --image_ids=2 prints only COCO lines" test "$(grep -c 'Overall mAP' "$TMP/one.txt")" -eq 0 -a "$(grep -c 'maxDets' "$TMP/one.txt")" -eq 12

# The mAP gate: the perfect report as the baseline. The same results pass; a false positive above a true
# detection lowers TFLite's mAP and bicycle's AP: REGRESSION naming the class; another image set is refused.
"$BIN" "${GT[@]}" --detections_json="$TMP/perfect.json" --baseline="$TMP/perfect_report.json" \
  --output_file_path="$TMP/gated.json" >"$TMP/gate_same.txt" 2>&1
check "gate: the same results PASS, exit 0" test $? -eq 0 -a "$(tail -1 "$TMP/gate_same.txt")" = "Gate verdict: PASS (exit code 0)"
check "gate: the gated report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/gated.json"
"$BIN" "${GT[@]}" --detections_json="$TMP/false_positive.json" --baseline="$TMP/perfect_report.json" --allow_config_change \
  >"$TMP/gate_fp.txt" 2>&1
check "gate: a false positive is a REGRESSION, exit 1" test $? -eq 1 -a \
  "$(grep -cE '^Detection gate: REGRESSION: coco AP .*tflite mAP [0-9.]+ vs baseline 1\.0000 \(-[0-9.]+ points\); limit -0\.000 points; dropped most: bicycle' "$TMP/gate_fp.txt")" -eq 1
check "gate: the verdict line says the results file changed" grep -qE '^Gate verdict: REGRESSION \(exit code 1\); configuration changed: input .detections. source file sha256 [0-9a-f]{12} -> file sha256 [0-9a-f]{12}$' "$TMP/gate_fp.txt"
"$BIN" "${GT[@]}" --detections_json="$TMP/false_positive.json" --baseline="$TMP/perfect_report.json" --allow_config_change \
  --max_accuracy_drop_pct=100 >"$TMP/gate_tolerant.txt" 2>&1
check "gate: within --max_accuracy_drop_pct=100: PASS" test $? -eq 0
"$BIN" "${GT[@]}" --detections_json="$TMP/perfect.json" --metric=tflite --output_file_path="$TMP/tflite_only.json" >/dev/null 2>&1
"$BIN" "${GT[@]}" --detections_json="$TMP/perfect.json" --baseline="$TMP/tflite_only.json" --allow_config_change >"$TMP/gate_noisy.txt" 2>&1
check "gate: a baseline without the COCO metric cannot judge it: NOISY, exit 5" test $? -eq 5 -a \
  "$(grep -c '(the baseline has no coco AP)$' "$TMP/gate_noisy.txt")" -eq 1
expect_exit 2 "the configuration differs from this run's: images 2 -> 1" "gate: another image set is refused" \
  "${GT[@]}" --detections_json="$TMP/perfect.json" --image_ids=2 --baseline="$TMP/perfect_report.json"

# Usage errors.
expect_exit 2 "--metric=all: must be one of tflite, coco, both" "bad --metric" "${GT[@]}" --detections_json="$TMP/perfect.json" --metric=all
expect_exit 2 "--ground_truth_json is required" "missing ground truth" --detections_json="$TMP/perfect.json"
expect_exit 2 "give one" "JSON and proto ground truth together" "${GT[@]}" --ground_truth_proto=x.pb --detections_json="$TMP/perfect.json"
expect_exit 2 "--metric=coco needs --ground_truth_json" "COCO metrics from TFLite's proto" --ground_truth_proto=x.pb --metric=coco
expect_exit 2 "takes no --detections_json" "results file with TFLite's proto" --ground_truth_proto=x.pb --detections_json="$TMP/perfect.json"
expect_exit 2 "--model_file is required" "neither model nor results" "${GT[@]}"
expect_exit 2 "--image_ids: image 5 is not an annotated image" "unknown --image_ids" "${GT[@]}" --detections_json="$TMP/perfect.json" --image_ids=5
expect_exit 2 "cannot write" "report in a missing folder" "${GT[@]}" --detections_json="$TMP/perfect.json" --output_file_path="$TMP/no/dir/r.json"

# Bad inputs.
expect_exit 3 "malformed.json: malformed JSON" "malformed ground truth JSON" --ground_truth_json="$TMP/malformed.json" --detections_json="$TMP/perfect.json"
expect_exit 3 "malformed.json: malformed JSON" "malformed results JSON" "${GT[@]}" --detections_json="$TMP/malformed.json"
expect_exit 3 "has unknown category 99" "unknown category" --ground_truth_json="$TMP/unknown_category.json" --detections_json="$TMP/perfect.json"
expect_exit 3 "is for image 7, which the ground truth does not have" "detection for an unknown image" "${GT[@]}" --detections_json="$TMP/unknown_image.json"
expect_exit 3 "cannot read" "missing ground truth file" --ground_truth_json="$TMP/none.json" --detections_json="$TMP/perfect.json"

# A model with the wrong outputs: a classifier (one output) is no detector; the error lists its outputs.
"$MAKE" --output="$TMP/classifier.tflite" --input_size=32 --num_classes=5 >/dev/null || { echo "FAIL: make_model"; exit 1; }
MODEL=(--model_file="$TMP/classifier.tflite" --model_output_labels="$TMP/labels.txt" --ground_truth_images_path="$TMP/images")
expect_exit 3 "the model has 1 outputs; a detector has four" "model with the wrong outputs" "${GT[@]}" "${MODEL[@]}"
check "the error lists the outputs" grep -qE "\(outputs: 0: '[^']*' FLOAT32 \[1,5\]\)" "$TMP/err.txt"
expect_exit 2 "--output_tensors needs four items" "bad --output_tensors" "${GT[@]}" "${MODEL[@]}" --output_tensors=0,0
expect_exit 3 "c.bmp: image of ground-truth id 3 is missing" "image missing" --ground_truth_json="$TMP/missing_image.json" "${MODEL[@]}"
printf '\x0a\x7f\x01' >"$TMP/bad.pb"
expect_exit 3 "bad.pb: not a valid ObjectDetectionGroundTruth proto" "malformed TFLite proto" --ground_truth_proto="$TMP/bad.pb" "${MODEL[@]}"
expect_exit 2 "--delegate=hexagon: no such delegate" "unknown --delegate" "${GT[@]}" "${MODEL[@]}" --delegate=hexagon
expect_exit 2 "takes no --model_file" "results file and model together" "${GT[@]}" "${MODEL[@]}" --detections_json="$TMP/perfect.json"

# With ../shared: the SSD model on one image, with the sample delegate, outputs named explicitly, a corrupt copy.
if shared_has -d data/coco; then
  S="$TOUCHSTONE_SHARED_DIR"
  SSD=(--model_file="$S/models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite"
       --model_output_labels="$S/data/coco/labelmap_91_with_background.txt" --ground_truth_json="$S/data/coco/instances_shared.json")
  "$BIN" "${SSD[@]}" --ground_truth_images_path="$S/data/coco/val2017" --image_ids=4495 --delegate=sample \
    --output_tensors=TFLite_Detection_PostProcess,1,2,3 --output_file_path="$TMP/ssd.json" \
    --write_detections="$TMP/ssd_detections.json" >"$TMP/ssd.txt" 2>"$TMP/ssd_err.txt"
  check "SSD on one image with --delegate=sample (exit $?)" grep -qxF "Num evaluation runs: 1" "$TMP/ssd.txt"
  check "SSD: the report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/ssd.json"
  check "SSD report and results file" python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
c = r["details"]
ok = c["output_tensors"]["found_by"] == "flag" and r["configuration"]["delegates"][0]["provider"] == "SAMPLE" and len(d) == 10
ok = ok and all(set(x) == {"image_id", "category_id", "bbox", "score"} and x["image_id"] == 4495 for x in d)
sys.exit(0 if ok else 1)' "$TMP/ssd.json" "$TMP/ssd_detections.json"
  # Its results file scores the same without the model.
  "$BIN" --ground_truth_json="$S/data/coco/instances_shared.json" --image_ids=4495 --detections_json="$TMP/ssd_detections.json" >"$TMP/rescored.txt" 2>&1
  check "results file rescored: same COCO lines" diff <(grep maxDets "$TMP/ssd.txt") <(grep maxDets "$TMP/rescored.txt")
  mkdir -p "$TMP/corrupt"
  head -c 5000 "$S/data/coco/val2017/000000004495.jpg" >"$TMP/corrupt/000000004495.jpg"
  expect_exit 3 "000000004495.jpg: corrupt" "corrupt JPEG" "${SSD[@]}" --ground_truth_images_path="$TMP/corrupt" --image_ids=4495
else
  unavailable "CI=true but TOUCHSTONE_SHARED_DIR is not set" "skip: ../shared not available"
fi

finish "coco_eval_test"
