#!/usr/bin/env bash
# Runs every test: installs missing packages, then `bazel test //...` with ../shared passed in, then
# prints how many golden / op-suite / hostile / model cases ran and a closing "N passed, N failed"
# line counted from the test cases in bazel-testlogs. Exit code: 0 when everything passed.
# Extra arguments go to bazel test (e.g. scripts/test.sh //runtime/...).
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

SHARED_DIR="${TOUCHSTONE_SHARED_DIR:-$(cd .. && pwd)/shared}"
if [ -d "$SHARED_DIR" ]; then
  SHARED_DIR="$(cd "$SHARED_DIR" && pwd)"
else
  if [ "${CI:-}" = "true" ]; then
    echo "ERROR: CI=true but the shared folder ($SHARED_DIR) is missing"
    exit 1
  fi
  echo "NOTE: $SHARED_DIR not found: tests that need real models and data will skip"
  SHARED_DIR=""
fi

TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(//...); fi

bazel test "${TARGETS[@]}" \
  --test_env=TOUCHSTONE_SHARED_DIR="$SHARED_DIR" \
  --test_env=CI="${CI:-}" \
  --test_output=errors
BAZEL_RC=$?

# Read the logs through `bazel info`, not the bazel-testlogs symlink, which another Bazel output base
# (e.g. a sanitizer build) may have repointed.
TESTLOGS="$(bazel info bazel-testlogs 2>/dev/null)"
python3 scripts/test_summary.py "${TESTLOGS:-bazel-testlogs}" "${CI:-}"
SUMMARY_RC=$?

if [ $BAZEL_RC -ne 0 ] || [ $SUMMARY_RC -ne 0 ]; then exit 1; fi
exit 0
