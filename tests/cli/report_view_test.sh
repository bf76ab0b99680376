#!/usr/bin/env bash
# report_view's pages in a real browser: each tool's report from ../shared's fixtures (benchmark_model
# with a delegate and the op profile, inference_diff float and quantized, imagenet_eval, coco_eval merged
# from shards) and comparison pages, rendered in one headless Chromium process (tests/cli/browser_check.py):
# every chart drawn with its elements counted against the report, every image decoded, no request beyond
# the page; a screenshot of each page in the test outputs (report_view/<page>.png in outputs.zip).
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
T="$R/tools"
VIEW="$T/report_view/report_view"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-$TMP/outputs}/report_view"
export HOME="$TMP"  # Chromium writes below it

require_shared -d data "skip: ../shared not available (set TOUCHSTONE_SHARED_DIR)"
command -v chromium >/dev/null || unavailable_exit "CI=true but chromium is not installed (scripts/setup.sh)" \
  "skip: chromium not installed (scripts/setup.sh installs it)"
PLUGIN="$R/delegates/sample/libsample_delegate_plugin.so"
run() {  # run <report> <command...>: runs in ../shared, keeps the output
  local report="$1"; shift
  (cd "$S" && "$@") >"$TMP/$report.txt" 2>&1
  check "$report made" test -s "$TMP/$report.json"
}

# The reports.
BENCH=(--graph=models/misc/hand_landmark_lite.tflite --external_delegate_path="$PLUGIN" --enable_op_profiling
       --num_runs=20 --min_secs=0 --warmup_runs=3 --warmup_min_secs=0)
run bench "$T/benchmark_model/benchmark_model" "${BENCH[@]}" --report_json="$TMP/bench.json"
run bench2 "$T/benchmark_model/benchmark_model" "${BENCH[@]}" --report_json="$TMP/bench2.json"
run diff_float "$T/inference_diff/inference_diff" --model_file=models/misc/hand_landmark_lite.tflite --num_runs=2 --layerwise \
  --qualify --external_delegate_path="$PLUGIN" --external_delegate_options=perturb:0.001 --output_file_path="$TMP/diff_float.json"
run diff_quant "$T/inference_diff/inference_diff" --model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite \
  --num_runs=3 --layerwise --output_file_path="$TMP/diff_quant.json"
IMAGENET=(--model_file=models/classification/mobilenet_v1_0.25_128_quant.tflite --ground_truth_images_path=data/imagenet_sample/images
          --ground_truth_labels=data/imagenet_sample/ground_truth_labels.txt --model_output_labels=data/labels/imagenet_labels_1001.txt)
run imagenet "$T/imagenet_eval/imagenet_eval" "${IMAGENET[@]}" --output_file_path="$TMP/imagenet.json"
run imagenet_ref "$T/imagenet_eval/imagenet_eval" "${IMAGENET[@]}" --use_reference_kernels --output_file_path="$TMP/imagenet_ref.json"
COCO=(--model_file=models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite --model_output_labels=data/coco/labelmap_91_with_background.txt
      --ground_truth_images_path=data/coco/val2017 --ground_truth_json=data/coco/instances_shared.json)
run coco "$T/coco_eval/coco_eval" "${COCO[@]}" --output_file_path="$TMP/coco.json"
for i in 0 1; do run coco_shard$i "$T/coco_eval/coco_eval" "${COCO[@]}" --shard_index=$i --num_shards=2 --output_file_path="$TMP/coco_shard$i.json"; done
"$T/merge_reports/merge_reports" --output_file_path="$TMP/coco_merged.json" --ground_truth_json="$S/data/coco/instances_shared.json" \
  "$TMP/coco_shard0.json" "$TMP/coco_shard1.json" >/dev/null
check "coco shards merged" test -s "$TMP/coco_merged.json"

# The pages (the images are read where the reports name them, relative to ../shared).
page() {  # page <name> <report_view args...>
  local name="$1"; shift
  (cd "$S" && "$VIEW" "$@" --output="$TMP/$name.html") >"$TMP/$name.view.txt" 2>&1
  check "$name page written (exit $?)" test -s "$TMP/$name.html"
}
page bench "$TMP/bench.json"
page bench_compare "$TMP/bench2.json" --compare="$TMP/bench.json"
page diff_float "$TMP/diff_float.json"
page diff_quant "$TMP/diff_quant.json"
page imagenet "$TMP/imagenet.json"
page imagenet_compare "$TMP/imagenet_ref.json" --compare="$TMP/imagenet.json"
page coco "$TMP/coco_merged.json"
page coco_compare "$TMP/coco_merged.json" --compare="$TMP/coco.json"

# What each page must hold, counted from its report.
python3 - "$TMP" >"$TMP/spec.json" <<'PY'
import json, sys
tmp = sys.argv[1]
r = lambda name: json.load(open("%s/%s.json" % (tmp, name)))
pages = []
def add(name, *expect):
    pages.append({"page": "%s/%s.html" % (tmp, name), "name": name,
                  "expect": [dict(selector=s, **bounds) for s, bounds in expect]})
b = r("bench")
regular, warmup = b["latency"]["regular"], b["latency"]["warmup"]
nodes = [n for s in b["op_profile"]["subgraphs"] for n in s["nodes"]]
events = b["op_profile"]["timeline"]["events"]
assert sum(e["delegate"] for e in events) > 0, "the sample delegate took no node"
add("bench",
    ("svg[data-chart=latency-histogram] rect.bar", {"min": 1}),
    ("svg[data-chart=run-order] circle.point.regular", {"equals": len(regular["samples"]["latency_us"])}),
    ("svg[data-chart=run-order] circle.point.warmup", {"equals": len(warmup["samples"]["latency_us"])}),
    ("svg[data-chart=run-order] polyline.line", {"equals": 1}),
    ("table.percentiles tr", {"equals": 13}),
    ("svg[data-chart=op-time] rect[class^=bar]", {"equals": min(40, len(nodes))}),
    ("svg[data-chart=op-time] rect.bar.delegate", {"min": 1}),
    ("svg[data-chart=timeline] g[class^=block]", {"equals": len(events)}),
    ("svg[data-chart=timeline] g.block.delegate", {"equals": sum(e["delegate"] for e in events)}),
    ("svg[data-chart=memory] rect.bar", {"min": 4}))
add("bench_compare",
    ("table.figures tr", {"min": 20}), ("span.verdict", {"equals": 1}),
    ("svg[data-chart=latency-histogram] g.series", {"equals": 2}),
    ("svg[data-chart=run-order] circle.point.regular", {"equals": 2 * len(regular["samples"]["latency_us"])}),
    ("svg[data-chart=op-time] rect.bar", {"min": 2}))
d = r("diff_float")
layers = d["layerwise"]["tensors"]
add("diff_float",
    ("span.verdict.FAIL", {"equals": 1}),
    ("svg[data-chart^=error-histogram]", {"equals": len(d["outputs"])}),
    ("svg[data-chart^=error-histogram] rect.bar", {"min": len(d["outputs"])}),
    ("svg[data-chart=layerwise] circle.point.layer", {"equals": len(layers)}),
    ("svg[data-chart=layerwise] circle.point.breach", {"equals": sum(1 for t in layers if t.get("breach"))}),
    ("svg[data-chart=layerwise] polyline.line", {"equals": 3}))
q = r("diff_quant")
add("diff_quant",
    ("span.verdict.NONE", {"equals": 1}),
    ("svg[data-chart=error-histogram-0] rect.bar", {"equals": 4}),
    ("svg[data-chart=layerwise] circle.point.layer", {"equals": len(q["layerwise"]["tensors"])}))
i = r("imagenet")
add("imagenet",
    ("svg[data-chart=topk] circle.point.topk", {"equals": 10}),
    ("svg[data-chart=class-accuracy] rect.bar", {"equals": len(i["per_class"])}),
    ("img.thumbnail", {"equals": len(i["worst_misclassified"])}),
    ("div.missing", {"equals": 0}))
add("imagenet_compare",
    ("ul.differences li", {"min": 1}), ("span.verdict.PASS", {"equals": 1}),
    ("svg[data-chart=topk] circle.point.topk", {"equals": 20}))
c = r("coco_merged")
curves = sum(1 for p in c["pr_curves"]["precision"] if any(v >= 0 for v in p))
bars = sum((k["coco_ap"] is not None) + (k["tflite_ap"] is not None) for k in c["per_class"])
add("coco",
    ("svg[data-chart=pr-curves] polyline.line", {"equals": curves}),
    ("svg[data-chart=class-ap] rect.bar", {"equals": bars}),
    ("img.drawn", {"equals": len(c["examples"])}),
    ("div.missing", {"equals": 0}))
add("coco_compare",
    ("span.verdict.PASS", {"equals": 1}), ("svg[data-chart=pr-curves] polyline.line", {"equals": 4}),
    ("svg[data-chart=class-ap] rect.bar", {"min": 2}))
json.dump(pages, sys.stdout, indent=1)
PY
check "page expectations from the reports" test -s "$TMP/spec.json"
python3 "$R/tests/cli/browser_check.py" "$TMP/spec.json" "$OUT"
check "every page renders in headless Chromium with its charts (screenshots in $OUT)" test $? -eq 0

# Usage and input errors: one line and the documented exit code.
expect_error 2 "--output=PAGE.html is required" "no --output" "$VIEW" "$TMP/bench.json"
expect_error 2 "expected one report" "no report" "$VIEW" --output="$TMP/x.html"
expect_error 3 "not a JSON report" "a corrupt report" bash -c "head -c 100 '$TMP/bench.json' >'$TMP/bad.json'; '$VIEW' '$TMP/bad.json' --output='$TMP/x.html'"
expect_error 3 "two tools" "comparing reports of two tools" "$VIEW" "$TMP/bench.json" --compare="$TMP/coco.json" --output="$TMP/x.html"
check "nothing written by a refused page" test ! -e "$TMP/x.html"

finish "report_view_test"
