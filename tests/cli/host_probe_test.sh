#!/bin/bash
# tools/host_probe: its lines (scripts/bench parses them) and its exit codes.
set -u
PROBE="$TEST_SRCDIR/touchstone/tools/host_probe/host_probe"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

out="$("$PROBE" --duration_ms=5 --buffer_mb=1)"; rc=$?
[ "$rc" -eq 0 ] || fail "plain run exited $rc"
for what in compute memory; do
  unit=GFLOP/s; [ "$what" = memory ] && unit=GB/s
  echo "$out" | grep -Eq "^$what cpu [0-9]+ alone: [0-9]+\.[0-9] $unit$" || fail "no '$what cpu N alone' line"
  echo "$out" | grep -Eq "^$what at once: [0-9]+\.[0-9]( [0-9]+\.[0-9])* $unit$" || fail "no '$what at once' line"
  echo "$out" | grep -Eq "^${what}_at_once_over_alone: [0-9]+\.[0-9]{2}$" || fail "no '${what}_at_once_over_alone' line"
done
# One figure per allowed CPU, alone and at once.
cpus=$(echo "$out" | grep -c "^compute cpu ")
at_once=$(echo "$out" | sed -n 's/^compute at once: \(.*\) GFLOP\/s$/\1/p' | wc -w)
[ "$cpus" -ge 1 ] && [ "$cpus" -eq "$at_once" ] || fail "$cpus CPUs alone but $at_once figures at once"

# Handoff: four lines between the first two CPUs, or one "skipped" line with one CPU.
if [ "$cpus" -ge 2 ]; then
  [ "$(echo "$out" | grep -Ec "^handoff own cpu [0-9]+: [0-9]+\.[0-9] GB/s$")" -eq 2 ] || fail "not two 'handoff own' lines"
  echo "$out" | grep -Eq "^handoff between cpu [0-9]+ and [0-9]+: [0-9]+\.[0-9] GB/s$" || fail "no 'handoff between' line"
  echo "$out" | grep -Eq "^handoff_between_over_own: [0-9]+\.[0-9]{2}$" || fail "no 'handoff_between_over_own' line"
  echo "$out" | grep -Eq "^round trip between cpu [0-9]+ and [0-9]+: [0-9]+ ns$" || fail "no 'round trip' line"
else
  echo "$out" | grep -q "^handoff: skipped, one cpu$" || fail "one CPU but no 'handoff: skipped' line"
fi
one_cpu="$(taskset -c "$(echo "$out" | sed -n 's/^compute cpu \([0-9]*\) alone.*/\1/p' | head -1)" \
  "$PROBE" --duration_ms=2 --buffer_mb=1 2>&1)" || fail "run on one CPU exited non-zero"
echo "$one_cpu" | grep -q "^handoff: skipped, one cpu$" || fail "run on one CPU: no 'handoff: skipped' line"

for bad in --duration_ms=0 --duration_ms=20000 --buffer_mb=0 --handoff_kb=2 --bogus=1; do
  err="$("$PROBE" "$bad" 2>&1 >/dev/null)"; rc=$?
  [ "$rc" -eq 2 ] || fail "$bad exited $rc, not 2"
  [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "^ERROR: " || fail "$bad: not one ERROR line: $err"
done
# Buffers the address space cannot hold: one ERROR line naming the buffer, exit 4, no figures.
for flags in "--buffer_mb=1024" "--buffer_mb=1 --handoff_kb=1048576"; do
  what=memory; [ "$flags" != "--buffer_mb=1024" ] && what=handoff
  [ "$cpus" -lt 2 ] && [ "$what" = handoff ] && continue
  # shellcheck disable=SC2086
  both="$( (ulimit -v 300000; "$PROBE" --duration_ms=2 $flags) 2>&1)"; rc=$?
  [ "$rc" -eq 4 ] || fail "$flags under a 300 MB address space exited $rc, not 4"
  [ "$both" = "ERROR: host_probe: cannot allocate 1048576 KiB for the $what buffer" ] ||
    fail "$flags under a 300 MB address space: not one ERROR line: $both"
done
"$PROBE" --help | grep -q -- "--duration_ms" || fail "--help lists no --duration_ms"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "host_probe_test: all checks passed"
