#!/usr/bin/env bash
# Runs each libFuzzer target in tests/fuzz for a while and prints how many inputs each executed.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#
# Builds the targets with `--config=fuzz` (clang-14, -fsanitize=fuzzer,address,undefined) under its own
# Bazel output base (FUZZ_OUTPUT_BASE, default ~/.cache/touchstone-clang, shared with --config=asan),
# seeds each from ../shared (TOUCHSTONE_SHARED_DIR: models, hostile, data; read in place or copied to
# the work folder, never into the repository) and from tests/fuzz/regressions/<target>, and keeps the
# corpus each run grows in FUZZ_WORK (default ${TMPDIR:-/tmp}/touchstone-fuzz), so later runs go on
# from it. A crash, leak, timeout (FUZZ_TIMEOUT s for one input, default 60) or an allocation over
# FUZZ_MALLOC_LIMIT_MB (default 1024) stops that target and leaves the input in
# FUZZ_WORK/artifacts/<target>/; tests/fuzz/regressions/<target>/ is where it goes once fixed.
# FUZZ_KEEP_GOING=1 fuzzes on past findings (libFuzzer's -fork=1 with crashes, timeouts and OOMs
# ignored), saving each in the artifacts folder, for long exploratory runs.
# Exit code: 0 when no target found anything, 1 otherwise (2: build or setup failure).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

SECONDS_PER_TARGET="${1:-60}"
shift $(( $# > 0 ? 1 : 0 ))
ALL_TARGETS=(model_fuzzer coco_json_fuzzer labels_fuzzer image_fuzzer flags_fuzzer)
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=("${ALL_TARGETS[@]}"); fi
if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || [ "$SECONDS_PER_TARGET" -le 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]  (targets: ${ALL_TARGETS[*]})"
  exit 2
fi

if [ "${FUZZ_SKIP_SETUP:-}" != "1" ]; then
  bash scripts/setup.sh || { echo "setup failed"; exit 2; }
fi

source scripts/lib.sh
find_shared_dir 2 "fuzzing from tests/fuzz/regressions only"

OUTPUT_BASE="${FUZZ_OUTPUT_BASE:-$HOME/.cache/touchstone-clang}"
WORK="${FUZZ_WORK:-${TMPDIR:-/tmp}/touchstone-fuzz}"
TIMEOUT="${FUZZ_TIMEOUT:-60}"
MALLOC_LIMIT_MB="${FUZZ_MALLOC_LIMIT_MB:-1024}"
RSS_LIMIT_MB="${FUZZ_RSS_LIMIT_MB:-2560}"
mkdir -p "$WORK"

# Bazel 4 picks the C++ toolchain from CC when its server starts: clang-14, in its own output base.
BAZEL=(env CC=clang-14 bazel --output_base="$OUTPUT_BASE")
LABELS=()
for t in "${TARGETS[@]}"; do LABELS+=("//tests/fuzz:$t"); done
echo "fuzz: building ${TARGETS[*]} (--config=fuzz, output base $OUTPUT_BASE)"
if ! "${BAZEL[@]}" build --config=fuzz "${LABELS[@]}"; then
  echo "ERROR: building the fuzz targets failed"
  exit 2
fi
BIN="$("${BAZEL[@]}" info --config=fuzz bazel-bin 2>/dev/null)"
if [ -z "$BIN" ] || [ ! -d "$BIN/tests/fuzz" ]; then
  echo "ERROR: cannot find the fuzz binaries (bazel info bazel-bin: '$BIN')"
  exit 2
fi

# Seeds, rebuilt every run (cheap): symlinks into ../shared, or copies where the target wants a prefix.
link_files() {  # link_files <dest> <max bytes> <find args...>
  local dest="$1" max="$2"; shift 2
  find "$@" -type f -size -"$((max + 1))"c 2>/dev/null | sort | while read -r f; do
    ln -sf "$f" "$dest/$(echo "${f#"$SHARED_DIR"/}" | tr '/' '_')"
  done
}
make_seeds() {  # make_seeds <target> <dest>
  local target="$1" dest="$2"
  rm -rf "$dest" && mkdir -p "$dest"
  cp "$ROOT"/tests/fuzz/regressions/"$target"/* "$dest"/ 2>/dev/null
  [ -n "$SHARED_DIR" ] || return 0
  case "$target" in
    model_fuzzer)
      # Models up to 256 KiB (all but a handful): bigger ones make every execution slow.
      link_files "$dest" 262144 "$SHARED_DIR/models" "$SHARED_DIR/hostile" \( -name '*.tflite' -o -name '*.bin' \)
      ;;
    coco_json_fuzzer)
      link_files "$dest" 65536 "$SHARED_DIR/data/coco" "$SHARED_DIR/data/coco_eval" -name '*.json'
      # The shared ground truth with its own boxes as scored detections, in the two-document form.
      python3 - "$SHARED_DIR/data/coco/instances_shared.json" "$dest/instances_shared_with_results" <<'EOF'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
results = [dict(a, score=0.5 + 0.01 * (i % 50)) for i, a in enumerate(doc.get("annotations", []))]
with open(sys.argv[2], "w") as out:
    out.write(json.dumps(doc) + "\n#results\n" + json.dumps(results))
EOF
      ;;
    labels_fuzzer)
      link_files "$dest" 65536 "$SHARED_DIR/data" \( -name '*.txt' -o -name '*.csv' \)
      ;;
    image_fuzzer)
      # 13 bytes of preprocessing choices (see tests/fuzz/image_fuzzer.cc), then the image file.
      local i=0
      find "$SHARED_DIR/data" -type f -size -400001c \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.bmp' \) \
          | sort | while read -r f; do
        i=$((i + 1))
        { printf "\\x$(printf %02x $((8 + i % 50)))\\x$(printf %02x $((8 + i % 40)))\\x$(printf %02x $((i % 3)))\\x60\\x00"
          printf '\x00\x00\x00\x00\x00\x00\x00\x00'
          cat "$f"; } >"$dest/$(basename "$f").prefixed"
      done
      ;;
    flags_fuzzer) ;;
  esac
}

any_found=0
summary=()
for target in "${TARGETS[@]}"; do
  binary="$BIN/tests/fuzz/$target"
  corpus="$WORK/corpus/$target"
  seeds="$WORK/seeds/$target"
  artifacts="$WORK/artifacts/$target"
  log="$WORK/$target.log"
  mkdir -p "$corpus" "$artifacts"
  make_seeds "$target" "$seeds"
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s ($(ls "$seeds" | wc -l) seeds, corpus $corpus, log $log)"
  touch "$log.start"
  keep_going=()
  if [ "${FUZZ_KEEP_GOING:-}" = "1" ]; then
    keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  # libFuzzer writes new inputs to the first folder (the kept corpus) and only reads the seeds.
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/bin/llvm-symbolizer-14}" \
  TOUCHSTONE_SHARED_DIR="$SHARED_DIR" \
    "$binary" -max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_LIMIT_MB" \
      -malloc_limit_mb="$MALLOC_LIMIT_MB" -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "${keep_going[@]}" "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')"
  if [ -z "$execs" ]; then execs="$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')"; fi
  units="$(ls "$corpus" | wc -l)"
  new_artifacts="$(find "$artifacts" -type f -newer "$log.start" ! -name "slow-unit-*" | sort)"
  if [ $rc -eq 0 ] && [ -z "$new_artifacts" ]; then
    line="$target: ${execs:-0} execs in ${SECONDS_PER_TARGET}s, corpus $units inputs, nothing found"
  else
    any_found=1
    reports="$(grep -E '^SUMMARY: |ERROR: libFuzzer: (timeout|out-of-memory|deadly signal)' "$log" | sed 's/^==[0-9]*== *//' | sort | uniq -c | sort -rn)"
    # -fork=1 keeps the children's reports out of the log; it counts them.
    reports="$reports$(grep -o 'oom/timeout/crash: [0-9/]*' "$log" | tail -1)"
    line="$target: ${execs:-0} execs, FOUND (exit $rc), inputs: $(echo "$new_artifacts" | grep -c .) in $artifacts"
    echo "$reports" | head -20 | sed 's/^/    /'
    [ -n "${keep_going[*]}" ] || grep -E -A25 '^==[0-9]+==ERROR|runtime error:' "$log" | head -40
  fi
  echo "fuzz: $line"
  summary+=("$line")
done

echo "fuzz summary (${SECONDS_PER_TARGET}s per target):"
for line in "${summary[@]}"; do echo "  $line"; done
exit $any_found
