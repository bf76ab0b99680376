# Sourced by the scripts that run tests (test.sh, fuzz.sh, test_aarch64.sh) from the repository's root.

# find_shared_dir <exit code> <what happens without it>: sets SHARED_DIR to ../shared's absolute path
# (TOUCHSTONE_SHARED_DIR, default the folder `shared` beside the repository). When it is missing, under
# CI=true an ERROR line and exit <exit code>; else a NOTE line and SHARED_DIR="".
find_shared_dir() {
  SHARED_DIR="${TOUCHSTONE_SHARED_DIR:-$(cd .. && pwd)/shared}"
  if [ -d "$SHARED_DIR" ]; then
    SHARED_DIR="$(cd "$SHARED_DIR" && pwd)"
    return 0
  fi
  if [ "${CI:-}" = "true" ]; then
    echo "ERROR: CI=true but the shared folder ($SHARED_DIR) is missing"
    exit "$1"
  fi
  echo "NOTE: $SHARED_DIR not found: $2"
  SHARED_DIR=""
}
