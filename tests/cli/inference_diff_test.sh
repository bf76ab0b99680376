#!/usr/bin/env bash
# End to end: inference_diff. TFLite's lines in order, exit codes, the JSON report (the same figures as
# the lines), one-line errors for bad flags and inputs; with ../shared: reference against reference on
# golden models (every error exactly 0), the sample delegate in-process, by --delegate=sample and as a
# plugin (exact on the reference kernels; small and stable errors with the optimized ones), XNNPACK where
# built (small, stable), and a deliberately wrong plugin (perturb) caught: FAIL, --qualify's defaults and
# the --baseline error gate catch it, no threshold means no verdict (never PASS), and --layerwise names the
# perturbed op. Every report validates against docs/schemas/inference_diff.schema.json.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/inference_diff/inference_diff"
PLUGIN="$TEST_SRCDIR/touchstone/delegates/sample/libsample_delegate_plugin.so"
# A check failure: exit 1, exactly one "FAIL: " line, the last line of stdout, and no ERROR line.
one_fail_line() {
  [ "$(rc "$1")" -eq 1 ] && [ "$(grep -c '^FAIL: ' "$TMP/$1.out")" -eq 1 ] &&
    tail -1 "$TMP/$1.out" | grep -q '^FAIL: ' && ! grep -q '^ERROR: ' "$TMP/$1.err"
}
passed() { [ "$(rc "$1")" -eq 0 ] && [ "$(tail -1 "$TMP/$1.out")" = "PASS" ]; }
# No threshold: the figures and "verdict: none (no thresholds given)", exit 0, never PASS.
no_verdict() {
  [ "$(rc "$1")" -eq 0 ] && [ "$(tail -1 "$TMP/$1.out")" = "verdict: none (no thresholds given)" ] &&
    ! grep -qx 'PASS' "$TMP/$1.out"
}
# Every OutputDiff line says avg_error=0, std_dev=0, and there is at least one.
all_zero() {
  [ "$(grep -c '^OutputDiff\[[0-9]*\]: avg_error=' "$TMP/$1.out")" -ge 1 ] &&
    ! grep '^OutputDiff\[[0-9]*\]: avg_error=' "$TMP/$1.out" | grep -vq ': avg_error=0, std_dev=0$'
}
json() {  # json <file> <python expression over j>: prints the value
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# --help lists TFLite's flags, ours, and the registry's.
"$BIN" --help >"$TMP/help.txt" 2>&1
for flag in '--model_file=""' '--output_file_path=""' --num_runs=50 --num_interpreter_threads=1 '--delegate=""' \
            --seed=1 '--input_layer_value_files=""' --layerwise=false --max_avg_error=-1 --max_abs_error=-1 \
            --min_cosine=-1 --use_reference_kernels=false --require_full_delegation=false --qualify=false \
            --qualify_float_tolerance=-1 '--baseline=""' --allow_config_change=false --max_error_increase_pct=10 \
            --use_sample_delegate=false '--external_delegate_path=""' --max_delegated_partitions=0; do
  check "--help lists $flag" grep -qF -- "$flag" "$TMP/help.txt"
done

# A model Touchstone makes itself (MobileNet-shaped, float).
"$MAKE" --output="$TMP/m.tflite" --input_size=32 --num_classes=10 >/dev/null
run same --model_file="$TMP/m.tflite" --num_runs=3 --use_reference_kernels --output_file_path="$TMP/same.json"
check "reference against reference, no threshold: exit 0, no verdict" no_verdict same
check "the report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/same.json"
run same_checked --model_file="$TMP/m.tflite" --num_runs=3 --use_reference_kernels --max_abs_error=0
check "reference against reference at --max_abs_error=0: exit 0, PASS" passed same_checked
check "TFLite's lines, in order" python3 - "$TMP/same.out" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
want = [r"Num evaluation runs: 3$",
        r"Reference run latency: avg=[0-9.e+]+\(us\), std_dev=[0-9]+\(us\)$",
        r"Test run latency: avg=[0-9.e+]+\(us\), std_dev=[0-9]+\(us\)$",
        r"OutputDiff\[0\]: avg_error=0, std_dev=0$"]
at = [next(i for i, l in enumerate(lines) if re.match(w, l)) for w in want]
sys.exit(0 if at == sorted(at) and at[-1] - at[0] == 3 else "out of order: %s" % at)
EOF
check "reference against reference: every error exactly 0" all_zero same
check "the per-output detail line" grep -qE "^OutputDiff\[0\] '.*' float32 \[1,10\]: max_abs_error=0, mean_relative_error=0, cosine_similarity=1, elements_differing=0 of 30$" "$TMP/same.out"
check "the report is JSON with no verdict" test "$(json "$TMP/same.json" 'j["verdict"]')" = NONE
check "the report: 3 runs, 9 invocations each side" test "$(json "$TMP/same.json" '(j["num_runs"], j["reference"]["latency"]["count"], j["test"]["latency"]["count"])')" = "(3, 9, 9)"
check "the report: the same figures as the lines" test "$(json "$TMP/same.json" '(j["outputs"][0]["avg_error"], j["outputs"][0]["max_abs_error"], j["configuration"]["inputs"][0]["source"])')" = "(0.0, 0.0, 'random')"

# The optimized kernels against the reference: small, stable (the same inputs give the same figures).
run opt1 --model_file="$TMP/m.tflite" --num_runs=3 --min_cosine=0.9999 --output_file_path="$TMP/opt1.json"
run opt2 --model_file="$TMP/m.tflite" --num_runs=3 --min_cosine=0.9999 --output_file_path="$TMP/opt2.json"
check "optimized against reference: PASS at --min_cosine=0.9999" passed opt1
figures='(j["outputs"][0]["avg_error"], j["outputs"][0]["max_abs_error"], j["outputs"][0]["cosine_similarity"])'
check "optimized against reference: the same figures twice" test "$(json "$TMP/opt1.json" "$figures")" = "$(json "$TMP/opt2.json" "$figures")"
echo "   optimized vs reference on the made model: $(grep '^OutputDiff\[0\]: ' "$TMP/opt1.out")"
# --seed changes the inputs; the default sequence is seed 1.
run seed1 --model_file="$TMP/m.tflite" --num_runs=2 --seed=1 --output_file_path="$TMP/seed1.json"
check "--seed=1 is the default" test "$(json "$TMP/seed1.json" 'j["seed"]')" = 1

# Inputs from files: the same bytes every run.
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('3072f', *[((i*37)%200-100)/100.0 for i in range(3072)]))" "$TMP/in.bin"
check "the report names the input" test "$(json "$TMP/same.json" '(j["configuration"]["inputs"][0]["name"], j["configuration"]["inputs"][0]["shape"])')" = "('input', [1, 32, 32, 3])"
run files --model_file="$TMP/m.tflite" --num_runs=2 --use_reference_kernels --layerwise \
  --input_layer_value_files="input:$TMP/in.bin" --output_file_path="$TMP/files.json" --max_abs_error=0
check "inputs from a file: PASS, zero" passed files
check "inputs from a file: the report names the file's content" test "$(json "$TMP/files.json" 'j["configuration"]["inputs"][0]["source"]')" = "file sha256 $(sha256sum "$TMP/in.bin" | cut -c1-12)"
check "--layerwise: every op's tensor compared, none exceeds" grep -qxF "No tensor exceeds a threshold." "$TMP/files.out"
check "--layerwise: the report lists the tensors" test "$(json "$TMP/files.json" 'len(j["layerwise"]["tensors"]) > 5')" = True

# Usage and input errors: one line, documented exit codes, no report left behind.
expect_failure 2 "missing --model_file" "--model_file is required"
expect_failure 2 "unknown flag" "unknown flag --num_rnus" --model_file="$TMP/m.tflite" --num_rnus=3
expect_failure 2 "bad flag value" "--num_runs" --model_file="$TMP/m.tflite" --num_runs=many
expect_failure 2 "--num_runs=0" "--num_runs=0: must be at least 1" --model_file="$TMP/m.tflite" --num_runs=0
expect_failure 2 "--num_interpreter_threads=0" "--num_interpreter_threads=0" --model_file="$TMP/m.tflite" --num_interpreter_threads=0
expect_failure 2 "--qualify with an explicit threshold" "--qualify sets every threshold by output type" \
  --model_file="$TMP/m.tflite" --qualify --max_abs_error=1
expect_failure 2 "--qualify_float_tolerance without --qualify" "--qualify_float_tolerance needs --qualify" \
  --model_file="$TMP/m.tflite" --qualify_float_tolerance=1e-3
expect_failure 2 "--allow_config_change without --baseline" "--allow_config_change needs --baseline" \
  --model_file="$TMP/m.tflite" --allow_config_change
expect_failure 3 "a baseline that is not a report" "not a JSON object" \
  --model_file="$TMP/m.tflite" --num_runs=1 --baseline="$TMP/in.bin"
expect_failure 2 "--seed=-1" "--seed=-1" --model_file="$TMP/m.tflite" --seed=-1
expect_failure 2 "--min_cosine=2" "--min_cosine" --model_file="$TMP/m.tflite" --min_cosine=2
expect_failure 2 "--delegate=hexagon (not in this build)" "--delegate=hexagon: no such delegate in this build (available: " \
  --model_file="$TMP/m.tflite" --delegate=hexagon
expect_failure 2 "--delegate=external (a plugin needs its path)" "--external_delegate_path" \
  --model_file="$TMP/m.tflite" --delegate=external
expect_failure 3 "missing model file" "does_not_exist.tflite" --model_file="$TMP/does_not_exist.tflite"
expect_failure 3 "not a model" "$TMP/in.bin" --model_file="$TMP/in.bin"
expect_failure 3 "unreadable input file" "$TMP/none.bin: cannot read input file for 'input'" \
  --model_file="$TMP/m.tflite" --input_layer_value_files="input:$TMP/none.bin"
head -c 100 "$TMP/in.bin" >"$TMP/short.bin"
expect_failure 3 "input file of the wrong size" "$TMP/short.bin: has 100 bytes but input 'input'" \
  --model_file="$TMP/m.tflite" --input_layer_value_files="input:$TMP/short.bin"
expect_failure 2 "input file for an input the model lacks" "no input named 'nope'" \
  --model_file="$TMP/m.tflite" --input_layer_value_files="nope:$TMP/in.bin"
expect_failure 2 "malformed --input_layer_value_files" "is not of the form name:value" \
  --model_file="$TMP/m.tflite" --input_layer_value_files="justaname"
expect_failure 2 "unwritable --output_file_path" "--output_file_path" \
  --model_file="$TMP/m.tflite" --num_runs=1 --output_file_path="$TMP/no_dir/report.json"
check "no report left behind" test ! -e "$TMP/no_dir/report.json"
expect_failure 4 "--require_full_delegation with no delegate" "Disallowed CPU fallback detected" \
  --model_file="$TMP/m.tflite" --num_runs=1 --require_full_delegation

require_golden inference_diff_test


# Reference against reference with the golden inputs (float, quantized, control
# flow, variables): every output exactly 0. (evaluation:inference_diff_test covers every golden model,
# layer-wise.)
for model in litert_testdata/add litert_testdata/multi_add classification/mobilenet_v1_0.25_128_quant \
             litert_testdata/call_once_mul litert_testdata/nested_while misc/hello_world_int8; do
  mapfile -t ARGS < <(golden_model_args "$model" --model_file)
  tag="${model//\//_}"
  run "$tag" "${ARGS[@]}" --num_runs=2 --use_reference_kernels --max_abs_error=0
  check "$model: reference against reference is exactly 0, PASS at --max_abs_error=0" all_zero "$tag"
  check "$model: PASS" passed "$tag"
done
mapfile -t ADD < <(golden_model_args litert_testdata/add --model_file)
expect_failure 4 "a delegate failing in Invoke" "(SampleDelegate): invoke failed" \
  "${ADD[@]}" --num_runs=1 --external_delegate_path="$PLUGIN" --external_delegate_options='error_during_invoke:true'
check "a delegate failing in Invoke: the error says which interpreter" grep -qF "test interpreter: " "$TMP/failure.err"
expect_failure 4 "a bad plugin option (the plugin returns no delegate)" "option 'perturb': bad value 'lots'" \
  "${ADD[@]}" --num_runs=1 --external_delegate_path="$PLUGIN" --external_delegate_options='perturb:lots'
run add_full "${ADD[@]}" --num_runs=1 --delegate=sample --require_full_delegation --use_reference_kernels --max_abs_error=0
check "--require_full_delegation with a full delegation: PASS" passed add_full

# Random inputs on a quantized model (uint8 over its whole range).
run quant_random --model_file="$S/models/classification/mobilenet_v1_0.25_128_quant.tflite" --num_runs=3 \
  --use_reference_kernels --max_abs_error=0
check "quantized model, random inputs: exactly 0, PASS" passed quant_random
check "quantized model: the step histogram" grep -qE "^OutputDiff\[0\] .* uint8 \[1,1001\]: .*steps: 0=3003 1=0 2=0 >2=0$" "$TMP/quant_random.out"

# The sample delegate: by --delegate=sample, --use_sample_delegate and the plugin. On the reference
# kernels it is exact; on the optimized kernels the errors are small and stable.
mapfile -t CONFORMER < <(golden_model_args misc/torchaudio_conformer --model_file)
for way in delegate flag plugin; do
  case "$way" in
    delegate) flags=(--delegate=sample); provider=SAMPLE ;;
    flag) flags=(--use_sample_delegate); provider=SAMPLE ;;
    plugin) flags=(--external_delegate_path="$PLUGIN"); provider=EXTERNAL ;;
  esac
  run "conformer_$way" "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels "${flags[@]}" --max_abs_error=0
  check "conformer, $way: applied" grep -qxF \
    "Explicitly applied $provider delegate, and the model graph will be partially executed by the delegate w/ 23 delegate kernels." \
    "$TMP/conformer_$way.out"
  check "conformer, $way: exact on the reference kernels (PASS at --max_abs_error=0)" passed "conformer_$way"
done
run stable1 "${CONFORMER[@]}" --num_runs=2 --delegate=sample --min_cosine=0.9999 --output_file_path="$TMP/stable1.json"
run stable2 "${CONFORMER[@]}" --num_runs=2 --delegate=sample --min_cosine=0.9999 --output_file_path="$TMP/stable2.json"
check "conformer, sample + optimized kernels: PASS at --min_cosine=0.9999" passed stable1
check "conformer, sample + optimized kernels: the same figures twice" \
  test "$(json "$TMP/stable1.json" "$figures")" = "$(json "$TMP/stable2.json" "$figures")"
echo "   conformer, sample delegate + optimized kernels: $(grep '^OutputDiff\[0\]: ' "$TMP/stable1.out")"

# XNNPACK, where this build has it: small and stable errors (float: within 1e-4; quantized: a few steps),
# and only when named (TFLite's interpreters apply it by default; here the test interpreter has exactly
# the delegates named).
if grep -E '^  --delegate=' "$TMP/help.txt" | grep -q 'xnnpack'; then
  run xnn1 "${CONFORMER[@]}" --num_runs=2 --delegate=xnnpack --xnnpack_fp32=xnnpack --max_abs_error=1e-4 --min_cosine=0.9999 --output_file_path="$TMP/xnn1.json"
  run xnn2 "${CONFORMER[@]}" --num_runs=2 --delegate=xnnpack --xnnpack_fp32=xnnpack --max_abs_error=1e-4 --min_cosine=0.9999 --output_file_path="$TMP/xnn2.json"
  check "conformer, --delegate=xnnpack: applied" grep -qF "Explicitly applied XNNPACK delegate" "$TMP/xnn1.out"
  check "conformer, --delegate=xnnpack: PASS within 1e-4" passed xnn1
  check "conformer, --delegate=xnnpack: the same figures twice" \
    test "$(json "$TMP/xnn1.json" "$figures")" = "$(json "$TMP/xnn2.json" "$figures")"
  echo "   conformer, XNNPACK: $(grep '^OutputDiff\[0\]: ' "$TMP/xnn1.out"), max_abs_error=$(json "$TMP/xnn1.json" 'j["outputs"][0]["max_abs_error"]')"
  mapfile -t QUANT < <(golden_model_args classification/mobilenet_v1_0.25_128_quant --model_file)
  run xnn_quant "${QUANT[@]}" --num_runs=2 --delegate=xnnpack --xnnpack_8bit=xnnpack --min_cosine=0.99 --output_file_path="$TMP/xnn_quant.json"
  check "mobilenet_v1 quant, --delegate=xnnpack: PASS at --min_cosine=0.99" passed xnn_quant
  echo "   mobilenet_v1_0.25_128_quant, XNNPACK: $(grep '^OutputDiff\[0\]: ' "$TMP/xnn_quant.out"), steps $(json "$TMP/xnn_quant.json" 'j["outputs"][0]["quantized"]["step_histogram"]')"
  run no_xnn "${CONFORMER[@]}" --num_runs=1
  check "XNNPACK is not applied unless named" grep -qF "Test: optimized kernels, 1 thread, no delegate." "$TMP/no_xnn.out"
else
  echo "skip: no XNNPACK delegate in this build"
fi

# A deliberately wrong delegate: the plugin adds 0.01 to the results of one ADD of the conformer. Which
# one: the fourth tensor the sample delegate writes, from a clean --layerwise run's report.
run clean "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels --external_delegate_path="$PLUGIN" --layerwise \
  --max_abs_error=1e-4 --output_file_path="$TMP/clean.json"
check "conformer, exact plugin, --layerwise: PASS" passed clean
NODE="$(json "$TMP/clean.json" '[t["node"] for t in j["layerwise"]["tensors"] if t["delegate"]][3]')"
OP="$(json "$TMP/clean.json" '[t["op"] for t in j["layerwise"]["tensors"] if t["delegate"]][3]')"
TENSOR="$(json "$TMP/clean.json" '[t["name"] for t in j["layerwise"]["tensors"] if t["delegate"]][3]')"
OUTPUT="$(json "$TMP/clean.json" 'j["outputs"][0]["name"]')"
PERTURB=(--external_delegate_path="$PLUGIN" --external_delegate_options="perturb:0.01;perturb_node:$NODE")
# On the reference kernels the delegate must be exact: the output gate catches the bias.
run wrong "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels "${PERTURB[@]}" --max_abs_error=0
check "perturbed plugin: FAIL, one line, exit 1" one_fail_line wrong
check "perturbed plugin: the FAIL line names the output and its figure" grep -qE \
  "^FAIL: OutputDiff\[0\] tensor [0-9]+ '$OUTPUT': max_abs_error=[0-9.e-]+ > --max_abs_error=0$" "$TMP/wrong.out"
# A later normalisation all but hides it in the output (within 1e-4), but not from --layerwise.
run hidden "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels "${PERTURB[@]}" --max_abs_error=1e-4
check "perturbed plugin: the output alone passes at --max_abs_error=1e-4" passed hidden
echo "   output only, --max_abs_error=1e-4: $(grep '^OutputDiff\[0\]: ' "$TMP/hidden.out") -> $(tail -1 "$TMP/hidden.out")"
run wrong_layers "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels "${PERTURB[@]}" --max_abs_error=1e-4 --layerwise \
  --output_file_path="$TMP/wrong_layers.json"
check "perturbed plugin, --layerwise: FAIL, one line, exit 1" one_fail_line wrong_layers
check "perturbed plugin, --layerwise: the FAIL line names op $NODE ($OP) and its tensor" grep -qF \
  "FAIL: op $NODE ($OP, in SampleDelegate kernel node " "$TMP/wrong_layers.out"
check "perturbed plugin, --layerwise: ... its tensor and figure" grep -qE \
  "^FAIL: op $NODE \($OP, in SampleDelegate kernel node [0-9]+\) output tensor [0-9]+ '.*': max_abs_error=0.01[0-9]* > --max_abs_error=0.0001 \(the first diverging op in execution order\)$" \
  "$TMP/wrong_layers.out"
check "perturbed plugin, --layerwise: the FAIL line names the tensor '$TENSOR'" grep -qF "'$TENSOR': max_abs_error=" "$TMP/wrong_layers.out"
check "perturbed plugin, --layerwise: its inputs were still exact, every op before it too" python3 - "$TMP/wrong_layers.json" "$NODE" <<'EOF2'
import json, sys
j = json.load(open(sys.argv[1]))
first = j["layerwise"]["first_divergence"]
assert first["node"] == int(sys.argv[2]) and first["breach"], first
assert first["inputs"], first
for i in first["inputs"]:
    assert i["kind"] in ("compared", "constant", "graph input"), i
    assert i["kind"] != "compared" or i["max_abs_error"] == 0, i
before = j["layerwise"]["tensors"][:first["layer"]]
assert before and all(t["max_abs_error"] == 0 for t in before)
EOF2
check "perturbed plugin, --layerwise: the inputs are printed" grep -qE '^  input tensor [0-9]+ ' "$TMP/wrong_layers.out"
# Without thresholds nothing fails and nothing passes; --layerwise still says where the results start to
# differ.
run wrong_info "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels "${PERTURB[@]}" --layerwise
check "perturbed plugin, no thresholds: no verdict, never PASS" no_verdict wrong_info
check "perturbed plugin, no thresholds: names the first op that differs" grep -qF "First op that differs: op $NODE ($OP" "$TMP/wrong_info.out"
echo "   $(grep '^FAIL: ' "$TMP/wrong_layers.out")"

# The sample plugin perturbing every result by 0.001 (the deliberately wrong delegate of docs/gates.md).
run perturbed_none "${CONFORMER[@]}" --num_runs=1 --external_delegate_path="$PLUGIN" \
  --external_delegate_options="perturb:0.001"
check "perturb:0.001, no threshold: no verdict, exit 0" no_verdict perturbed_none
run perturbed_qualify "${CONFORMER[@]}" --num_runs=1 --external_delegate_path="$PLUGIN" \
  --external_delegate_options="perturb:0.001" --qualify --output_file_path="$TMP/perturbed_qualify.json"
check "perturb:0.001, --qualify: FAIL, one line, exit 1" one_fail_line perturbed_qualify
check "perturb:0.001, --qualify: the FAIL line names the default it broke" grep -qE \
  "^FAIL: OutputDiff\[0\] tensor [0-9]+ '.*': max_relative_error=[0-9.e-]+ > 1e-05 \(--qualify's default\)$" "$TMP/perturbed_qualify.out"
check "--qualify says which defaults it used" grep -qE \
  "^Qualify threshold OutputDiff\[0\] '.*' float32: max \|diff\| <= 1e-05 x max \|reference\|$" "$TMP/perturbed_qualify.out"
check "--qualify: the report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/perturbed_qualify.json"
run exact_qualify "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels --external_delegate_path="$PLUGIN" --qualify \
  --output_file_path="$TMP/exact_qualify.json"
check "the exact sample plugin on the reference kernels: --qualify PASS" passed exact_qualify
run quant_qualify --model_file="$S/models/classification/mobilenet_v1_0.25_128_quant.tflite" --num_runs=2 --qualify
check "a quantized output under --qualify: within one step" grep -qE \
  "^Qualify threshold OutputDiff\[0\] '.*' uint8: max \|diff\| <= 1 step$" "$TMP/quant_qualify.out"
check "optimized kernels on a quantized model: --qualify PASS" passed quant_qualify

# The error gate: the exact plugin's report as the baseline; the same run passes, a perturbed one
# regresses; another delegate configuration is refused.
run gate_same "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels --external_delegate_path="$PLUGIN" \
  --baseline="$TMP/exact_qualify.json" --output_file_path="$TMP/gate_same.json"
check "error gate: the same run PASS, exit 0" test "$(rc gate_same)" -eq 0 -a \
  "$(tail -1 "$TMP/gate_same.out")" = "Gate verdict: PASS (exit code 0)"
check "error gate: the gated report matches its schema" python3 "$VALIDATE" "$SCHEMAS" "$TMP/gate_same.json"
run gate_worse "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels --external_delegate_path="$PLUGIN" \
  --external_delegate_options="perturb:0.001" --baseline="$TMP/exact_qualify.json" --allow_config_change
check "error gate: a perturbed delegate REGRESSION, exit 1" test "$(rc gate_worse)" -eq 1 -a \
  "$(grep -cE "^Error gate: OutputDiff\[0\] '.*': REGRESSION: max_abs_error [0-9.e-]+ vs baseline 0 \(xinf\)" "$TMP/gate_worse.out")" -eq 1
check "error gate: the verdict line says what changed" grep -qxF \
  "Gate verdict: REGRESSION (exit code 1); configuration changed: delegates EXTERNAL (external_delegate_path=$PLUGIN) -> EXTERNAL (external_delegate_path=$PLUGIN, external_delegate_options=perturb:0.001)" "$TMP/gate_worse.out"
# A baseline without figures for the output (NaN there: written as null) cannot decide: NOISY, exit 5.
python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); r["outputs"][0]["max_abs_error"] = None; r["outputs"][0]["avg_error"] = None
json.dump(r, open(sys.argv[2], "w"))' "$TMP/exact_qualify.json" "$TMP/no_figures.json"
run gate_noisy "${CONFORMER[@]}" --num_runs=1 --use_reference_kernels --external_delegate_path="$PLUGIN" \
  --baseline="$TMP/no_figures.json"
check "error gate: a baseline without figures is NOISY, exit 5" test "$(rc gate_noisy)" -eq 5 -a \
  "$(tail -1 "$TMP/gate_noisy.out")" = "Gate verdict: NOISY (exit code 5)"
expect_failure 2 "error gate: another configuration is refused" "the configuration differs from this run's: kernels reference -> optimized" \
  "${CONFORMER[@]}" --num_runs=1 --external_delegate_path="$PLUGIN" --baseline="$TMP/exact_qualify.json"
grep -A3 '^First diverging op' "$TMP/wrong_layers.out" | sed 's/^/   /'

finish "inference_diff_test"
