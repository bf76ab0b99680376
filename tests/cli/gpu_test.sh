#!/usr/bin/env bash
# End to end: the GPU delegate (Vulkan) through benchmark_model --use_gpu.
# - --help lists the GPU provider's flags; bad flag values are usage errors (exit 2); --gpu_backend=cl
#   or gl is accepted with one warning.
# - No Vulkan (the loader pointed at nothing, or a loader with no driver): one warning line and the
#   CPU kernels (exit 0, outputs equal to the CPU's), or exit 4 under --require_full_delegation.
# - inference_diff --delegate=gpu against the reference kernels, with thresholds.
# - With Vulkan (lavapipe on CI): golden float models with --gpu_precision_loss_allowed=false within
#   1e-4 of the largest magnitude of each TFLite output (nodes the delegate leaves run on the CPU
#   kernels), with the partition counts expected; float16 within the documented 1e-2 (MobileNet, 3e-2
#   for DeepLab's logits); the quantized MobileNets and hand_landmark within their documented
#   tolerances (docs/gpu.md).
# Without Vulkan the golden cases skip with a message, except under CI=true, where they fail; without
# ../shared (TOUCHSTONE_SHARED_DIR) the model cases skip likewise.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$TEST_SRCDIR/touchstone/tools/benchmark_model/benchmark_model"
MAKE_MODEL="$TEST_SRCDIR/touchstone/tools/make_model/make_model"
DIFF="$TEST_SRCDIR/touchstone/tools/inference_diff/inference_diff"
# Mesa keeps its shader cache under $HOME, which Bazel's sandbox makes read-only (and Mesa then says so
# on stderr); give it a folder of the test's.
export MESA_SHADER_CACHE_DIR="$TMP/mesa_cache"
mkdir -p "$MESA_SHADER_CACHE_DIR"
RUN_FLAGS=(--num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0)
# Nothing on stderr but INFO lines and exactly one line starting with $2 ("ERROR: ", "WARNING: ").
one_line() {
  [ "$(grep -c "^$2" "$TMP/$1.err")" -eq 1 ] && [ "$(grep -vc '^INFO: ' "$TMP/$1.err")" -eq 1 ]
}

"$BIN" --help >"$TMP/help.txt" 2>&1
for flag in --use_gpu=false --gpu_precision_loss_allowed=true --gpu_experimental_enable_quant=true \
            --gpu_inference_for_sustained_speed=false '--gpu_backend=""' --gpu_device_index=-1 \
            "Delegate provider GPU"; do
  check "--help lists $flag" grep -qF -- "$flag" "$TMP/help.txt"
done

# A model of our own (no ../shared needed): the demo MobileNet-shaped float network.
DEMO="$TMP/demo.tflite"
"$MAKE_MODEL" --output="$DEMO" --input_size=32 --num_classes=10 >/dev/null 2>&1
check "make_model writes the demo model" test -s "$DEMO"
run demo_cpu --graph="$DEMO" "${RUN_FLAGS[@]}" --use_reference_kernels --output_filepath="$TMP/demo_cpu.bin"
check "demo model on the CPU" test "$(rc demo_cpu)" -eq 0

# Flag errors.
expect_failure 2 "--gpu_backend=foo is a usage error" "--gpu_backend=foo" \
  --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --gpu_backend=foo
expect_failure 2 "--gpu_device_index=-2 is a usage error" "--gpu_device_index=-2" \
  --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --gpu_device_index=-2

# No Vulkan loader: one warning, CPU kernels, same outputs; exit 4 under --require_full_delegation.
TOUCHSTONE_VULKAN_LOADER=/nonexistent/libvulkan.so.1 run noloader --graph="$DEMO" "${RUN_FLAGS[@]}" \
  --use_reference_kernels --use_gpu --output_filepath="$TMP/noloader.bin"
check "no loader: runs on the CPU (exit 0)" test "$(rc noloader)" -eq 0
check "no loader: one warning line" one_line noloader "WARNING: "
check "no loader: the warning says so" grep -qE '^WARNING: Failed to apply GPU delegate; .*no Vulkan loader' "$TMP/noloader.err"
check "no loader: outputs equal the CPU's" cmp -s "$TMP/demo_cpu.bin" "$TMP/noloader.bin"
TOUCHSTONE_VULKAN_LOADER=/nonexistent/libvulkan.so.1 expect_failure 4 \
  "no loader with --require_full_delegation" "Disallowed CPU fallback detected" \
  --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --require_full_delegation
# A loader with no driver (where a loader is installed).
if [ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/libvulkan.so.1 ] || ldconfig -p 2>/dev/null | grep -q libvulkan.so.1; then
  (
    unset TOUCHSTONE_VULKAN_LOADER
    VK_ICD_FILENAMES="$TMP/no_driver.json" VK_DRIVER_FILES="$TMP/no_driver.json" run nodriver --graph="$DEMO" \
      "${RUN_FLAGS[@]}" --use_reference_kernels --use_gpu --output_filepath="$TMP/nodriver.bin"
  )
  check "no driver: runs on the CPU (exit 0)" test "$(rc nodriver)" -eq 0
  check "no driver: one warning line naming the cause" grep -qE '^WARNING: Failed to apply GPU delegate; .*no Vulkan device' "$TMP/nodriver.err"
  check "no driver: outputs equal the CPU's" cmp -s "$TMP/demo_cpu.bin" "$TMP/nodriver.bin"
fi

# Is there a Vulkan device?
run probe --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu
if ! grep -q '^INFO: GPU delegate: ' "$TMP/probe.err"; then
  unavailable "CI=true but no Vulkan device: $(grep -v '^INFO: ' "$TMP/probe.err" | head -1)" \
    "skip: no Vulkan device ($(grep '^WARNING' "$TMP/probe.err" | head -1)); the GPU cases did not run"
  finish gpu_test
fi
echo "device: $(grep '^INFO: GPU delegate: ' "$TMP/probe.err" | head -1)"
# Per-dispatch GPU times (Vulkan timestamp queries) as delegate-internal rows of --enable_op_profiling,
# where the queue has timestamps (lavapipe does).
run gpu_prof --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --enable_op_profiling
check "--enable_op_profiling: the GPU's dispatches are delegate-internal rows" \
  test "$(grep -cE $'^\t +(CONV_2D|DEPTHWISE_CONV_2D)\t.*\tDelegate/(CONV_2D|DEPTHWISE_CONV_2D):[0-9]+$' "$TMP/gpu_prof.out")" -ge 4
check "the device is named once" test "$(grep -c '^INFO: GPU delegate: .*Vulkan device' "$TMP/probe.err")" -eq 1

# The demo model, fully delegated, float32 and float16.
run demo_f32 --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --gpu_precision_loss_allowed=false --require_full_delegation \
  --output_filepath="$TMP/demo_f32.bin"
check "demo: fully delegated (float32)" test "$(rc demo_f32)" -eq 0
check "demo: 'completely executed' line" grep -qxF \
  "Explicitly applied GPU delegate, and the model graph will be completely executed by the delegate." "$TMP/demo_f32.out"
run demo_cl --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --gpu_backend=cl --gpu_inference_for_sustained_speed
check "--gpu_backend=cl: runs (exit 0)" test "$(rc demo_cl)" -eq 0
check "--gpu_backend=cl: one warning" one_line demo_cl "WARNING: --gpu_backend=cl"
run demo_index --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --gpu_device_index=0
check "--gpu_device_index=0 runs on that device" grep -qE '^INFO: GPU delegate: .*Vulkan device 0;' "$TMP/demo_index.err"
run demo_badindex --graph="$DEMO" "${RUN_FLAGS[@]}" --use_gpu --gpu_device_index=64
check "--gpu_device_index=64: falls back with one warning naming the flag" \
  grep -qE '^WARNING: Failed to apply GPU delegate; .*--gpu_device_index=64' "$TMP/demo_badindex.err"

require_golden gpu_test

# within_golden <outputs file> <golden folder> <float tolerance> <integer steps> [top1]: every float
# output within tolerance * (its largest magnitude), every integer output within the steps, and with
# top1 the same largest element (class) as TFLite's; prints the errors.
within_golden() {
  python3 - "$1" "$S/golden/$2" "$3" "$4" "${5:-}" <<'EOF'
import json, os, struct, sys
data = open(sys.argv[1], "rb").read()
folder, tol, steps, top1 = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "top1"
meta = json.load(open(os.path.join(folder, "meta.json")))
fmt = {"float32": "f", "uint8": "B", "int8": "b", "int16": "h", "int32": "i", "int64": "q", "bool": "?"}
offset, ok, report = 0, True, []
for o in meta["outputs"]:
    want = open(os.path.join(folder, o["file"]), "rb").read()
    got = data[offset:offset + len(want)]
    offset += len(want)
    if len(got) != len(want) or o["dtype"] not in fmt:
        print("output %s: size or type differs" % o["name"]); sys.exit(1)
    f = fmt[o["dtype"]]
    n = len(want) // struct.calcsize(f)
    x, y = struct.unpack("<%d%s" % (n, f), got), struct.unpack("<%d%s" % (n, f), want)
    worst = max([abs(p - q) for p, q in zip(x, y)] + [0])
    if o["dtype"] == "float32":
        m = max([abs(v) for v in y] + [0.0])
        rel = worst / m if m > 0 else worst
        report.append("%s %.2e" % (o["name"], rel))
        ok = ok and rel <= tol
    else:
        report.append("%s %d steps" % (o["name"], worst))
        ok = ok and worst <= steps
    if top1:
        same = x.index(max(x)) == y.index(max(y))
        report.append("top-1 %s" % ("same" if same else "differs"))
        ok = ok and same
print("errors: " + ", ".join(report))
sys.exit(0 if ok and offset == len(data) else 1)
EOF
}

# <golden folder> <precision: f32|f16> <float tolerance> <integer steps> <top1|-> <nodes delegated>
# <nodes> <partitions>. Tolerances: docs/gpu.md ("Measured errors").
CASES=(
  "misc/hello_world_float f32 1e-4 0 - 3 3 1"
  "misc/hello_world_float f16 1e-2 0 - 3 3 1"
  "classification/mobilenet_v1_0.25_224_1_default_1 f32 1e-4 0 top1 31 31 1"
  "classification/mobilenet_v1_0.25_224_1_default_1 f16 6e-2 0 top1 31 31 1"
  "segmentation/deeplabv3 f32 1e-4 0 - 70 70 1"
  "segmentation/deeplabv3 f16 1e-2 0 - 70 70 1"
  "misc/ad01_fp32 f32 1e-4 0 - 10 10 1"
  "litert_testdata/multi_add f32 1e-4 0 - 3 3 1"
  "misc/hand_landmark_lite f32 1e-4 0 - 167 167 1"
  "misc/hand_landmark_lite f16 1e-2 0 - 167 167 1"
  "classification/mobilenet_v1_0.25_224_quant f32 0 8 - 31 31 1"
  "classification/mobilenet_v1_0.25_224_quant f16 0 8 - 31 31 1"
  "classification/mobilenet_v2_1.0_224_quant f32 0 4 - 66 66 1"
  "classification/mobilenet_v2_1.0_224_quant f16 0 4 - 66 66 1"
)
for entry in "${CASES[@]}"; do
  read -r model precision tol steps top1 delegated total partitions <<<"$entry"
  [ "$top1" = "-" ] && top1=""
  mapfile -t ARGS < <(golden_model_args "$model")
  tag="${model//\//_}.$precision"
  loss=false
  [ "$precision" = f16 ] && loss=true
  run "$tag" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_gpu --gpu_precision_loss_allowed=$loss \
    --output_filepath="$TMP/$tag.bin"
  check "$model ($precision): runs" test "$(rc "$tag")" -eq 0
  line="INFO: TfLiteGpuDelegateV2 delegate: $delegated nodes delegated out of $total nodes with $partitions partitions."
  check "$model ($precision): '$line'" grep -qxF "$line" "$TMP/$tag.err"
  errors="$(within_golden "$TMP/$tag.bin" "$model" "$tol" "$steps" "$top1")"
  check "$model ($precision): within $tol / $steps steps of TFLite ($errors)" \
    within_golden "$TMP/$tag.bin" "$model" "$tol" "$steps" "$top1"
done

# Every tier-1 golden model (float; tiers.json) in float32: within 1e-4 of TFLite, integer outputs
# exact, whatever the delegate takes (the rest runs on the CPU kernels). Every tier-2 model (quantized,
# mixed) must run; its errors are printed for docs/gpu.md.
mapfile -t TIER1 < <(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print("\n".join(sorted(k for k,v in t.items() if v["tier"]==1)))' "$S/golden/tiers.json")
mapfile -t TIER2 < <(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print("\n".join(sorted(k for k,v in t.items() if v["tier"]==2)))' "$S/golden/tiers.json")
for model in "${TIER1[@]}"; do
  mapfile -t ARGS < <(golden_model_args "$model")
  tag="tier1.${model//\//_}"
  run "$tag" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_gpu --gpu_precision_loss_allowed=false --output_filepath="$TMP/$tag.bin"
  partitions="$(grep -h '^INFO: TfLiteGpuDelegateV2 delegate: ' "$TMP/$tag.err" | head -1 | sed 's/^INFO: TfLiteGpuDelegateV2 delegate: //')"
  errors="$(within_golden "$TMP/$tag.bin" "$model" 1e-4 0)"
  check "tier 1 $model: runs (${partitions:-no partition line}) and is within 1e-4 ($errors)" \
    within_golden "$TMP/$tag.bin" "$model" 1e-4 0
done
for model in "${TIER2[@]}"; do
  mapfile -t ARGS < <(golden_model_args "$model")
  tag="tier2.${model//\//_}"
  run "$tag" "${ARGS[@]}" "${RUN_FLAGS[@]}" --use_gpu --gpu_precision_loss_allowed=false --output_filepath="$TMP/$tag.bin"
  partitions="$(grep -h '^INFO: TfLiteGpuDelegateV2 delegate: ' "$TMP/$tag.err" | head -1 | sed 's/^INFO: TfLiteGpuDelegateV2 delegate: //')"
  check "tier 2 $model: runs (${partitions:-no partition line}; $(within_golden "$TMP/$tag.bin" "$model" 0 0))" \
    test "$(rc "$tag")" -eq 0
done

# inference_diff against the reference kernels (TFLite's random inputs): it reports the delegate's
# errors and gates on them.
diff_case() {  # diff_case <name> <golden folder> <flags...>
  local name="$1" model="$2"; shift 2
  "$DIFF" --model_file="$S/models/$model.tflite" --num_runs=1 --delegate=gpu "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  local code=$?
  check "inference_diff $name: PASS ($(grep -h '^OutputDiff\[0\] ' "$TMP/$name.out" | head -1 | cut -c1-160))" \
    test "$code" -eq 0 -a "$(tail -1 "$TMP/$name.out")" = PASS
}
diff_case mobilenet_f32 classification/mobilenet_v1_0.25_224_1_default_1 --gpu_precision_loss_allowed=false \
  --max_abs_error=1e-4 --layerwise
diff_case mobilenet_f16 classification/mobilenet_v1_0.25_224_1_default_1 --min_cosine=0.999
diff_case mobilenet_v2_quant classification/mobilenet_v2_1.0_224_quant --max_abs_error=4

# A graph the delegate takes only part of: rope (CAST, SIN, COS stay on the CPU, or not), with the
# CPU kernels in between: outputs still within 1e-4.
mapfile -t ROPE < <(golden_model_args litert_testdata/rope)
run rope "${ROPE[@]}" "${RUN_FLAGS[@]}" --use_gpu --gpu_precision_loss_allowed=false --output_filepath="$TMP/rope.bin"
check "rope: runs" test "$(rc rope)" -eq 0
check "rope: within 1e-4 of TFLite ($(within_golden "$TMP/rope.bin" litert_testdata/rope 1e-4 0))" \
  within_golden "$TMP/rope.bin" litert_testdata/rope 1e-4 0

finish gpu_test
