#!/usr/bin/env bash
# End to end: the XNNPACK delegate through benchmark_model. Its flags (--use_xnnpack, applied by
# default over the optimized kernels and never by default over --use_reference_kernels,
# --use_xnnpack=false, --xnnpack_force_fp16, --xnnpack_weight_cache_file_path, --xnnpack_fp32,
# --num_threads), and
# every golden model of ../shared run with --use_xnnpack against the reference kernels on the same
# inputs (--input_layer_value_files, --output_filepath):
# - float32 outputs within 1e-4 of the largest magnitude in the reference output,
# - 8-bit outputs within 1 step,
# or, where larger, within the difference TensorFlow Lite's own XNNPACK shows against its built-in
# kernels on that output (meta.json's max_abs_diff_between_runtimes; docs/xnnpack.md).
# Prints one line per golden model with what was delegated and the differences measured.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"
RUN_FLAGS=(--num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0)
created() { grep -qxF "INFO: Created TensorFlow Lite XNNPACK delegate for CPU." "$TMP/$1.err"; }
not_created() { ! created "$1"; }

# --help lists the provider's flags.
"$BIN" --help >"$TMP/help.txt" 2>&1
for flag in "Delegate provider XNNPACK" --use_xnnpack=true --xnnpack_force_fp16=false '--xnnpack_weight_cache_file_path=""' \
  '--xnnpack_8bit="auto"' '--xnnpack_fp32="auto"'; do
  check "--help lists $flag" grep -qF -- "$flag" "$TMP/help.txt"
done

# A model Touchstone makes (MobileNet-shaped, float): with --xnnpack_fp32=xnnpack every node is
# XNNPACK's (by default, on an AVX-512 CPU, its float operators stay on the optimized kernels).
"$MAKE" --output="$TMP/m.tflite" --input_size=64 >/dev/null
M=(--graph="$TMP/m.tflite" "${RUN_FLAGS[@]}")
XNN=(--use_xnnpack --xnnpack_fp32=xnnpack)
run explicit "${M[@]}" "${XNN[@]}" --output_filepath="$TMP/m.xnn.bin"
check "--use_xnnpack runs" test "$(rc explicit)" -eq 0
check "--use_xnnpack creates the delegate" created explicit
check "--use_xnnpack: the whole graph is delegated" grep -qxF \
  "Explicitly applied XNNPACK delegate, and the model graph will be completely executed by the delegate." "$TMP/explicit.out"
# Debian's XNNPACK cannot time its operators; the partition's invoke is its delegate-internal row.
run prof "${M[@]}" "${XNN[@]}" --enable_op_profiling
check "--enable_op_profiling: the XNNPACK kernel is a node" grep -qE $'^\t +TfLiteXNNPackDelegate\t' "$TMP/prof.out"
check "--enable_op_profiling: xnn_invoke_runtime is a delegate-internal row" \
  grep -qE $'^\t +xnn_invoke_runtime\t.*\tDelegate/xnn_invoke_runtime:0$' "$TMP/prof.out"
run reference "${M[@]}" --use_reference_kernels --output_filepath="$TMP/m.ref.bin"
check "--use_reference_kernels alone applies no XNNPACK" not_created reference
run default "${M[@]}"
check "applied by default over the optimized kernels" created default
run off "${M[@]}" --use_xnnpack=false
check "--use_xnnpack=false applies nothing" not_created off
check "--use_xnnpack=false runs" test "$(rc off)" -eq 0
run threads "${M[@]}" "${XNN[@]}" --num_threads=2 --output_filepath="$TMP/m.xnn2.bin"
check "--num_threads=2 runs" test "$(rc threads)" -eq 0
# --xnnpack_fp32=auto (the default): where the optimized float kernels run on AVX-512 or AVX+FMA, the float
# operators they have a kernel for stay on them, and a named --use_xnnpack says so.
run auto "${M[@]}" --use_xnnpack --output_filepath="$TMP/m.auto.bin"
check "--xnnpack_fp32=auto runs" test "$(rc auto)" -eq 0
if grep -qxF "INFO: XNNPACK: float32 operators with an optimized kernel stay on the optimized kernels (AVX-512 or AVX+FMA); --xnnpack_fp32=xnnpack gives them to XNNPACK." "$TMP/auto.err"; then
  check "--xnnpack_fp32=auto on AVX-512 or AVX+FMA: the optimized kernels run the float operators" grep -qE \
    "^(Though XNNPACK delegate is explicitly applied, the model graph will not be executed|Explicitly applied XNNPACK delegate, and the model graph will be partially executed)" "$TMP/auto.out"
else
  check "--xnnpack_fp32=auto without AVX-512 or AVX+FMA kernels: the whole graph is delegated" grep -qxF \
    "Explicitly applied XNNPACK delegate, and the model graph will be completely executed by the delegate." "$TMP/auto.out"
fi
run fp32_bad "${M[@]}" --use_xnnpack --xnnpack_fp32=always
check "--xnnpack_fp32=always: exit 2" test "$(rc fp32_bad)" -eq 2
check "--xnnpack_fp32=always: says what is wrong" grep -qF -- "--xnnpack_fp32=always: must be one of auto, xnnpack" "$TMP/fp32_bad.err"

# within <reference file> <delegated file> <float relative tolerance> <steps>: same byte count; the
# made model's single float output compared as described above.
within() {
  python3 - "$@" <<'EOF'
import struct, sys
a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read()
if len(a) != len(b) or not a: sys.exit("sizes %d and %d" % (len(a), len(b)))
x = struct.unpack("<%df" % (len(a) // 4), a); y = struct.unpack("<%df" % (len(b) // 4), b)
m = max(abs(v) for v in x) or 1.0
d = max(abs(p - q) for p, q in zip(x, y)) / m
sys.exit(0 if d <= float(sys.argv[3]) else "relative difference %g" % d)
EOF
}
check "made model: XNNPACK agrees with the reference kernels" within "$TMP/m.ref.bin" "$TMP/m.xnn.bin" 1e-4
check "made model: 2 threads agree with the reference kernels" within "$TMP/m.ref.bin" "$TMP/m.xnn2.bin" 1e-4
check "made model: --xnnpack_fp32=auto agrees with the reference kernels" within "$TMP/m.ref.bin" "$TMP/m.auto.bin" 1e-4

run cache "${M[@]}" "${XNN[@]}" --xnnpack_weight_cache_file_path="$TMP/cache.bin"
check "--xnnpack_weight_cache_file_path is accepted" test "$(rc cache)" -eq 0
check "--xnnpack_weight_cache_file_path warns it is ignored" grep -qF \
  "WARNING: --xnnpack_weight_cache_file_path=$TMP/cache.bin: this XNNPACK (git 2022-02-16) has no weights cache; ignored" \
  "$TMP/cache.err"

# --xnnpack_force_fp16: this XNNPACK has no float16 SOFTMAX, so the made model cannot be forced: the
# delegate fails, the CPU kernels run it (a warning), and --require_full_delegation makes that an error.
run fp16 "${M[@]}" --use_xnnpack --xnnpack_force_fp16 --output_filepath="$TMP/m.fp16.bin"
check "--xnnpack_force_fp16 where XNNPACK cannot: runs on the CPU kernels" test "$(rc fp16)" -eq 0
check "--xnnpack_force_fp16 where XNNPACK cannot: one warning naming the flag" grep -qE \
  "^WARNING: Failed to apply XNNPACK delegate; its nodes run on the CPU kernels: .*--xnnpack_force_fp16" "$TMP/fp16.err"
check "--xnnpack_force_fp16 fallback: outputs are the CPU kernels'" within "$TMP/m.ref.bin" "$TMP/m.fp16.bin" 1e-4
run fp16_full "${M[@]}" --use_xnnpack --xnnpack_force_fp16 --require_full_delegation
check "--xnnpack_force_fp16 with --require_full_delegation: exit 4" test "$(rc fp16_full)" -eq 4

require_golden xnnpack_test


# compare <golden folder> <reference output file> <XNNPACK output file>: prints the measured differences
# and fails when one exceeds its allowance (see the top of this file).
compare() {
  python3 - "$S/golden/$1" "$2" "$3" <<'EOF'
import json, os, struct, sys
folder, ref_path, xnn_path = sys.argv[1:4]
meta = json.load(open(os.path.join(folder, "meta.json")))
ref = open(ref_path, "rb").read(); xnn = open(xnn_path, "rb").read()
fmt = {"float32": "f", "int8": "b", "uint8": "B", "int16": "h", "int32": "i", "int64": "q", "bool": "?"}
size = {"float32": 4, "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8, "bool": 1}
if len(ref) != len(xnn): sys.exit("output sizes differ: %d and %d bytes" % (len(ref), len(xnn)))
off, notes, bad = 0, [], []
for o in meta["outputs"]:
    n = os.path.getsize(os.path.join(folder, o["file"])) // size[o["dtype"]]
    nbytes = n * size[o["dtype"]]
    r = struct.unpack("<%d%s" % (n, fmt[o["dtype"]]), ref[off:off + nbytes])
    x = struct.unpack("<%d%s" % (n, fmt[o["dtype"]]), xnn[off:off + nbytes])
    off += nbytes
    tflite = o.get("max_abs_diff_between_runtimes") or 0
    if o["dtype"] == "float32":
        mag = max([abs(v) for v in r] + [0.0])
        d = max([abs(a - b) for a, b in zip(x, r)] + [0.0])
        allowed = max(1e-4 * mag, tflite)
        notes.append("%s: %.3g (allowed %.3g)" % (o["name"], d, allowed))
    elif o["dtype"] in ("int8", "uint8"):
        d = max([abs(a - b) for a, b in zip(x, r)] + [0])
        allowed = max(1, tflite)
        notes.append("%s: %d steps (allowed %d)" % (o["name"], d, allowed))
    else:
        d = sum(1 for a, b in zip(x, r) if a != b)
        allowed = 0
        notes.append("%s: %d elements differ" % (o["name"], d))
    if d > allowed: bad.append(o["name"])
print("; ".join(notes))
sys.exit("outside the allowance: " + ", ".join(bad) if bad else 0)
EOF
}

# Every golden model of tiers 1-3 that the reference runs from value files.
mapfile -t MODELS < <(python3 -c '
import json, sys
tiers = json.load(open(sys.argv[1]))
print("\n".join(sorted(k for k, v in tiers.items() if v["tier"] <= 3)))' "$S/golden/tiers.json")
# Models that must be delegated to this extent: <folder> <nodes delegated> <of nodes>.
declare -A EXPECTED=(
  [classification/mobilenet_v1_0.25_224_1_default_1]="31 31"
  [classification/mobilenet_v2_1.0_224_quant]="65 66"
  [classification/mobilenet_v2_quantized_1x3x224x224]="83 84"
  [detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata]="61 64"
  [misc/hand_landmark_lite]="167 167"
  [segmentation/deeplabv3]="69 70"
)
compared=0
for model in "${MODELS[@]}"; do
  mapfile -t ARGS < <(golden_model_args "$model")
  tag="${model//\//_}"
  run "$tag.ref" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_reference_kernels --output_filepath="$TMP/$tag.ref.bin"
  if [ "$(rc "$tag.ref")" -ne 0 ]; then
    echo "skip: $model: the reference run needs more than value files ($(grep -m1 '^ERROR' "$TMP/$tag.ref.err"))"
    continue
  fi
  # --xnnpack_8bit=xnnpack, --xnnpack_fp32=xnnpack: XNNPACK's own kernels, which the defaults (auto)
  # leave to the optimized kernels where those run on AVX-512 (VNNI) or AVX2 and the tool runs them.
  run "$tag.xnn" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_reference_kernels --use_xnnpack --xnnpack_8bit=xnnpack \
    --xnnpack_fp32=xnnpack \
    --output_filepath="$TMP/$tag.xnn.bin"
  if [ "$(rc "$tag.xnn")" -ne 0 ] || grep -q "^WARNING: Failed to apply XNNPACK" "$TMP/$tag.xnn.err"; then
    fail "$model: --use_xnnpack: exit $(rc "$tag.xnn"): $(grep -E '^(ERROR|WARNING)' "$TMP/$tag.xnn.err" | head -2)"
    continue
  fi
  line=$(grep -o "TfLiteXNNPackDelegate delegate: .*" "$TMP/$tag.xnn.err" | head -1)
  counts=$(echo "$line" | sed -E 's/.*: ([0-9]+) nodes delegated out of ([0-9]+) nodes.*/\1 \2/')
  diff_line=$(compare "$model" "$TMP/$tag.ref.bin" "$TMP/$tag.xnn.bin" 2>&1)
  status=$?
  echo "  $model: delegated $counts -> $diff_line"
  if [ "$status" -eq 0 ]; then pass "$model: outputs agree"; else fail "$model: $diff_line"; fi
  if [ -n "${EXPECTED[$model]:-}" ]; then
    check "$model: ${EXPECTED[$model]% *} of ${EXPECTED[$model]#* } nodes delegated" test "$counts" = "${EXPECTED[$model]}"
  fi
  compared=$((compared + 1))
done
check "golden models compared: $compared" test "$compared" -ge 40

# Hostile models that once got past the delegate's checks (no subgraph outputs, a node reading its own
# output, a bias scale the reference kernels refuse): the same exit code with and without XNNPACK, and
# never a crash.
for name in multi_add__sem_no_subgraph_outputs pc_conv__sem_no_subgraph_outputs hello_world_int8__sem_op_self_cycle_o1 \
            kws_ref_model__sem_op_self_cycle_o7 multi_add__sem_op_self_cycle_o1 dynamic_shapes__sem_op_self_cycle_o16 \
            hello_world_int8__sem_quant_scale_huge_t1 hello_world_int8__sem_quant_scale_zero_t1; do
  f="$S/hostile/$name.tflite"
  [ -f "$f" ] || continue
  run "h_on" --graph="$f" "${RUN_FLAGS[@]}" --use_xnnpack --num_threads=2
  run "h_off" --graph="$f" "${RUN_FLAGS[@]}" --use_xnnpack=false
  check "hostile $name: exit $(rc h_off) either way" test "$(rc h_on)" -eq "$(rc h_off)" -a "$(rc h_on)" -lt 128
done

finish "xnnpack_test"
