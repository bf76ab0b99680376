#!/usr/bin/env bash
# End to end: delegates through benchmark_model. The sample delegate in-process (--use_sample_delegate)
# and as an external plugin (--external_delegate_path) on golden float models with ADD/SUB: outputs
# byte-equal to the reference kernels' (and within the golden tolerance of TFLite's), the partition
# log line, the "Explicitly applied" line, command-line order, failure injection through the plugin's
# options (CPU fallback with a warning, --require_full_delegation, Eval failures), and flag errors.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"
PLUGIN="$TEST_SRCDIR/touchstone/delegates/sample/libsample_delegate_plugin.so"
# XNNPACK (applied by default over the optimized kernels) stays out of these delegation checks.
RUN_FLAGS=(--num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0 --use_xnnpack=false)
one_warning_line() {
  [ "$(grep -c '^WARNING: ' "$TMP/$1.err")" -eq 1 ] && [ "$(grep -vc '^INFO: ' "$TMP/$1.err")" -eq 1 ]
}

# --help lists the registry's flags and the tool's own delegation flag.
"$BIN" --help >"$TMP/help.txt" 2>&1
for flag in --use_sample_delegate=false '--external_delegate_path=""' '--external_delegate_options=""' \
            --max_delegated_partitions=0 --min_nodes_per_partition=0 --require_full_delegation=false \
            "Delegate provider EXTERNAL" "Delegate provider SAMPLE"; do
  check "--help lists $flag" grep -qF -- "$flag" "$TMP/help.txt"
done

require_golden delegates_test

# within_golden <output file> <golden folder>: every output within 1e-5 of its largest magnitude.
within_golden() {
  python3 - "$1" "$S/golden/$2" <<'EOF'
import json, os, struct, sys
data = open(sys.argv[1], "rb").read()
folder = sys.argv[2]
meta = json.load(open(os.path.join(folder, "meta.json")))
offset = 0
for o in meta["outputs"]:
    want = open(os.path.join(folder, o["file"]), "rb").read()
    got = data[offset:offset + len(want)]
    offset += len(want)
    assert o["dtype"] == "float32" and len(got) == len(want), o["name"]
    x = struct.unpack("%df" % (len(got) // 4), got)
    y = struct.unpack("%df" % (len(want) // 4), want)
    m = max([abs(v) for v in y] + [0.0])
    if any(abs(p - q) > 1e-5 * m for p, q in zip(x, y)):
        sys.exit("output %s differs from TFLite's" % o["name"])
sys.exit(0 if offset == len(data) else "extra output bytes")
EOF
}

# Each model: <golden folder> <nodes delegated> <nodes> <partitions> <completely|partially>
CASES=(
  "litert_testdata/add 2 2 1 completely"
  "litert_testdata/multi_add 3 3 1 completely"
  "litert_testdata/reverse_signature_model 1 2 1 partially"
  "litert_testdata/rope 2 15 1 partially"
  "segmentation/deeplabv3 10 70 10 partially"
  "misc/torchaudio_conformer 23 138 23 partially"
)
for entry in "${CASES[@]}"; do
  read -r model delegated total partitions how <<<"$entry"
  mapfile -t ARGS < <(golden_model_args "$model")
  tag="${model//\//_}"
  run "$tag.ref" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_reference_kernels --output_filepath="$TMP/$tag.ref.bin"
  check "$model: reference run" test "$(rc "$tag.ref")" -eq 0 -a -s "$TMP/$tag.ref.bin"
  check "$model: reference matches TFLite" within_golden "$TMP/$tag.ref.bin" "$model"
  line="INFO: SampleDelegate delegate: $delegated nodes delegated out of $total nodes with $partitions partitions."
  for way in sample plugin; do
    if [ "$way" = sample ]; then
      delegate_flags=(--use_sample_delegate); provider=SAMPLE
    else
      delegate_flags=(--external_delegate_path="$PLUGIN"); provider=EXTERNAL
    fi
    run "$tag.$way" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_reference_kernels "${delegate_flags[@]}" \
      --output_filepath="$TMP/$tag.$way.bin"
    check "$model ($way): runs" test "$(rc "$tag.$way")" -eq 0
    check "$model ($way): prints '$line'" grep -qxF "$line" "$TMP/$tag.$way.err"
    if [ "$how" = completely ]; then
      applied="Explicitly applied $provider delegate, and the model graph will be completely executed by the delegate."
    else
      applied="Explicitly applied $provider delegate, and the model graph will be partially executed by the delegate w/ $partitions delegate kernels."
    fi
    check "$model ($way): prints '$applied'" grep -qxF "$applied" "$TMP/$tag.$way.out"
    check "$model ($way): outputs equal the reference kernels'" cmp -s "$TMP/$tag.ref.bin" "$TMP/$tag.$way.bin"
  done
done

ADD=()
mapfile -t ADD < <(golden_model_args litert_testdata/add)
REF="$TMP/litert_testdata_add.ref.bin"

# Partition limits: the common flags reach the in-process delegate, plugin options the plugin.
mapfile -t CONFORMER < <(golden_model_args misc/torchaudio_conformer)
run limit "${CONFORMER[@]}" "${RUN_FLAGS[@]}" --use_sample_delegate --max_delegated_partitions=2
check "--max_delegated_partitions=2 keeps two partitions" \
  grep -qxF "INFO: SampleDelegate delegate: 2 nodes delegated out of 138 nodes with 2 partitions." "$TMP/limit.err"
run limit_plugin "${CONFORMER[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" \
  --external_delegate_options='max_delegated_partitions:3'
check "plugin option max_delegated_partitions:3" \
  grep -qxF "INFO: SampleDelegate delegate: 3 nodes delegated out of 138 nodes with 3 partitions." "$TMP/limit_plugin.err"
run min_nodes "${CONFORMER[@]}" "${RUN_FLAGS[@]}" --use_sample_delegate --min_nodes_per_partition=2
check "--min_nodes_per_partition=2 drops single-node partitions" \
  grep -qxF "INFO: SampleDelegate delegate: 0 nodes delegated out of 138 nodes with 0 partitions." "$TMP/min_nodes.err"
check "a delegate that takes nothing says so" grep -qxF \
  "Though SAMPLE delegate is explicitly applied, the model graph will not be executed by the delegate." "$TMP/min_nodes.out"

# Command-line order: the first delegate named takes the graph, the second finds nothing left.
run order1 "${ADD[@]}" "${RUN_FLAGS[@]}" --use_sample_delegate --external_delegate_path="$PLUGIN"
check "order: SAMPLE first takes the graph" grep -qF "Explicitly applied SAMPLE delegate, and the model graph will be completely" "$TMP/order1.out"
check "order: EXTERNAL second gets nothing" grep -qF "Though EXTERNAL delegate is explicitly applied" "$TMP/order1.out"
check "order: SAMPLE line comes first" test "$(grep -n 'SAMPLE delegate' "$TMP/order1.out" | head -1 | cut -d: -f1)" -lt \
  "$(grep -n 'EXTERNAL delegate' "$TMP/order1.out" | head -1 | cut -d: -f1)"
run order2 "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" --use_sample_delegate
check "order: EXTERNAL first takes the graph" grep -qF "Explicitly applied EXTERNAL delegate, and the model graph will be completely" "$TMP/order2.out"
check "order: SAMPLE second gets nothing" grep -qF "Though SAMPLE delegate is explicitly applied" "$TMP/order2.out"
check "order: both announced" grep -qxF "Going to apply 2 delegates one after another." "$TMP/order2.out"

# Failure injection through the plugin's options.
for stage in init prepare; do
  run "fail_$stage" "${ADD[@]}" "${RUN_FLAGS[@]}" --use_reference_kernels --external_delegate_path="$PLUGIN" \
    --external_delegate_options="error_during_$stage:true" --output_filepath="$TMP/fail_$stage.bin"
  check "error_during_$stage: falls back to the CPU (exit 0)" test "$(rc "fail_$stage")" -eq 0
  check "error_during_$stage: one warning line" one_warning_line "fail_$stage"
  check "error_during_$stage: the warning names the delegate and the cause" \
    grep -qE "^WARNING: Failed to apply EXTERNAL delegate; .*error_during_$stage=true" "$TMP/fail_$stage.err"
  check "error_during_$stage: outputs equal the reference kernels'" cmp -s "$REF" "$TMP/fail_$stage.bin"
  expect_failure 4 "error_during_$stage with --require_full_delegation" "Disallowed CPU fallback detected" \
    "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" \
    --external_delegate_options="error_during_$stage:true" --require_full_delegation
done
expect_failure 4 "error_during_invoke: Invoke fails naming delegate and node" "(SampleDelegate): invoke failed" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" --external_delegate_options="error_during_invoke:true"
check "error_during_invoke: the error names the op index" grep -qE '^ERROR: .*subgraph 0 op [0-9]+ \(SampleDelegate\)' "$TMP/failure.err"

# --require_full_delegation: full passes, partial fails.
mapfile -t PARTIAL < <(golden_model_args litert_testdata/reverse_signature_model)
run full "${ADD[@]}" "${RUN_FLAGS[@]}" --use_sample_delegate --require_full_delegation
check "--require_full_delegation with a full delegation runs" test "$(rc full)" -eq 0
expect_failure 4 "--require_full_delegation with a partial delegation" "Disallowed CPU fallback detected" \
  "${PARTIAL[@]}" "${RUN_FLAGS[@]}" --use_sample_delegate --require_full_delegation
expect_failure 4 "--require_full_delegation with no delegate" "Disallowed CPU fallback detected" \
  "${PARTIAL[@]}" "${RUN_FLAGS[@]}" --require_full_delegation

# Flag and plugin errors.
# Ops inside the delegate kernel in --enable_op_profiling, as TFLite shows them ("Delegate/<op>:<index>"
# rows under "Delegate internal:"), in-process and through the plugin (the profiler crosses the .so).
for how in in_process plugin; do
  if [ "$how" = plugin ]; then D=(--external_delegate_path="$PLUGIN"); else D=(--use_sample_delegate); fi
  run "prof_$how" "${ADD[@]}" "${RUN_FLAGS[@]}" "${D[@]}" --enable_op_profiling
  check "$how: delegate-internal ADD ops are profiled rows" \
    test "$(grep -cE $'^\t +ADD\t.*\tDelegate/ADD:[01]$' "$TMP/prof_$how.out")" -ge 2
done

expect_failure 2 "a bad --external_delegate_options item is named" "'novalue'" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" --external_delegate_options='error_during_init:true;novalue'
expect_failure 2 "options without a plugin" "--external_delegate_options needs --external_delegate_path" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_options='a:1'
expect_failure 3 "a missing plugin file" "no such file" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$TMP/no_plugin.so"
expect_failure 3 "a file that is not a shared object" "cannot load" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$S/golden/litert_testdata/add/meta.json"
expect_failure 3 "a shared object without the plugin symbols" "does not export tflite_plugin_create_delegate" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path=libm.so.6
expect_failure 4 "a plugin that returns no delegate" "unknown option 'error_during_lunch'" \
  "${ADD[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" --external_delegate_options='error_during_lunch:true'

finish "delegates_test"
