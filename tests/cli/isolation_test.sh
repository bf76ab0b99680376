#!/usr/bin/env bash
# End to end: --delegate_isolation=process in all four tools (docs/isolation.md). The sample plugin told
# to segfault in Eval (crash_during_invoke) gives one "FAIL: delegate ... killed by signal SIGSEGV (11)"
# line and exit code 4; told to hang (hang_during_invoke) with --delegate_timeout_secs=2, a "timed out"
# FAIL line and exit code 4 within seconds; without isolation the crash kills the tool as before; the
# healthy plugin gives the same results with and without isolation; bad flag values are usage errors.
# Models are the tiny float classifier and detector of tests/common/tiny_models.h: nothing from ../shared.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
PLUGIN="$R/delegates/sample/libsample_delegate_plugin.so"

source "$R/tests/cli/tiny_eval_set.sh"
make_tiny_eval_set "$TMP" || { echo "FAIL: making the tiny models and set"; exit 1; }

TOOLS=(benchmark_model inference_diff imagenet_eval coco_eval)
# run <tool> <name> <extra args...>: stdout, stderr and exit code to $TMP/<name>.{out,err,rc}.
run() {
  local tool="$1" name="$2"; shift 2
  local base=()
  mapfile -t base < <(tiny_args "$tool" "$TMP")
  timeout 120 "$R/tools/$tool/$tool" "${base[@]}" --external_delegate_path="$PLUGIN" "$@" \
    >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
# Results without what varies from run to run (latencies, rates, wall time).
# (benchmark_model logs the isolation flags given: those lines differ by design.)
stable() { grep -vE '^delegate_(isolation|timeout_secs): |latency|Latency|images/s|Wall time|Initialized session|Init parts|Inference timings|ms\.|\(us\)|Peak|memory|Memory|footprint|avg=|count=' "$1"; }

for tool in "${TOOLS[@]}"; do
  BIN="$R/tools/$tool/$tool"
  "$BIN" --help >"$TMP/help.txt" 2>&1
  check "$tool --help lists --delegate_isolation=\"none\"" grep -qF -- '--delegate_isolation="none"' "$TMP/help.txt"
  check "$tool --help lists --delegate_timeout_secs=300" grep -qF -- '--delegate_timeout_secs=300' "$TMP/help.txt"

  # A segfaulting delegate: one FAIL line naming it and the signal, exit code 4.
  run "$tool" crash --external_delegate_options=crash_during_invoke:true --delegate_isolation=process
  line="$(grep '^FAIL: ' "$TMP/crash.err")"
  if [ "$(rc crash)" -eq 4 ] && [ "$(grep -c '^FAIL: ' "$TMP/crash.err")" -eq 1 ] &&
     echo "$line" | grep -qE '^FAIL: delegates? EXTERNAL \(libsample_delegate_plugin\.so\).*: killed by signal SIGSEGV \(11\)'; then
    pass "$tool: crashing delegate -> exit 4, '$line'"
  else
    fail "$tool: crashing delegate: exit $(rc crash), stderr: $(cat "$TMP/crash.err")"
  fi

  # A hanging delegate: killed after --delegate_timeout_secs.
  start=$(date +%s)
  run "$tool" hang --external_delegate_options=hang_during_invoke:true --delegate_isolation=process --delegate_timeout_secs=2
  took=$(( $(date +%s) - start ))
  line="$(grep '^FAIL: ' "$TMP/hang.err")"
  if [ "$(rc hang)" -eq 4 ] && echo "$line" | grep -qE '^FAIL: delegates? EXTERNAL.*: timed out after 2 s' && [ "$took" -lt 60 ]; then
    pass "$tool: hanging delegate -> exit 4 after ${took} s, '$line'"
  else
    fail "$tool: hanging delegate: exit $(rc hang) after ${took} s, stderr: $(cat "$TMP/hang.err")"
  fi

  # Without isolation the crash is the tool's own death, as before (what isolation is for).
  run "$tool" crash_inline --external_delegate_options=crash_during_invoke:true
  check "$tool: crashing delegate without isolation kills the tool with SIGSEGV (exit $(rc crash_inline))" \
    test "$(rc crash_inline)" -eq 139

  # The healthy plugin: the same results with and without isolation.
  run "$tool" healthy_none
  run "$tool" healthy_process --delegate_isolation=process --delegate_timeout_secs=60
  if [ "$(rc healthy_none)" -eq 0 ] && [ "$(rc healthy_process)" -eq 0 ] &&
     diff <(stable "$TMP/healthy_none.out") <(stable "$TMP/healthy_process.out") >"$TMP/diff.txt" &&
     diff <(stable "$TMP/healthy_none.err") <(stable "$TMP/healthy_process.err") >>"$TMP/diff.txt" &&
     grep -q 'Explicitly applied EXTERNAL delegate' "$TMP/healthy_process.out"; then
    pass "$tool: healthy plugin under isolation: same output as without"
  else
    fail "$tool: healthy plugin: exits $(rc healthy_none)/$(rc healthy_process); differences: $(cat "$TMP/diff.txt")"
  fi

  # Bad values are usage errors.
  run "$tool" bad_mode --delegate_isolation=thread
  check "$tool: --delegate_isolation=thread -> exit 2 (got $(rc bad_mode))" \
    bash -c "[ $(rc bad_mode) -eq 2 ] && grep -q '^ERROR: --delegate_isolation=thread' '$TMP/bad_mode.err'"
  run "$tool" bad_timeout --delegate_isolation=process --delegate_timeout_secs=0
  check "$tool: --delegate_timeout_secs=0 -> exit 2 (got $(rc bad_timeout))" test "$(rc bad_timeout)" -eq 2
done

# Output files are the child's: written whole under isolation, absent after a crash.
run benchmark_model files --delegate_isolation=process --report_json="$TMP/isolated.json" --output_filepath="$TMP/isolated.bin"
check "benchmark_model under isolation writes its report and outputs" \
  bash -c "[ $(rc files) -eq 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$TMP/isolated.json' && [ -s '$TMP/isolated.bin' ]"
check "the report records --delegate_isolation=process" python3 -c '
import json, sys
flags = json.load(open(sys.argv[1]))["configuration"]["flags"]
sys.exit(0 if flags.get("delegate_isolation") == "process" else 1)' "$TMP/isolated.json"
check "benchmark_model logs the isolation flag" grep -qxF 'delegate_isolation: [process]' "$TMP/files.out"
run benchmark_model files_plain --report_json="$TMP/plain.json" --output_filepath="$TMP/plain.bin"
check "the same output bytes with and without isolation" cmp -s "$TMP/isolated.bin" "$TMP/plain.bin"
run benchmark_model files_crash --delegate_isolation=process --external_delegate_options=crash_during_invoke:true \
  --report_json="$TMP/crashed.json"
check "no report from a crashed run, no temporary files" \
  bash -c "[ ! -e '$TMP/crashed.json' ] && [ -z \"\$(ls -A '$TMP' | grep '\.tmp\.')\" ]"
# No child outlives the tool.
if pgrep -f 'hang_during[_]invoke' >/dev/null; then fail "a process of a hung run is left"; else pass "no process of a hung run is left"; fi

finish "isolation_test"
