#!/usr/bin/env bash
# End to end: imagenet_eval's lines, JSON report, pipeline, --reference, delegates and bad inputs (each a
# one-line error and its documented exit code, never a crash), on a set made here from a model
# Touchstone builds itself; then, with ../shared, TFLite's numbers for the sample set through the binary,
# --use_model_metadata and the NCHW model's label-offset warning. The report validates against
# docs/schemas/imagenet_eval.schema.json; the accuracy gate (--baseline) passes, regresses and refuses
# another configuration.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/imagenet_eval/imagenet_eval"

# A float classifier with 10 classes on 32x32 images, 6 BMP images, their labels and the model's labels.
"$MAKE" --output="$TMP/m.tflite" --input_size=32 --num_classes=10 >/dev/null || { echo "FAIL: make_model"; exit 1; }
mkdir -p "$TMP/set/images"
python3 - "$TMP/set" <<'PY'
import struct, sys, random
root = sys.argv[1]
random.seed(7)
def bmp(path, w, h):
    row = (w * 3 + 3) // 4 * 4
    data = bytearray()
    for y in range(h):
        line = bytearray(random.randrange(256) for _ in range(w * 3))
        data += line + bytes(row - w * 3)
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    open(path, "wb").write(header + info + data)
for i in range(6):
    bmp("%s/images/img_%02d.bmp" % (root, i), 40 + 3 * i, 36 + 5 * i)
open(root + "/labels.txt", "w").write("".join("class_%d\n" % (i % 10) for i in range(6)))
open(root + "/model_labels.txt", "w").write("".join("class_%d\n" % i for i in range(10)))
open(root + "/short_labels.txt", "w").write("".join("class_%d\n" % i for i in range(7)))
open(root + "/three_labels.txt", "w").write("a\nb\nc\n")
PY
SET=(--model_file="$TMP/m.tflite" --ground_truth_images_path="$TMP/set/images"
     --ground_truth_labels="$TMP/set/labels.txt" --model_output_labels="$TMP/set/model_labels.txt")

"$BIN" "${SET[@]}" --output_file_path="$TMP/report.json" --per_image >"$TMP/run.txt" 2>"$TMP/run_err.txt"
check "runs the made model and set (exit $?)" test -s "$TMP/report.json"
for line in "Num evaluation runs: 6" "Preprocessing latency: avg=" "Inference latency: avg=" "Top-1 Accuracy: " "Top-10 Accuracy: 1"; do
  check "prints '$line'" grep -qF "$line" "$TMP/run.txt"
done
check "ten Top-k lines in order" test "$(grep -E '^Top-[0-9]+ Accuracy: ' "$TMP/run.txt" | cut -d' ' -f1 | tr '\n' ' ')" = "Top-1 Top-2 Top-3 Top-4 Top-5 Top-6 Top-7 Top-8 Top-9 Top-10 "
check "no progress line in a short run off a terminal" test "$(cat "$TMP/run.txt" "$TMP/run_err.txt" | grep -c 'evaluated images')" -eq 0
check "the report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/report.json"
check "report: documented keys, printed values" python3 - "$TMP/report.json" "$TMP/run.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); out = open(sys.argv[2]).read()
for key in ("tool", "configuration", "num_evaluation_runs", "topk_accuracy", "topk_hits", "latency",
            "wall_seconds", "images_per_second", "skipped", "images"):
    assert key in r, key
c = r["details"]
i = r["configuration"]["inputs"][0]
assert i["shape"] == [1, 32, 32, 3] and i["type"] == "FLOAT32" and i["source"] == "images", i
assert c["layout"] == "NHWC" and c["normalization"] == {"source": "tflite_default"} and c["label_offset"] == 0 and c["num_outputs"] == 10
assert r["configuration"]["settings"]["images"] == "6"
assert r["num_evaluation_runs"] == 6 and len(r["topk_accuracy"]) == 10 and r["topk_hits"][9] == 6
assert r["latency"]["inference"]["count"] == 6 and r["latency"]["preprocessing"]["count"] == 6
assert sum(c["images"] for c in r["per_class"]) == 6 and len(r["predictions"]["top1_index"]) == 6
for k, a in enumerate(r["topk_accuracy"]):
    assert "Top-%d Accuracy: %s\n" % (k + 1, ("%.6g" % a)) in out, (k, a)
assert len(r["images"]) == 6 and all(len(i["top_indices"]) == 10 and len(i["top_labels"]) == 10 for i in r["images"])
assert r["images"][0]["path"].endswith("img_00.bmp") and r["images"][0]["label"] == "class_0"
PY

# The pipeline changes nothing but the time; --reference runs both kernel sets in one pass.
"$BIN" "${SET[@]}" --num_preprocessing_threads=0 --output_file_path="$TMP/inline.json" >/dev/null 2>&1
"$BIN" "${SET[@]}" --num_preprocessing_threads=3 --reference --use_reference_kernels=false --output_file_path="$TMP/ref.json" >"$TMP/ref.txt" 2>&1
check "inline and pipelined runs agree; the reference in the same pass" python3 - "$TMP/report.json" "$TMP/inline.json" "$TMP/ref.json" <<'PY'
import json, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
assert a["topk_hits"] == b["topk_hits"] == c["topk_hits"]
ref = c["reference"]
assert ref["topk_hits"] == c["topk_hits"] and ref["top1_changed"] == 0 and ref["topk_accuracy_delta"] == [0.0] * 10
assert ref["inference_latency"]["count"] == 6
PY
check "--reference prints both and the changed count" grep -qF "Images whose top-1 changed against the reference: 0" "$TMP/ref.txt"
check "--reference prints reference Top-1" grep -qE '^Reference Top-1 Accuracy: [0-9.]+ \(delta 0\)$' "$TMP/ref.txt"

# Delegates through the registry and TFLite's --delegate=<name>.
"$BIN" "${SET[@]}" --delegate=sample --output_file_path="$TMP/del.json" >"$TMP/del.txt" 2>&1
check "--delegate=sample runs" python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["configuration"]["delegates"]; sys.exit(0 if d and d[0]["provider"]=="SAMPLE" else 1)' "$TMP/del.json"
check "--delegate=sample prints TFLite's line" grep -qE 'SAMPLE delegate' "$TMP/del.txt"
"$BIN" "${SET[@]}" --use_sample_delegate >/dev/null 2>&1
check "--use_sample_delegate (the registry's flag) runs" test $? -eq 0
expect_exit 2 "--delegate=nnapi: no such delegate" "unknown --delegate" "${SET[@]}" --delegate=nnapi

# Normalisation flags.
"$BIN" "${SET[@]}" --input_mean=127.5 --input_std=127.5 --output_file_path="$TMP/norm.json" >/dev/null 2>&1
check "--input_mean/--input_std 127.5 equal TFLite's default" python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sys.exit(0 if a["topk_hits"] == b["topk_hits"] and [i["top_indices"] for i in a["images"]] == [i["top_indices"] for i in json.load(open(sys.argv[3]))["images"]] and b["details"]["normalization"]["source"] == "flags" else 1)' \
  "$TMP/report.json" "$TMP/norm.json" "$TMP/report.json"
"$BIN" "${SET[@]}" --input_mean=123.675,116.28,103.53 --input_std=58.395,57.12,57.375 >/dev/null 2>&1
check "per-channel mean/std run" test $? -eq 0
expect_exit 2 "--input_mean: 'x' is not a number" "bad --input_mean" "${SET[@]}" --input_mean=x
expect_exit 2 "--input_std takes one value or three" "two --input_std values" "${SET[@]}" --input_std=1,2
expect_exit 2 "--input_std must not be 0" "--input_std=0" "${SET[@]}" --input_std=0
expect_exit 2 "give one" "metadata and flags together" "${SET[@]}" --use_model_metadata --input_mean=1
expect_exit 3 "has no TFLITE_METADATA" "--use_model_metadata without metadata" "${SET[@]}" --use_model_metadata

# A folder per class instead of images + labels: the same images and labels, the same hits.
for i in 0 1 2 3 4 5; do mkdir -p "$TMP/classes/class_$i"; cp "$TMP/set/images/img_0$i.bmp" "$TMP/classes/class_$i/"; done
"$BIN" --model_file="$TMP/m.tflite" --model_output_labels="$TMP/set/model_labels.txt" --class_folders_path="$TMP/classes" \
  --output_file_path="$TMP/classes.json" >/dev/null 2>&1
check "--class_folders_path gives the same hits" python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:3]); sys.exit(0 if a["topk_hits"]==b["topk_hits"] and b["num_evaluation_runs"]==6 else 1)' "$TMP/report.json" "$TMP/classes.json"
expect_exit 2 "does not apply to --class_folders_path" "denylist with class folders" --model_file="$TMP/m.tflite" \
  --model_output_labels="$TMP/set/model_labels.txt" --class_folders_path="$TMP/classes" --denylist_file_path="$TMP/deny.txt"

# Usage errors.
expect_exit 2 "unknown flag" "unknown flag" "${SET[@]}" --num_imagez=3
expect_exit 2 "--model_file is required" "missing --model_file" --ground_truth_images_path="$TMP/set/images"
expect_exit 2 "--ground_truth_images_path and --ground_truth_labels are required" "missing data flags" \
  --model_file="$TMP/m.tflite" --model_output_labels="$TMP/set/model_labels.txt"
expect_exit 2 "--num_preprocessing_threads=-1: must be in [0, 64]" "bad thread count" "${SET[@]}" --num_preprocessing_threads=-1
expect_exit 2 "--label_offset=x: expected auto or an integer" "bad --label_offset" "${SET[@]}" --label_offset=x

# Bad inputs.
expect_exit 3 "cannot open image folder" "missing image folder" "${SET[@]}" --ground_truth_images_path="$TMP/nowhere"
expect_exit 3 "has 3 labels for 6 images" "ground-truth count mismatch" "${SET[@]}" --ground_truth_labels="$TMP/set/three_labels.txt"
expect_exit 3 "short_labels.txt: has 7 labels but the model has 10 outputs" "label file of the wrong size" \
  "${SET[@]}" --model_output_labels="$TMP/set/short_labels.txt"
expect_exit 3 "cannot read" "missing label file" "${SET[@]}" --model_output_labels="$TMP/none.txt"
expect_exit 3 "does_not_exist.tflite" "missing model" "${SET[@]}" --model_file="$TMP/does_not_exist.tflite"
head -c 200 "$TMP/m.tflite" >"$TMP/truncated.tflite"
expect_exit 3 "truncated.tflite" "truncated model" "${SET[@]}" --model_file="$TMP/truncated.tflite"
printf '9\n' >"$TMP/deny.txt"
expect_exit 3 "'9' is not an image number in 1..6" "denylist out of range" "${SET[@]}" --denylist_file_path="$TMP/deny.txt"
expect_exit 2 "cannot write" "report in a missing folder (refused before the run)" "${SET[@]}" --output_file_path="$TMP/no/dir/r.json"
check "no report left behind" test ! -e "$TMP/no/dir/r.json"

# A corrupt JPEG: fatal by default (named), skipped with a warning by flag.
cp -r "$TMP/set" "$TMP/corrupt"
printf '\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb' >"$TMP/corrupt/images/img_03.bmp"
CORRUPT=(--model_file="$TMP/m.tflite" --ground_truth_images_path="$TMP/corrupt/images"
         --ground_truth_labels="$TMP/corrupt/labels.txt" --model_output_labels="$TMP/corrupt/model_labels.txt")
for threads in 0 2; do
  expect_exit 3 "img_03.bmp: corrupt" "corrupt JPEG stops the run ($threads threads)" \
    "${CORRUPT[@]}" --num_preprocessing_threads=$threads --output_file_path="$TMP/corrupt.json"
  check "no report after the failed run" test ! -e "$TMP/corrupt.json"
  "$BIN" "${CORRUPT[@]}" --num_preprocessing_threads=$threads --skip_unreadable_images --output_file_path="$TMP/skip.json" >"$TMP/skip.txt" 2>"$TMP/skip_err.txt"
  check "--skip_unreadable_images goes on ($threads threads, exit $?)" grep -qF "Num evaluation runs: 5" "$TMP/skip.txt"
  check "the skipped image is named in a warning" grep -qF "WARNING: skipped $TMP/corrupt/images/img_03.bmp: corrupt" "$TMP/skip_err.txt"
  check "the report lists it" python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["skipped"]; sys.exit(0 if len(s)==1 and "img_03.bmp" in s[0] else 1)' "$TMP/skip.json"
  rm -f "$TMP/skip.json"
done

# The accuracy gate. A baseline whose top-1 was higher (edited) is a REGRESSION; the same report passes;
# a baseline whose first image had another top-1 fails --require_same_predictions; another thread count
# is refused before any image is evaluated.
"$BIN" "${SET[@]}" --baseline="$TMP/report.json" --output_file_path="$TMP/gated.json" >"$TMP/gate_same.txt" 2>&1
check "gate: the same run PASS, exit 0" test $? -eq 0 -a "$(tail -1 "$TMP/gate_same.txt")" = "Gate verdict: PASS (exit code 0)"
check "gate: the gated report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/gated.json"
python3 - "$TMP/report.json" "$TMP/higher.json" "$TMP/changed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
higher = json.loads(json.dumps(r))
higher["topk_accuracy"][0] = min(1.0, higher["topk_accuracy"][0] + 0.01)
json.dump(higher, open(sys.argv[2], "w"))
changed = json.loads(json.dumps(r))
changed["predictions"]["top1_index"][0] = (changed["predictions"]["top1_index"][0] + 1) % 10
json.dump(changed, open(sys.argv[3], "w"))
PY
"$BIN" "${SET[@]}" --baseline="$TMP/higher.json" >"$TMP/gate_lower.txt" 2>&1
check "gate: a 1-point top-1 drop is a REGRESSION, exit 1" test $? -eq 1 -a \
  "$(grep -cE '^Accuracy gate: REGRESSION: top-1 [0-9.]+% vs baseline [0-9.]+% \(-1\.000 points\)' "$TMP/gate_lower.txt")" -eq 1
"$BIN" "${SET[@]}" --baseline="$TMP/higher.json" --max_accuracy_drop_pct=1.5 >"$TMP/gate_tolerated.txt" 2>&1
check "gate: within --max_accuracy_drop_pct=1.5: PASS" test $? -eq 0
"$BIN" "${SET[@]}" --baseline="$TMP/changed.json" >"$TMP/gate_changed.txt" 2>&1
check "gate: a changed top-1 alone passes" test $? -eq 0
"$BIN" "${SET[@]}" --baseline="$TMP/changed.json" --require_same_predictions >"$TMP/gate_changed.txt" 2>&1
check "gate: --require_same_predictions: REGRESSION naming the image" test $? -eq 1 -a \
  "$(grep -cE '^Accuracy gate: REGRESSION: .*1 images changed their top-1 label: img_00\.bmp: class_[0-9] -> class_[0-9]' "$TMP/gate_changed.txt")" -eq 1
expect_exit 2 "the configuration differs from this run's: num_threads 1 -> 2" "gate: another thread count is refused" \
  "${SET[@]}" --baseline="$TMP/report.json" --num_interpreter_threads=2
expect_exit 2 "need --baseline" "gate: --require_same_predictions without --baseline" "${SET[@]}" --require_same_predictions
expect_exit 2 "--num_interpreter_threads=0: must be in [1, 256]" "--num_interpreter_threads=0" "${SET[@]}" --num_interpreter_threads=0

# With ../shared: TFLite's numbers through the binary, metadata normalisation, the NCHW model.
if shared_has -d data/imagenet_sample; then
  S="$TOUCHSTONE_SHARED_DIR"
  SAMPLE=(--ground_truth_images_path="$S/data/imagenet_sample/images"
          --ground_truth_labels="$S/data/imagenet_sample/ground_truth_labels.txt")
  # TFLite's own command lines, as each expected_*.json records them, print TFLite's lines.
  for expected in "$S"/data/imagenet_sample/expected_*.json; do
    name="$(basename "$expected" .json)"
    COMMAND="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command"])' "$expected")"
    ARGS="${COMMAND#imagenet_image_classification_run_eval }"
    ARGS="${ARGS//<out.pb>/$TMP/$name.out}"
    (cd "$S" && eval "\"\$BIN\" $ARGS") >"$TMP/$name.txt" 2>/dev/null
    python3 -c 'import json, sys
for line in json.load(open(sys.argv[1]))["log_accuracy_lines"]: print(line[len("INFO: "):])' "$expected" >"$TMP/$name.expected"
    grep -E '^(Num evaluation runs|Top-[0-9]+ Accuracy)' "$TMP/$name.txt" >"$TMP/$name.ours"
    check "TFLite's command of $name: TFLite's lines exactly" diff "$TMP/$name.expected" "$TMP/$name.ours"
  done
  "$BIN" "${SAMPLE[@]}" --model_file="$S/models/classification/mobilenet_v1_0.25_128_quant.tflite" \
    --model_output_labels="$S/data/labels/imagenet_labels_1001.txt" --use_model_metadata --output_file_path="$TMP/meta.json" >/dev/null 2>&1
  check "--use_model_metadata reads mean/std 127.5 and quantizes" python3 -c '
import json, sys
n = json.load(open(sys.argv[1]))["details"]["normalization"]
sys.exit(0 if n["source"] == "model_metadata" and n["mean"] == [127.5] and n["std"] == [127.5] and n["quantized"]["zero_point"] == 128 else 1)' "$TMP/meta.json"
  "$BIN" "${SAMPLE[@]}" --model_file="$S/models/classification/mobilenet_v2_quantized_1x3x224x224.tflite" \
    --model_output_labels="$S/data/labels/imagenet_labels_1001.txt" --num_images=2 \
    --input_mean=123.675,116.28,103.53 --input_std=58.395,57.12,57.375 --per_image --output_file_path="$TMP/nchw.json" >/dev/null 2>"$TMP/nchw_err.txt"
  check "NCHW model, 1001 labels: offset detected with a warning" grep -qF "WARNING: the model has 1000 outputs and $S/data/labels/imagenet_labels_1001.txt has 1001 labels" "$TMP/nchw_err.txt"
  check "NCHW model: layout, offset, the fox" python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); c = r["details"]
sys.exit(0 if c["layout"] == "NCHW" and c["label_offset"] == -1 and r["images"][1]["top_labels"][0] == "red fox" else 1)' "$TMP/nchw.json"
else
  unavailable "CI=true but TOUCHSTONE_SHARED_DIR is not set" "skip: ../shared not available"
fi

finish "imagenet_eval_test"
