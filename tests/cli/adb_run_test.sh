#!/usr/bin/env bash
# scripts/adb_run end to end over the stand-in adb (tests/adb/fake_adb, on PATH as `adb`; each fake device
# is a folder): benchmark_model on one device (its lines streamed as they come, the JSON report pulled
# back and valid, the device folder removed), imagenet_eval on three images of ../shared's sample set,
# two devices in parallel giving one table of two rows, the frequency-change flag, the tool's exit code
# through an adb shell that always exits 0, --taskset, a timeout and a SIGTERM that stop the tool and
# clean up, and one ERROR line for a missing model, a missing binary and no device.
#
# Under Bazel it runs the host binaries. Outside Bazel it runs whatever binaries a folder holds, e.g. the
# static arm64 ones, which fake_adb runs under qemu-aarch64:
#   TOUCHSTONE_SHARED_DIR=../shared tests/cli/adb_run_test.sh \
#     --binary-dir="$(bazel info --config=aarch64_static bazel-bin)/tools"
# (DIR/benchmark_model/benchmark_model or DIR/benchmark_model, and imagenet_eval likewise; dynamic arm64
# builds need their libraries found under qemu: QEMU_SET_ENV=LD_LIBRARY_PATH=...).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -n "${TEST_SRCDIR:-}" ]; then
  ROOT="$TEST_SRCDIR/touchstone"
else
  TEST_SRCDIR=""
  ROOT="$(cd "$HERE/../.." && pwd)"
fi
source "$ROOT/tests/cli/lib.sh"
BIN_DIR="$ROOT/tools"
for arg in "$@"; do
  case "$arg" in
    --binary-dir=*) BIN_DIR="${arg#--binary-dir=}" ;;
    *) echo "usage: $0 [--binary-dir=DIR]"; exit 2 ;;
  esac
done
tool_binary() {  # tool_binary <tool>: DIR/<tool>/<tool> (a bazel-bin/tools folder) or DIR/<tool>
  if [ -f "$BIN_DIR/$1/$1" ]; then echo "$BIN_DIR/$1/$1"; else echo "$BIN_DIR/$1"; fi
}
BM="$(tool_binary benchmark_model)"
IE="$(tool_binary imagenet_eval)"
ADB_RUN="$ROOT/scripts/adb_run"
SCHEMAS="$ROOT/docs/schemas"
VALIDATE="$ROOT/tests/cli/validate_report.py"
require_shared -d models "SKIP: TOUCHSTONE_SHARED_DIR not set; the models live in ../shared/models" \
  "CI=true but TOUCHSTONE_SHARED_DIR/models is missing"
for b in "$BM" "$IE"; do [ -f "$b" ] || { echo "FAIL: no binary $b"; exit 1; }; done
MODEL="$S/models/classification/mobilenet_v1_0.25_128_quant.tflite"
FAST=(--num_runs=3 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0 --max_secs=60)

# fake_adb on PATH as adb; every case below gets its own fake devices (FAKE_ADB_ROOT).
mkdir -p "$TMP/bin"
ln -sf "$ROOT/tests/adb/fake_adb" "$TMP/bin/adb"
export PATH="$TMP/bin:$PATH"
unset FAKE_ADB_FREQ_CHANGE FAKE_ADB_SHELL_EXIT
devices() {  # devices <case> <serial...>: fresh fake devices for a case
  export FAKE_ADB_ROOT="$TMP/devices/$1"; shift
  export FAKE_ADB_SERIALS="$*"
}
device_tmp_empty() {  # device_tmp_empty <serial>: nothing left in the device's /data/local/tmp
  [ -d "$FAKE_ADB_ROOT/$1/data/local/tmp" ] && [ -z "$(ls -A "$FAKE_ADB_ROOT/$1/data/local/tmp")" ]
}
# adb_run_case <name> <adb_run args...>: stdout to $TMP/<name>.out, stderr to .err, exit code to .rc, each
# stdout line stamped with the seconds since the start in .times ("<seconds> <line>").
adb_run_case() {
  local name="$1"; shift
  "$ADB_RUN" "$@" 2>"$TMP/$name.err" | python3 -c '
import sys, time
start = time.monotonic()
with open(sys.argv[1], "w") as out, open(sys.argv[2], "w") as times:
    for line in sys.stdin:
        out.write(line); out.flush()
        times.write("%.3f %s" % (time.monotonic() - start, line)); times.flush()' "$TMP/$name.out" "$TMP/$name.times"
  echo "${PIPESTATUS[0]}" >"$TMP/$name.rc"
}
# table_row <name> <serial>: the markdown table row of that device in <name>.out
table_row() { grep -E "^\| $2 \|" "$TMP/$1.out"; }

# --- benchmark_model on one device ------------------------------------------------------------------
devices one phone1
adb_run_case one --binary="$BM" --out="$TMP/one_out" benchmark_model -- --graph="$MODEL" "${FAST[@]}" \
  --report_json="$TMP/one/report.json"
check "benchmark_model over adb exits 0 ($(rc one))" test "$(rc one)" -eq 0
check "its lines are streamed to stdout" grep -q "^Inference timings in us: Init: " "$TMP/one.out"
check "the model was pushed into a fresh device folder" grep -qE "^Graph: \[.*/data/local/tmp/adb_run\.[0-9a-f]+/in/mobilenet_v1_0.25_128_quant.tflite\]" "$TMP/one.out"
check "the report came back to the path given" python3 "$VALIDATE" "$SCHEMAS" "$TMP/one/report.json"
check "a copy and the device facts in --out/<serial>" test -s "$TMP/one_out/phone1/report.json" -a -s "$TMP/one_out/phone1/device_facts.json"
check "the device folder is removed" device_tmp_empty phone1
check "INFO line for the removal" grep -qE "^INFO: \[phone1\] removed /data/local/tmp/adb_run\." "$TMP/one.err"
check "device facts: 4 CPUs and a thermal zone before and after, nothing changed" python3 - "$TMP/one_out/phone1/device_facts.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
for when in ("before", "after"):
    cpus = f[when]["cpus"]
    assert sorted(cpus) == ["cpu0", "cpu1", "cpu2", "cpu3"], cpus
    assert all(c["scaling_governor"] == "schedutil" and c["scaling_cur_freq_khz"] == 1800000 and
               c["cpuinfo_max_freq_khz"] == 2400000 for c in cpus.values()), cpus
    assert f[when]["thermal"]["thermal_zone0"] == {"type": "cpu-thermal", "temp": 41500, "temp_c": 41.5}
assert f["model"] == "Fake Phone phone1" and f["uname_m"] and f["exit_code"] == 0
assert f["changed"] == [] and f["flagged"] is False
PY
check "the table row: the report's figures, no flag" python3 - "$TMP/one.out" "$TMP/one/report.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
header = next(l for l in lines if l.startswith("| device |"))
row = next(l for l in lines if l.startswith("| phone1 |"))
cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
r = json.load(open(sys.argv[2]))["latency"]
assert cells["exit"] == "0" and cells["model"] == "Fake Phone phone1", cells
assert abs(float(cells["median us"]) - r["regular"]["median_us"]) < 0.06, (cells, r["regular"]["median_us"])
assert abs(float(cells["avg us"]) - r["regular"]["mean_us"]) < 0.06 and abs(float(cells["p95 us"]) - r["regular"]["p95_us"]) < 0.06
assert cells["init us"] == str(r["init_us"]) and cells["freq/gov changed"] == "" and cells["cur MHz"] == "1800"
PY

# Lines come as the tool prints them, not at its end: a tool that prints, waits 2 s and prints again.
printf '#!/bin/sh\necho "tick 1"\nsleep 2\necho "tick 2"\n' >"$TMP/ticker"
chmod +x "$TMP/ticker"
adb_run_case ticker --binary="$TMP/ticker" --out="$TMP/ticker_out" ticker
check "lines stream as they come (tick 2 arrives about 2 s after tick 1)" python3 - "$TMP/ticker.times" <<'PY'
import sys
t = {l.split(" ", 1)[1].strip(): float(l.split(" ", 1)[0]) for l in open(sys.argv[1])}
assert t["tick 2"] - t["tick 1"] > 1.5, t
PY

# --taskset runs the tool under taskset on the device: a tool that prints the CPUs it may use.
printf '#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\n' >"$TMP/affinity"
chmod +x "$TMP/affinity"
adb_run_case affinity --binary="$TMP/affinity" --out="$TMP/affinity_out" --taskset=1 affinity
check "--taskset=1: the tool runs on CPU 0 only" grep -qE "^Cpus_allowed_list:[[:space:]]+0$" "$TMP/affinity.out"

# --- imagenet_eval on three sample images ------------------------------------------------------------
if shared_has -d data/imagenet_sample; then
  mkdir -p "$TMP/inet/images"
  cp "$S"/data/imagenet_sample/images/img_00[012].jpg "$TMP/inet/images/"
  head -3 "$S/data/imagenet_sample/ground_truth_labels.txt" >"$TMP/inet/labels.txt"
  INET=(--model_file="$MODEL" --ground_truth_images_path="$TMP/inet/images" --ground_truth_labels="$TMP/inet/labels.txt"
        --model_output_labels="$S/data/labels/imagenet_labels_1001.txt")
  devices inet phone1
  adb_run_case inet --binary="$IE" --out="$TMP/inet_out" imagenet_eval -- "${INET[@]}" --output_file_path="$TMP/inet.json"
  check "imagenet_eval over adb exits 0 ($(rc inet))" test "$(rc inet)" -eq 0
  check "its Top-1 line is streamed" grep -qE "^Top-1 Accuracy: [0-9.]+$" "$TMP/inet.out"
  check "its report came back, valid, 3 images" python3 - "$VALIDATE" "$SCHEMAS" "$TMP/inet.json" <<'PY'
import json, subprocess, sys
subprocess.check_call([sys.executable, sys.argv[1], sys.argv[2], sys.argv[3]], stdout=subprocess.DEVNULL)
assert json.load(open(sys.argv[3]))["num_evaluation_runs"] == 3
PY
  check "the table row has top-1, top-5 and images/s of the report" python3 - "$TMP/inet.out" "$TMP/inet.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
header = next(l for l in lines if l.startswith("| device |"))
row = next(l for l in lines if l.startswith("| phone1 |"))
cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
r = json.load(open(sys.argv[2]))
assert abs(float(cells["top-1"]) - r["topk_accuracy"][0]) < 1e-5 and abs(float(cells["top-5"]) - r["topk_accuracy"][4]) < 1e-5, cells
assert float(cells["images/s"]) > 0, cells
PY
  check "the device folder is removed" device_tmp_empty phone1
  if "$IE" --help >/dev/null 2>&1; then  # a binary this host runs: the same hits as a local run
    "$IE" "${INET[@]}" --output_file_path="$TMP/inet_local.json" >/dev/null 2>&1
    check "the same top-k hits as a local run" python3 -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["topk_hits"] == json.load(open(sys.argv[2]))["topk_hits"] else 1)' "$TMP/inet.json" "$TMP/inet_local.json"
  fi
else
  unavailable "CI=true but TOUCHSTONE_SHARED_DIR/data/imagenet_sample is missing" "skip: imagenet_eval: no ../shared/data/imagenet_sample"
fi

# --- Two devices in parallel, one table --------------------------------------------------------------
devices two phoneA phoneB
adb_run_case two -s phoneA -s phoneB --binary="$BM" --out="$TMP/two_out" --table="$TMP/two.md" --csv="$TMP/two.csv" \
  benchmark_model -- --graph="$MODEL" --num_runs=1 --min_secs=1 --warmup_runs=1 --warmup_min_secs=0 --report_json=r.json
check "two devices exit 0 ($(rc two))" test "$(rc two)" -eq 0
check "each device's lines prefixed" test "$(grep -c '^\[phoneA\] Inference timings in us' "$TMP/two.out")" -eq 1 -a \
  "$(grep -c '^\[phoneB\] Inference timings in us' "$TMP/two.out")" -eq 1
check "the --table file: a header and two rows" test "$(grep -c '^| phone[AB] | Fake Phone phone[AB] |' "$TMP/two.md")" -eq 2 -a "$(wc -l <"$TMP/two.md")" -eq 4
check "the same table on stdout" test "$(table_row two phoneA)" = "$(grep '^| phoneA |' "$TMP/two.md")"
check "the CSV: header and two rows" test "$(wc -l <"$TMP/two.csv")" -eq 3
check "each device's report under --out/<serial>" python3 "$VALIDATE" "$SCHEMAS" "$TMP/two_out/phoneA/r.json" "$TMP/two_out/phoneB/r.json"
check "in parallel: both runs started before either ended" python3 - "$TMP/two.err" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
running = [i for i, l in enumerate(lines) if " running benchmark_model " in l]
removed = [i for i, l in enumerate(lines) if " removed /data/local/tmp/" in l]
assert len(running) == 2 and len(removed) == 2 and max(running) < min(removed), lines
PY
check "summary.json lists both" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
sys.exit(0 if [x["serial"] for x in d] == ["phoneA", "phoneB"] and all(x["exit_code"] == 0 and x["figures"]["median us"] for x in d) else 1)' "$TMP/two_out/summary.json"
check "both device folders removed" eval 'device_tmp_empty phoneA && device_tmp_empty phoneB'

# --- The frequency changed during the run -------------------------------------------------------------
devices freq phone1
FAKE_ADB_FREQ_CHANGE=1 adb_run_case freq --binary="$BM" --out="$TMP/freq_out" benchmark_model -- --graph="$MODEL" "${FAST[@]}"
check "a throttled run still exits 0 ($(rc freq))" test "$(rc freq)" -eq 0
check "one WARNING line about the frequency" test "$(grep -c '^WARNING: \[phone1\] CPU frequency or governor changed during the run (cpu0 scaling_cur_freq_khz 1800000 -> 1200000' "$TMP/freq.err")" -eq 1
check "the table flags it" eval 'table_row freq phone1 | grep -qF "| 1800 -> 1200 | 2400 | 41.5 | CHANGED |"'
check "device_facts.json flags it" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
sys.exit(0 if f["flagged"] and len(f["changed"]) == 4 and f["after"]["cpus"]["cpu3"]["scaling_cur_freq_khz"] == 1200000 else 1)' "$TMP/freq_out/phone1/device_facts.json"
check "the report adb_run asked for (no --report_json given) was read" test -s "$TMP/freq_out/phone1/report.json"

# --- The tool's exit code comes through adb shell ----------------------------------------------------
devices failing phone1
adb_run_case failing --binary="$BM" --out="$TMP/failing_out" benchmark_model -- --graph="$S/data/imagenet_sample/ground_truth_labels.txt"
check "a file that is no model: the tool's exit 3 through an adb shell that exits 0 ($(rc failing))" test "$(rc failing)" -eq 3
check "the tool's own ERROR line is streamed" grep -qE "^ERROR: .*ground_truth_labels.txt: not a valid TFLite model" "$TMP/failing.out"
check "the table row says exit 3" eval 'table_row failing phone1 | grep -qF "| 3 |"'
check "the device folder is removed after a failure" device_tmp_empty phone1
printf '#!/bin/sh\necho "about to fail"\nexit 7\n' >"$TMP/exit7"
chmod +x "$TMP/exit7"
adb_run_case exit7 --binary="$TMP/exit7" --out="$TMP/exit7_out" exit7
check "a tool's exit 7 is adb_run's ($(rc exit7))" test "$(rc exit7)" -eq 7
FAKE_ADB_SHELL_EXIT=propagate adb_run_case exit7p --binary="$TMP/exit7" --out="$TMP/exit7_out" exit7
check "also with an adb that propagates the code itself ($(rc exit7p))" test "$(rc exit7p)" -eq 7

# --- A timeout and a SIGTERM stop the tool on the device and clean up -----------------------------------
printf '#!/bin/sh\necho "pid $$"\ni=0\nwhile [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\necho finished\n' >"$TMP/sleeper"
chmod +x "$TMP/sleeper"
tool_pid() { sed -n 's/^pid //p' "$TMP/$1.out" | head -1; }
gone() {  # gone <pid>: that process ended within 5 s
  local i
  for i in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}
devices timeout phone1
adb_run_case timeout --binary="$TMP/sleeper" --out="$TMP/timeout_out" --timeout=2 sleeper
check "--timeout=2: exit 6 ($(rc timeout)) and one ERROR line" eval '[ "$(rc timeout)" -eq 6 ] && [ "$(grep -c "^ERROR: \[phone1\] the run did not finish within --timeout=2 s" "$TMP/timeout.err")" -eq 1 ]'
check "the tool on the device was stopped" gone "$(tool_pid timeout)"
check "the device folder is removed after a timeout" device_tmp_empty phone1

devices term phone1
"$ADB_RUN" --binary="$TMP/sleeper" --out="$TMP/term_out" sleeper >"$TMP/term.out" 2>"$TMP/term.err" &
adb_run_pid=$!
for i in $(seq 100); do grep -q "^pid " "$TMP/term.out" && break; sleep 0.2; done
kill -TERM "$adb_run_pid"
wait "$adb_run_pid"
echo $? >"$TMP/term.rc"
check "SIGTERM: exit 130 ($(rc term))" test "$(rc term)" -eq 130
check "the tool on the device was stopped" gone "$(tool_pid term)"
check "the device folder is removed after SIGTERM" device_tmp_empty phone1

# --- One ERROR line each: a missing model, binary, device ---------------------------------------------
devices errors phone1
expect_error 3 "--graph: no such file or folder: $TMP/nope.tflite" "a missing model" \
  "$ADB_RUN" --binary="$BM" --out="$TMP/err_out" benchmark_model -- --graph="$TMP/nope.tflite"
check "nothing reached the device" test ! -e "$FAKE_ADB_ROOT/phone1"
expect_error 3 "the benchmark_model binary is missing: $TMP/nope_bin" "a missing binary" \
  "$ADB_RUN" --binary="$TMP/nope_bin" --out="$TMP/err_out" benchmark_model -- --graph="$MODEL"
devices none
expect_error 6 "no device attached" "no device" \
  "$ADB_RUN" --binary="$BM" --out="$TMP/err_out" benchmark_model -- --graph="$MODEL"
devices several phoneA phoneB
expect_error 6 "2 devices attached (phoneA, phoneB): pick them with -s" "two devices and no -s" \
  "$ADB_RUN" --binary="$BM" --out="$TMP/err_out" benchmark_model -- --graph="$MODEL"
expect_error 6 "no device 'phoneC' in \`adb devices\`" "an unknown serial" \
  "$ADB_RUN" -s phoneC --binary="$BM" --out="$TMP/err_out" benchmark_model -- --graph="$MODEL"
check "--help" eval '"$ADB_RUN" --help | grep -q "^usage: adb_run"'

finish "adb_run_test"
