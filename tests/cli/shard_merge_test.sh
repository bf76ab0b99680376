#!/usr/bin/env bash
# Sharded runs merged equal single runs exactly (docs/cluster.md). For the tool named by $1, on
# ../shared's fixtures: one single run, then N = 1, 3, 7 and more shards than items, each shard its own
# process (all N at once), merged by merge_reports; the merged report must hold exactly the single run's
# figures (tests/cli/compare_reports.py: all but timings, host and flags), and every shard and merged
# report must match its schema. Then what a merge refuses, with one line and exit 3 (a missing, a
# duplicate or a corrupt shard, another configuration, a report that is no shard) and the flags' usage
# errors (exit 2).
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
TOOL="$1"
BIN="$R/tools/$TOOL/$TOOL"
MERGE="$R/tools/merge_reports/merge_reports"
COMPARE="$R/tests/cli/compare_reports.py"

require_shared -d data "skip: ../shared not available (set TOUCHSTONE_SHARED_DIR)"
MERGE_ARGS=()

# sharded <name> <N> <tool args...>: N shard processes at once into $TMP/<name>/, merged into
# $TMP/<name>/merged.json; checks the merge against $TMP/<name>.single.json.
sharded() {
  local name="$1" n="$2"; shift 2
  local dir="$TMP/$name.$n" pids=() i rc=0
  rm -rf "$dir"; mkdir -p "$dir"
  for ((i = 0; i < n; i++)); do
    (cd "$S" && "$BIN" "$@" --shard_index=$i --num_shards=$n --output_file_path="$dir/shard-$i.json") \
      >"$dir/out-$i.txt" 2>"$dir/err-$i.txt" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { rc=$?; echo "shard $i of $n: exit $rc: $(tail -2 "$dir/err-$i.txt")"; }
  done
  check "$name: $n shard processes ran" test $rc -eq 0
  # Shell order puts shard-10 before shard-2: merge_reports orders them itself.
  "$MERGE" --output_file_path="$dir/merged.json" "${MERGE_ARGS[@]}" "$dir"/shard-*.json >"$dir/merge.txt" 2>"$dir/merge_err.txt"
  check "$name: $n shards merged (exit $?; $(tail -1 "$dir/merge_err.txt"))" test -s "$dir/merged.json"
  check "$name: $n shards merged equal the single run" python3 "$COMPARE" "$TMP/$name.single.json" "$dir/merged.json"
  check "$name: shard and merged reports match the schema" python3 "$VALIDATE" "$SCHEMAS" "$dir/merged.json" "$dir"/shard-*.json >/dev/null
}

single() {  # single <name> <tool args...>
  local name="$1"; shift
  (cd "$S" && "$BIN" "$@" --output_file_path="$TMP/$name.single.json") >"$TMP/$name.single.txt" 2>&1
  check "$name: the single run (exit $?)" test -s "$TMP/$name.single.json"
}

# What a merge refuses: $1 a finished 3-shard set's folder, $2 a run with another configuration's shard 1,
# $3 a whole run's report, $4 the difference the refusal must name.
refusals() {
  local dir="$1" other="$2"
  expect_error 3 "shard 1 of 3 is missing (given: 0, 2)" "a missing shard" \
    "$MERGE" --output_file_path="$TMP/x.json" "$dir/shard-0.json" "$dir/shard-2.json"
  expect_error 3 "shard 2 of 3 is given twice" "a duplicate shard" \
    "$MERGE" --output_file_path="$TMP/x.json" "$dir/shard-0.json" "$dir/shard-1.json" "$dir/shard-2.json" "$dir/shard-2.json"
  expect_error 3 "the configuration differs from" "a shard of another configuration" \
    "$MERGE" --output_file_path="$TMP/x.json" "$dir/shard-0.json" "$other" "$dir/shard-2.json"
  check "the refusal names the difference ($4)" grep -qF -- "$4" "$TMP/err.txt"
  head -c 200 "$dir/shard-1.json" >"$TMP/corrupt.json"
  expect_error 3 "corrupt.json: not a JSON report" "a corrupt shard report" \
    "$MERGE" --output_file_path="$TMP/x.json" "$dir/shard-0.json" "$TMP/corrupt.json" "$dir/shard-2.json"
  expect_error 3 "not a shard report" "a whole run's report" \
    "$MERGE" --output_file_path="$TMP/x.json" "$dir/shard-0.json" "$3" "$dir/shard-2.json"
  expect_error 3 "cannot read the file" "a missing file" \
    "$MERGE" --output_file_path="$TMP/x.json" "$dir/shard-0.json" "$TMP/nowhere.json"
  expect_error 2 "no shard reports given" "no shard reports" "$MERGE" --output_file_path="$TMP/x.json"
  check "nothing written by a refused merge" test ! -e "$TMP/x.json"
}

case "$TOOL" in
imagenet_eval)
  LABELS=(--ground_truth_images_path=data/imagenet_sample/images --ground_truth_labels=data/imagenet_sample/ground_truth_labels.txt
          --model_output_labels=data/labels/imagenet_labels_1001.txt)
  runs=0
  for model in mobilenet_v1_0.25_224_1_default_1 mobilenet_v2_1.0_224_quant mobilenet_v1_0.25_128_quant \
               mobilenet_v2_quantized_1x3x224x224 denylist; do
    args=(--model_file=models/classification/$model.tflite "${LABELS[@]}")
    [ "$model" = denylist ] && args=(--model_file=models/classification/mobilenet_v2_1.0_224_quant.tflite "${LABELS[@]}"
                                     --denylist_file_path=data/imagenet_sample/denylist.txt --per_image --reference)
    single "$model" "${args[@]}"
    for n in 1 3 7 16; do sharded "$model" $n "${args[@]}"; runs=$((runs + n)); done
  done
  # The single runs are TFLite's numbers (data/imagenet_sample/expected_*.json).
  check "single runs hold TFLite's top-K" python3 - "$S/data/imagenet_sample" "$TMP" <<'PY'
import json, sys
data, tmp = sys.argv[1:3]
for model, expected in [("mobilenet_v1_0.25_224_1_default_1", "expected_mobilenet_v1_0.25_224_1_default_1.json"),
                        ("mobilenet_v2_1.0_224_quant", "expected_mobilenet_v2_1.0_224_quant.json"),
                        ("mobilenet_v1_0.25_128_quant", "expected_mobilenet_v1_0.25_128_quant.json"),
                        ("denylist", "expected_denylist_mobilenet_v2_1.0_224_quant.json")]:
    e = json.load(open(data + "/" + expected))
    r = json.load(open("%s/%s.single.json" % (tmp, model)))
    hits = e.get("hits") or e.get("topk_hits")
    assert r["topk_hits"] == hits, (model, r["topk_hits"], hits)
PY
  check "empty shards (16 shards, 11 images) write reports of no image" python3 -c '
import json, sys
empty = [r for r in (json.load(open(p)) for p in sys.argv[1:]) if r["shard"]["first"] == r["shard"]["end"]]
sys.exit(0 if len(empty) == 5 and all(r["num_evaluation_runs"] == 0 for r in empty) else 1)' \
    "$TMP"/mobilenet_v1_0.25_128_quant.16/shard-*.json
  # Another configuration's shard: 2 threads.
  (cd "$S" && "$BIN" --model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite "${LABELS[@]}" \
     --num_interpreter_threads=2 --shard_index=1 --num_shards=3 --output_file_path="$TMP/other.json") >/dev/null 2>&1
  refusals "$TMP/mobilenet_v1_0.25_128_quant.3" "$TMP/other.json" "$TMP/mobilenet_v1_0.25_128_quant.single.json" \
    "num_threads 1 -> 2"
  ARGS=(--model_file="$S/models/classification/mobilenet_v1_0.25_128_quant.tflite"
        --ground_truth_images_path="$S/data/imagenet_sample/images" --ground_truth_labels="$S/data/imagenet_sample/ground_truth_labels.txt"
        --model_output_labels="$S/data/labels/imagenet_labels_1001.txt")
  expect_error 2 "--shard_index and --num_shards go together" "--shard_index alone" "$BIN" "${ARGS[@]}" --shard_index=1
  expect_error 2 "--shard_index=3: must be in [0, 2]" "--shard_index past the shards" \
    "$BIN" "${ARGS[@]}" --shard_index=3 --num_shards=3
  expect_error 2 "--baseline gates a whole run" "--baseline with a shard" \
    "$BIN" "${ARGS[@]}" --shard_index=0 --num_shards=3 --baseline="$TMP/mobilenet_v1_0.25_128_quant.single.json"
  echo "TOUCHSTONE_CASES shard_merge_imagenet ran=$runs of=$runs"
  ;;
coco_eval)
  # The shards name the ground truth relative to where they ran; the merge says where it is here.
  MERGE_ARGS=(--ground_truth_json="$S/data/coco/instances_shared.json")
  args=(--model_file=models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite
        --model_output_labels=data/coco/labelmap_91_with_background.txt --ground_truth_images_path=data/coco/val2017
        --ground_truth_json=data/coco/instances_shared.json)
  single ssd "${args[@]}"
  runs=0
  for n in 1 3 7 10; do sharded ssd $n "${args[@]}"; runs=$((runs + n)); done
  check "the single run holds TFLite's mAP and COCO's figures" python3 - "$TMP/ssd.single.json" "$S/data/coco/expected_tflite_ssd.json" <<'PY'
import json, sys
r, e = (json.load(open(p)) for p in sys.argv[1:3])
assert abs(r["tflite"]["overall_map"] - e["proto_overall_mean_average_precision_float32"]) < 1e-8
assert r["num_detections"] == 70 and len(r["examples"]) == 6 and len(r["pr_curves"]["precision"]) == 10
PY
  (cd "$S" && "$BIN" "${args[@]}" --num_interpreter_threads=2 --shard_index=1 --num_shards=3 --output_file_path="$TMP/other.json") >/dev/null 2>&1
  refusals "$TMP/ssd.3" "$TMP/other.json" "$TMP/ssd.single.json" "num_threads 1 -> 2"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["annotations"][0]["bbox"][0] += 1; json.dump(d, open(sys.argv[2], "w"))' \
    "$S/data/coco/instances_shared.json" "$TMP/other_gt.json"
  expect_error 3 "is not the one the shards evaluated against" "another ground truth" \
    "$MERGE" --output_file_path="$TMP/x.json" --ground_truth_json="$TMP/other_gt.json" "$TMP"/ssd.3/shard-*.json
  expect_error 3 "cannot read the ground truth the shards name" "the ground truth not where the shards name it" \
    "$MERGE" --output_file_path="$TMP/x.json" "$TMP"/ssd.3/shard-*.json
  expect_error 2 "it takes no --detections_json or --ground_truth_proto" "--num_shards scoring a results file" \
    "$BIN" --ground_truth_json="$S/data/coco/instances_shared.json" --detections_json="$TMP/none.json" --shard_index=0 --num_shards=2
  echo "TOUCHSTONE_CASES shard_merge_coco ran=$runs of=$runs"
  ;;
inference_diff)
  PLUGIN="$R/delegates/sample/libsample_delegate_plugin.so"
  runs=0
  # uint8 layer-wise under --qualify; a delegate that perturbs its outputs (FAIL, the first diverging op
  # inside its partition); int16 SVDF, whose state carries from run to run (the shards replay the runs
  # before them).
  for name in quant delegate svdf; do
    case $name in
      quant) args=(--model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite --num_runs=5 --layerwise --qualify) ;;
      delegate) args=(--model_file=models/misc/hand_landmark_lite.tflite --num_runs=4 --layerwise --qualify
                      --external_delegate_path="$PLUGIN" --external_delegate_options=perturb:0.001) ;;
      svdf) args=(--model_file=models/misc/keyword_scrambled.tflite --num_runs=6 --layerwise --seed=7) ;;
    esac
    single "$name" "${args[@]}"
    for n in 1 3 7; do sharded "$name" $n "${args[@]}"; runs=$((runs + n)); done
  done
  check "the delegate's single run fails, and so does its merged report (exit 1)" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["verdict"] == b["verdict"] == "FAIL" and a["layerwise"]["first_divergence"]["inputs"] else 1)' \
    "$TMP/delegate.single.json" "$TMP/delegate.3/merged.json"
  "$MERGE" --output_file_path="$TMP/again.json" "$TMP"/delegate.3/shard-*.json >/dev/null 2>&1
  check "merge_reports exits 1 on the merged FAIL" test $? -eq 1
  check "the SVDF shards replayed the runs before them" grep -q "runs before were replayed unmeasured" "$TMP/svdf.3/out-2.txt"
  (cd "$S" && "$BIN" --model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite --num_runs=5 --layerwise --qualify \
     --seed=2 --shard_index=1 --num_shards=3 --output_file_path="$TMP/other.json") >/dev/null 2>&1
  refusals "$TMP/quant.3" "$TMP/other.json" "$TMP/quant.single.json" "seed 1 -> 2"
  expect_error 2 "--baseline gates a whole run" "--baseline with a shard" \
    "$BIN" --model_file="$S/models/classification/mobilenet_v1_0.25_128_quant.tflite" --shard_index=0 --num_shards=3 \
    --baseline="$TMP/quant.single.json"
  echo "TOUCHSTONE_CASES shard_merge_inference_diff ran=$runs of=$runs"
  ;;
*)
  echo "FAIL: unknown tool $TOOL"; exit 1 ;;
esac

finish "shard_merge_test $TOOL"
