#!/usr/bin/env bash
# End to end: TFLite stable delegates (--stable_delegate_settings_file) in all four binaries. Our two
# stable builds of the sample delegate (opaque API; and a classic delegate behind TFL_TheStableDelegate)
# give the same results as the run without a delegate (benchmark_model's outputs byte-identical), and
# the "Explicitly applied STABLE_DELEGATE delegate" line; bad settings and objects give one ERROR line
# and a documented exit code. With ../shared: add.bin completely delegated, outputs as the reference's.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"

source "$R/tests/cli/tiny_eval_set.sh"
make_tiny_eval_set "$TMP" || { echo "FAIL: making the tiny models and set"; exit 1; }

settings() {  # settings <file> <delegate_path>
  printf '{\n  "stable_delegate_loader_settings": {\n    "delegate_path": "%s"\n  }\n}\n' "$2" >"$1"
}
settings "$TMP/opaque.json" "$R/delegates/sample/libsample_stable_delegate.so"
settings "$TMP/classic.json" "$R/delegates/sample/libsample_classic_stable_delegate.so"
settings "$TMP/missing.json" "$TMP/no_such_delegate.so"
settings "$TMP/plugin.json" "$R/delegates/sample/libsample_delegate_plugin.so"
echo '{ "stable_delegate_loader_settings": { "delegate_path": ' >"$TMP/broken.json"
echo '{ "delegate": "XNNPACK" }' >"$TMP/no_path.json"

# run <tool> <name> <extra args...>: stdout, stderr and exit code to $TMP/<name>.{out,err,rc}.
run() {
  local tool="$1" name="$2"; shift 2
  local base=()
  mapfile -t base < <(tiny_args "$tool" "$TMP")
  timeout 120 "$R/tools/$tool/$tool" "${base[@]}" --use_xnnpack=false "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
# Results without what varies from run to run, or names the delegate.
results() {
  grep -vE 'latency|Latency|images/s|Wall time|Initialized session|Init parts|Inference timings|ms\.|\(us\)|Peak|memory|Memory|footprint|avg=|count=|delegate|Delegate|stable_delegate_settings_file|export outputs' "$1"
}
one_error() {  # one_error <name> <code> <text>
  [ "$(rc "$1")" -eq "$2" ] && [ "$(grep -c '^ERROR: ' "$TMP/$1.err")" -eq 1 ] && grep -qF -- "$3" "$TMP/$1.err"
}

for tool in benchmark_model inference_diff imagenet_eval coco_eval; do
  "$R/tools/$tool/$tool" --help >"$TMP/help.txt" 2>&1
  check "$tool --help lists --stable_delegate_settings_file" grep -qF -- '--stable_delegate_settings_file=""' "$TMP/help.txt"
  extra=()
  [ "$tool" = benchmark_model ] && extra=(--output_filepath="$TMP/$tool.none.bin")
  run "$tool" none "${extra[@]}"
  for build in opaque classic; do
    extra=()
    [ "$tool" = benchmark_model ] && extra=(--output_filepath="$TMP/$tool.$build.bin")
    run "$tool" "$build" --stable_delegate_settings_file="$TMP/$build.json" "${extra[@]}"
    check "$tool ($build stable build): runs (exit $(rc "$build"); $(grep -m1 '^ERROR' "$TMP/$build.err"))" \
      test "$(rc "$build")" -eq 0
    check "$tool ($build): announces STABLE_DELEGATE" grep -qE 'Explicitly applied STABLE_DELEGATE delegate' \
      "$TMP/$build.out" "$TMP/$build.err"
    check "$tool ($build): same results as without a delegate" diff <(results "$TMP/none.out") <(results "$TMP/$build.out")
    if [ "$tool" = benchmark_model ]; then
      check "$tool ($build): outputs byte-identical" cmp -s "$TMP/$tool.none.bin" "$TMP/$tool.$build.bin"
    fi
  done
  run "$tool" missing --stable_delegate_settings_file="$TMP/missing.json"
  check "$tool: a delegate_path that does not load -> exit 4, one line" one_error missing 4 "does not load"
  run "$tool" not_stable --stable_delegate_settings_file="$TMP/plugin.json"
  check "$tool: an object without TFL_TheStableDelegate -> exit 4" one_error not_stable 4 "does not export TFL_TheStableDelegate"
  run "$tool" broken --stable_delegate_settings_file="$TMP/broken.json"
  check "$tool: a broken settings file -> exit 3" one_error broken 3 "not a TFLiteSettings JSON"
  run "$tool" no_path --stable_delegate_settings_file="$TMP/no_path.json"
  check "$tool: settings without delegate_path -> exit 3" one_error no_path 3 "delegate_path is missing"
  run "$tool" no_file --stable_delegate_settings_file="$TMP/nothing.json"
  check "$tool: a missing settings file -> exit 3" one_error no_file 3 "cannot read the file"
done

if shared_has -f models/litert_testdata/add.bin; then
  ADD="$TOUCHSTONE_SHARED_DIR/models/litert_testdata/add.bin"
  BM="$R/tools/benchmark_model/benchmark_model"
  FAST=(--num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0 --use_xnnpack=false)
  "$BM" --graph="$ADD" "${FAST[@]}" --use_reference_kernels --output_filepath="$TMP/add.ref.bin" >/dev/null 2>&1
  "$BM" --graph="$ADD" "${FAST[@]}" --stable_delegate_settings_file="$TMP/opaque.json" \
    --output_filepath="$TMP/add.stable.bin" >"$TMP/add.out" 2>"$TMP/add.err"
  check "add.bin: TFLite's line for a whole-graph stable delegate" grep -qxF \
    "Explicitly applied STABLE_DELEGATE delegate, and the model graph will be completely executed by the delegate." \
    "$TMP/add.out"
  check "add.bin: outputs byte-identical to the reference kernels'" cmp -s "$TMP/add.ref.bin" "$TMP/add.stable.bin"
else
  unavailable "CI=true but TOUCHSTONE_SHARED_DIR is not set" \
    "skip: ../shared not available (set TOUCHSTONE_SHARED_DIR); the add.bin case did not run"
fi

finish "stable_delegate_test"
