#!/usr/bin/env bash
# TFLite's custom-delegate guide example ("MyDelegate", ../shared/reference/delegate-guide-example.md)
# compiles unchanged against Touchstone's headers: the code block is taken from the file at test time,
# wrapped in namespace tflite after our include lines, built with g++ into an external delegate plugin
# together with the delegate API's sources, and run through benchmark_model on golden models whose
# ADD/SUB nodes it takes. Outputs must equal the reference kernels'.
#
# The example keeps no storage of its own, so it only works where each partition is a single node:
# tensors written and read inside a multi-node partition get no memory from the interpreter (as in
# TFLite, whose arena plans only the nodes it runs). It also ignores fused activations and broadcasting
# (no_signatures' ADD has a fused RELU, test_min_runtime's broadcasts). The models below are chosen for
# all that.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$R/tools/benchmark_model/benchmark_model"
RUN_FLAGS=(--num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0 --use_reference_kernels)

require_shared -f reference/delegate-guide-example.md \
  "skip: ../shared not available (set TOUCHSTONE_SHARED_DIR); the guide example was not compiled" \
  "CI=true but TOUCHSTONE_SHARED_DIR is not set (or lacks reference/delegate-guide-example.md)"
CXX="${CXX:-g++}"
command -v "$CXX" >/dev/null || { echo "FAIL: no C++ compiler ($CXX)"; exit 1; }

# The example, exactly as the file has it: the first ```cpp block.
awk '/^```cpp$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' \
  "$S/reference/delegate-guide-example.md" >"$TMP/example.inc"
check "the guide's code block was found" grep -q "class MyDelegate : public SimpleDelegateInterface" "$TMP/example.inc"

cat >"$TMP/my_delegate_plugin.cc" <<EOF
// Our include lines.
#include <memory>
#include <vector>

#include "delegates/api/simple_delegate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"

namespace tflite {
#include "example.inc"
}  // namespace tflite

extern "C" {
TfLiteDelegate* tflite_plugin_create_delegate(const char* const*, const char* const*, size_t,
                                              void (*)(const char*)) {
  return tflite::TfLiteDelegateFactory::CreateSimpleDelegate(std::make_unique<tflite::MyDelegate>());
}
void tflite_plugin_destroy_delegate(TfLiteDelegate* delegate) {
  tflite::TfLiteDelegateFactory::DeleteSimpleDelegate(delegate);
}
}  // extern "C"
EOF
PLUGIN="$TMP/libmy_delegate.so"
"$CXX" -std=c++17 -O1 -fPIC -shared -Werror=return-type -DFMT_HEADER_ONLY -I"$R" -I"$TMP" -o "$PLUGIN" \
  "$TMP/my_delegate_plugin.cc" "$R/delegates/api/simple_delegate.cc" "$R/delegates/api/graph_partition_helper.cc" \
  "$R/runtime/c/common.cc" "$R/runtime/kernels/kernel_util.cc" "$R/runtime/logging.cc" -pthread 2>"$TMP/compile.txt"
check "the guide example compiles unchanged against our headers" test $? -eq 0 -a -f "$PLUGIN"
[ -s "$TMP/compile.txt" ] && cat "$TMP/compile.txt"
[ -f "$PLUGIN" ] || { echo "delegate_guide_example_test: $failures failures"; exit 1; }

# <golden folder> <log line counts: delegated total partitions>
CASES=(
  "litert_testdata/simple_add_dynamic_shape 1 1 1"
  "litert_testdata/multi_signatures 1 1 1"
  "litert_testdata/reverse_signature_model 1 2 1"
)
for entry in "${CASES[@]}"; do
  read -r model delegated total partitions <<<"$entry"
  mapfile -t ARGS < <(golden_model_args "$model")
  tag="${model//\//_}"
  "$BIN" "${ARGS[@]}" "${RUN_FLAGS[@]}" --output_filepath="$TMP/$tag.ref.bin" >/dev/null 2>&1
  check "$model: reference run" test $? -eq 0
  "$BIN" "${ARGS[@]}" "${RUN_FLAGS[@]}" --external_delegate_path="$PLUGIN" --output_filepath="$TMP/$tag.my.bin" \
    >"$TMP/$tag.out" 2>"$TMP/$tag.err"
  check "$model: runs with MyDelegate" test $? -eq 0
  check "$model: MyDelegate's partition line" grep -qxF \
    "INFO: MyDelegate delegate: $delegated nodes delegated out of $total nodes with $partitions partitions." "$TMP/$tag.err"
  check "$model: applied" grep -qF "Explicitly applied EXTERNAL delegate" "$TMP/$tag.out"
  check "$model: outputs equal the reference kernels'" cmp -s "$TMP/$tag.ref.bin" "$TMP/$tag.my.bin"
done

finish "delegate_guide_example_test"
