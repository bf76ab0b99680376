#!/usr/bin/env bash
# End to end: delegate_qualify against the sample delegate. The plugin, the stable build (opaque API) and
# the classic delegate behind the stable entry point pass (exit 0); with perturb:0.001 the plugin fails
# exactly the float32 cases it takes, and the failing model is localized to its first delegated node;
# told to crash or hang, every delegated item is a CRASH or HANG and the run finishes; reports are valid
# against docs/schemas; bad delegate flags give one ERROR line and a documented exit code; the HTML page
# opens in headless Chromium, which renders its summary (a screenshot goes to the test outputs).
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
BIN="$R/tools/delegate_qualify/delegate_qualify"
PLUGIN="$R/delegates/sample/libsample_delegate_plugin.so"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-$TMP}"
# run <name> <args...>: stdout, stderr and exit code to $TMP/<name>.{out,err,rc}.
run() {
  local name="$1"; shift
  timeout 300 "$BIN" --startup_runs=3 --inference_runs=10 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
valid() { python3 "$R/tests/cli/validate_report.py" "$SCHEMAS" "$1" >/dev/null; }

printf '{ "stable_delegate_loader_settings": { "delegate_path": "%s" } }\n' \
  "$R/delegates/sample/libsample_stable_delegate.so" >"$TMP/opaque.json"
printf '{ "stable_delegate_loader_settings": { "delegate_path": "%s" } }\n' \
  "$R/delegates/sample/libsample_classic_stable_delegate.so" >"$TMP/classic.json"

"$BIN" --help >"$TMP/help.txt" 2>&1
for flag in --report --html --csv --models --only --timeout_secs --max_regression_pct --stable_delegate_settings_file \
            --external_delegate_path --use_gpu; do
  check "--help lists $flag" grep -qF -- "$flag=" "$TMP/help.txt"
done

# The three healthy builds pass, with reports.
for way in plugin opaque classic; do
  case "$way" in
    plugin) D=(--external_delegate_path="$PLUGIN") ;;
    *) D=(--stable_delegate_settings_file="$TMP/$way.json") ;;
  esac
  run "$way" "${D[@]}" --report="$TMP/$way.json.report" --csv="$TMP/$way.csv" --html="$TMP/$way.html"
  check "$way: exit 0 ($(tail -1 "$TMP/$way.out"); $(grep -m1 '^ERROR' "$TMP/$way.err"))" test "$(rc "$way")" -eq 0
  check "$way: Qualification: PASS" grep -qxF "Qualification: PASS" "$TMP/$way.out"
  check "$way: the ADD and SUB cases were delegated" grep -qE 'Summary: [0-9]+ cases and 2 models: (9|1[0-9]) delegated \((9|1[0-9]) passed, 0 failed' "$TMP/$way.out"
  check "$way: the report is valid against its schema" valid "$TMP/$way.json.report"
  check "$way: declined cases are NOT_DELEGATED, never passes" \
    grep -q '^CONV_2D/float32/3x3_stride_1_SAME,case,CONV_2D,float32,3x3 stride 1 SAME,1,NOT_DELEGATED,' "$TMP/$way.csv"
  check "$way: the residual model: 2 of 4 nodes delegated" \
    grep -qF "Model residual_block: PASS, 2 of 4 nodes delegated in 1 partitions" "$TMP/$way.out"
done

# A delegate known to be wrong: exactly the float32 ADD/SUB cases (and the float16-weights case, an ADD) fail.
run perturbed --external_delegate_path="$PLUGIN" --external_delegate_options='perturb:0.001' \
  --report="$TMP/perturbed.json" --sections=conformance,models
check "perturbed: exit 1" test "$(rc perturbed)" -eq 1
check "perturbed: Qualification: FAIL" grep -qxF "Qualification: FAIL" "$TMP/perturbed.out"
failed_cases="$(grep -oE '^FAIL [A-Z_0-9]+/[a-z0-9]+/' "$TMP/perturbed.out" | sort -u | tr '\n' ' ')"
check "perturbed: the failing cases are the float ADD/SUB ones ($failed_cases)" \
  test "$failed_cases" = "FAIL ADD/float32/ FAIL DEQUANTIZE/float16/ FAIL SUB/float32/ "
check "perturbed: each failure has its figures" grep -qE '^FAIL ADD/float32/same_shape: .*max_relative_error=0\.000[0-9]+ > 1e-05' "$TMP/perturbed.out"
check "perturbed: each failure has the command that reproduces it" \
  grep -qF "reproduce: delegate_qualify --external_delegate_path=$PLUGIN --external_delegate_options=perturb:0.001 --only=ADD/float32/same_shape" "$TMP/perturbed.out"
check "perturbed: the failing model is localized" grep -qF "first divergence when node 1 (ADD) is delegated" "$TMP/perturbed.out"
check "perturbed: the report is valid" valid "$TMP/perturbed.json"
"$BIN" --external_delegate_path="$PLUGIN" --external_delegate_options='perturb:0.001' --only=ADD/float32/same_shape \
  >"$TMP/only.out" 2>&1
check "--only reruns the one case (exit 1, one FAIL line)" test "$?" -eq 1 -a "$(grep -c '^FAIL ' "$TMP/only.out")" -eq 1

# Crashes and hangs fail their items; the run goes on to its summary.
run crash --external_delegate_path="$PLUGIN" --external_delegate_options='crash_during_invoke:true' --sections=conformance,models \
  --report="$TMP/crash.json"
check "crash: exit 1 and a summary" test "$(rc crash)" -eq 1 -a -n "$(grep '^Qualification: FAIL' "$TMP/crash.out")"
check "crash: every delegated item crashed ($(grep '^Summary' "$TMP/crash.out"))" \
  grep -qE 'delegated \(0 passed, ([0-9]+) failed, of which \1 crashed and 0 hung\)' "$TMP/crash.out"
check "crash: a CRASH line names the signal" grep -qE '^CRASH ADD/float32/same_shape: killed by signal SIGSEGV \(11\)' "$TMP/crash.out"
check "crash: the report counts them" python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r['crashes']>=9 else 1)" "$TMP/crash.json"
start=$(date +%s)
run hang --external_delegate_path="$PLUGIN" --external_delegate_options='hang_during_invoke:true' --sections=conformance,models \
  --timeout_secs=2
took=$(( $(date +%s) - start ))
check "hang: exit 1 after $took s" test "$(rc hang)" -eq 1 -a "$took" -lt 120
check "hang: HANG lines" grep -qE '^HANG SUB/float32/same_shape: timed out after 2 s' "$TMP/hang.out"
check "hang: every delegated item hung" grep -qE 'of which 0 crashed and ([1-9][0-9]*) hung' "$TMP/hang.out"

# Bad input: one ERROR line and a documented exit code.
bad() {  # bad <code> <what> <text> <args...>
  local code="$1" what="$2" text="$3"; shift 3
  run bad "$@"
  if [ "$(rc bad)" -eq "$code" ] && [ "$(grep -c '^ERROR: ' "$TMP/bad.err")" -eq 1 ] && grep -qF -- "$text" "$TMP/bad.err"; then
    pass "$what (exit $code)"
  else
    fail "$what: exit $(rc bad), stderr: $(cat "$TMP/bad.err")"
  fi
}
printf '{ "stable_delegate_loader_settings": { "delegate_path": "%s" } }\n' "$TMP/none.so" >"$TMP/missing.json"
bad 2 "no delegate flag" "no delegate to qualify"
bad 4 "a stable delegate that does not load" "does not load" --stable_delegate_settings_file="$TMP/missing.json"
bad 3 "a settings file that is not JSON" "not a TFLiteSettings JSON" --stable_delegate_settings_file="$TMP/help.txt"
bad 3 "a plugin path that does not exist" "no such file" --external_delegate_path="$TMP/none.so"
bad 3 "a models folder without models" "no .tflite model" --external_delegate_path="$PLUGIN" --models="$TMP"
bad 2 "an unknown --only" "no case or model has this id" --external_delegate_path="$PLUGIN" --only=NOPE/x/y
bad 2 "an unknown section" "unknown section 'speed'" --external_delegate_path="$PLUGIN" --sections=speed

# The page opens in headless Chromium and renders its summary.
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [ -n "$CHROMIUM" ]; then
  cp "$TMP/opaque.html" "$OUT/qualify.html"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --window-size=1280,1000 \
    --screenshot="$OUT/qualify.png" "file://$TMP/opaque.html" >"$TMP/chromium.log" 2>&1
  check "chromium: screenshot written ($(stat -c %s "$OUT/qualify.png" 2>/dev/null) bytes)" \
    test "$(stat -c %s "$OUT/qualify.png" 2>/dev/null || echo 0)" -gt 20000
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --dump-dom \
    "file://$TMP/opaque.html" >"$TMP/dom.html" 2>>"$TMP/chromium.log"
  check "chromium: the rendered page has the summary with the verdict" \
    grep -qE '<div id="summary" class="PASS"><b>Verdict: PASS</b>' "$TMP/dom.html"
  check "chromium: the rendered page has a table per op" grep -qF '<h3>CONV_2D</h3>' "$TMP/dom.html"
else
  unavailable "CI=true but chromium is not installed (scripts/setup.sh installs it)" \
    "skip: chromium not installed; the HTML page was not rendered"
fi

finish "delegate_qualify_test"
