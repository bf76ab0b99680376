#!/usr/bin/env bash
# Every model of ../shared/models in benchmark_model's default configuration (the optimized kernels,
# XNNPACK applied by default): a node on the reference kernel must be one the optimized set leaves
# there by design (runtime/kernels/optimized/reference_paths.cc, reported as the node's
# reference_reason). A hot op falling back to the reference kernel (a depthwise multiplier above 1, a
# hybrid fully connected, a quantized convolution the optimized kernel stopped taking) fails here.
# Kernels choose their path in Prepare, so --dry_run (load, build, allocate) is enough.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"
require_shared -d models "SKIP: TOUCHSTONE_SHARED_DIR not set; the models live in ../shared/models" \
  "CI=true but TOUCHSTONE_SHARED_DIR/models is missing"
SHARED="$S"
checked=0
while IFS= read -r model; do
  name="${model#"$SHARED/models/"}"
  report="$TMP/report.json"
  rm -f "$report"
  if ! timeout 120 "$BIN" --graph="$model" --dry_run=true --report_json="$report" >"$TMP/out.txt" 2>&1; then
    # A model the runtime refuses (a hostile or unsupported one) has no kernels to check.
    echo "skip: $name: $(grep -m1 '^ERROR' "$TMP/out.txt")"
    continue
  fi
  checked=$((checked + 1))
  if ! python3 - "$report" "$name" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
gaps = [n for n in report["kernels"]["nodes"] if n["kernel"] == "reference" and not n["reference_reason"]]
assert report["kernels"]["reference_unlisted"] == len(gaps)
for n in gaps:
    print("FAIL: %s: subgraph %d node %d (%s) runs on the reference kernel" % (sys.argv[2], n["subgraph"], n["node"], n["configuration"]))
listed = sorted({n["op"] for n in report["kernels"]["nodes"] if n["kernel"] == "reference" and n["reference_reason"]})
k = report["kernels"]
print("ok: %s: %d optimized, %d reference%s, %d delegated, %d computed at Prepare, %d chosen at the first Invoke" % (
      sys.argv[2], k["optimized"], k["reference"], (" (by design: " + ", ".join(listed) + ")") if listed else "",
      k["delegated"], k["prepare"], k["at_invoke"]))
sys.exit(1 if gaps else 0)
PY
  then
    failures=$((failures + 1))
  fi
done < <(find "$SHARED/models" -type f \( -name '*.tflite' -o -name '*.bin' \) | sort)
echo "kernel_coverage_test: $checked models checked, $failures with gaps"
[ "$checked" -gt 0 ] && [ "$failures" -eq 0 ]
