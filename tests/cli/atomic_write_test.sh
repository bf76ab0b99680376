#!/usr/bin/env bash
# End to end: every output file of every tool is written whole or not at all (tools/common/output_file.h).
# Each run is stopped halfway through writing one output (the TOUCHSTONE_TEST_STOP_MID_WRITE hook makes
# the writer SIGSTOP itself there: deterministic, no timing), checked, SIGKILLed, checked again: the old
# file is intact (or there is none), and nothing else is left in its folder. Then an unhooked run
# replaces it whole. Also under --delegate_isolation=process, where the child writes and the tool is
# killed. Nothing from ../shared.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"

source "$R/tests/cli/tiny_eval_set.sh"
make_tiny_eval_set "$TMP" || { echo "FAIL: making the tiny models and set"; exit 1; }

# stopped_pid <pid>: the pid of the process (itself or a descendant) stopped by the hook, once there is
# one; empty when the tool exited first or nothing stopped within 60 s.
stopped_pid() {
  local root="$1" i pid
  for i in $(seq 1 600); do
    for pid in "$root" $(pgrep -P "$root"); do
      if [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = "T" ]; then echo "$pid"; return; fi
    done
    kill -0 "$root" 2>/dev/null || return
    sleep 0.1
  done
}

# case_run <name> <old: yes|no> <output file name> <binary> <args...>: see the header. The output's
# folder holds nothing else, so anything left beside it is a stray temporary file.
case_run() {
  local name="$1" old="$2" file="$3" bin="$4"; shift 4
  local dir="$TMP/out_$name"
  mkdir -p "$dir"
  rm -f "$dir"/* "$dir"/.[!.]* 2>/dev/null
  local target="$dir/$file"
  [ "$old" = yes ] && printf 'OLD CONTENTS\n' >"$target"
  local args=("$@")
  args=("${args[@]//@OUT@/$target}")
  TOUCHSTONE_TEST_STOP_MID_WRITE="/$file" "$bin" "${args[@]}" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  local tool=$!
  local stopped
  stopped="$(stopped_pid "$tool")"
  if [ -z "$stopped" ]; then
    fail "$name: never stopped mid-write (exit: $(wait "$tool"; echo $?)); stderr: $(tail -3 "$TMP/$name.err")"
    return
  fi
  local ok=1
  is_old() { printf 'OLD CONTENTS\n' | cmp -s - "$target"; }
  expect_old() {  # expect_old <when>
    if [ "$old" = yes ]; then
      is_old || { fail "$name: $1: $file is not the old file"; ok=0; }
    else
      [ ! -e "$target" ] || { fail "$name: $1: a partial $file exists"; ok=0; }
    fi
  }
  expect_old "stopped mid-write"
  kill -KILL "$tool"
  wait "$tool" 2>/dev/null
  # Under isolation the stopped writer is the child: it dies with the tool (PR_SET_PDEATHSIG).
  for i in $(seq 1 100); do kill -0 "$stopped" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$stopped" 2>/dev/null && { fail "$name: the writing process $stopped outlived the killed tool"; ok=0; kill -KILL "$stopped"; }
  expect_old "after SIGKILL"
  local left
  left="$(ls -A "$dir" | grep -vxF "$file")"
  [ -z "$left" ] || { fail "$name: left behind: $left"; ok=0; }
  # An unhooked run replaces the file whole.
  "$bin" "${args[@]}" >"$TMP/$name.full.out" 2>"$TMP/$name.full.err"
  local rc=$?
  if [ "$rc" -ne 0 ] || [ ! -s "$target" ] || is_old; then
    fail "$name: the full run (exit $rc) did not replace $file; stderr: $(tail -3 "$TMP/$name.full.err")"; ok=0
  fi
  case "$file" in
    *.json) python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$target" ||
              { fail "$name: $file is not whole JSON"; ok=0; } ;;
  esac
  [ "$(ls -A "$dir" | grep -vxF "$file")" = "" ] || { fail "$name: the full run left files beside $file"; ok=0; }
  [ "$ok" -eq 1 ] && pass "$name: killed mid-write of $file: old=$old kept, nothing left behind; full run writes it whole"
}

BM="$R/tools/benchmark_model/benchmark_model"
mapfile -t BM_ARGS < <(tiny_args benchmark_model "$TMP")
mapfile -t ID_ARGS < <(tiny_args inference_diff "$TMP")
mapfile -t IE_ARGS < <(tiny_args imagenet_eval "$TMP")
mapfile -t CE_ARGS < <(tiny_args coco_eval "$TMP")

case_run bm_report yes report.json "$BM" "${BM_ARGS[@]}" --report_json=@OUT@
case_run bm_report_new no report.json "$BM" "${BM_ARGS[@]}" --report_json=@OUT@
case_run bm_result yes result.json "$BM" "${BM_ARGS[@]}" --result_file_path=@OUT@
case_run bm_profile yes profile.csv "$BM" "${BM_ARGS[@]}" --enable_op_profiling --op_profiling_output_mode=csv \
  --op_profiling_output_file=@OUT@
case_run bm_outputs yes outputs.bin "$BM" "${BM_ARGS[@]}" --output_filepath=@OUT@
case_run bm_report_isolated yes report.json "$BM" "${BM_ARGS[@]}" --delegate_isolation=process --report_json=@OUT@
case_run inference_diff yes diff.json "$R/tools/inference_diff/inference_diff" "${ID_ARGS[@]}" --output_file_path=@OUT@
case_run imagenet_eval yes imagenet.json "$R/tools/imagenet_eval/imagenet_eval" "${IE_ARGS[@]}" --output_file_path=@OUT@
case_run coco_eval yes coco.json "$R/tools/coco_eval/coco_eval" "${CE_ARGS[@]}" --output_file_path=@OUT@
case_run coco_detections yes detections.json "$R/tools/coco_eval/coco_eval" "${CE_ARGS[@]}" --write_detections=@OUT@
case_run coco_isolated no coco.json "$R/tools/coco_eval/coco_eval" "${CE_ARGS[@]}" --delegate_isolation=process \
  --output_file_path=@OUT@
case_run make_model yes model.tflite "$R/tools/make_model/make_model" --input_size=32 --num_classes=4 --output=@OUT@

finish "atomic_write_test"
