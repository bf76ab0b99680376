# Sourced by the CLI tests (tests/cli/BUILD.bazel's cli_lib): what they share.
#   source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
# Sets R (the runfiles' touchstone folder), TMP (the test's scratch folder), failures=0, and the paths in
# the runfiles of what many tests use (each lists those it uses in its data): MAKE (make_model), SCHEMAS
# (docs/schemas) and VALIDATE (validate_report.py). A test that needs another `run` or `expect_exit` (a
# binary other than $BIN, extra flags) defines its own after sourcing this.

R="$TEST_SRCDIR/touchstone"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
MAKE="$R/tools/make_model/make_model"
SCHEMAS="$R/docs/schemas"
VALIDATE="$R/tests/cli/validate_report.py"

# One line per check: "ok: <what>", or "FAIL: <what>" counted in $failures.
pass() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
check() {  # check <description> <command...>: the command must succeed
  local what="$1"; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# finish <test name>: the closing "<test name>: N failures" line; exits 0 only when nothing failed.
finish() {
  echo "$1: $failures failures"
  [ "$failures" -eq 0 ]
  exit
}

# run <name> <args...>: runs $BIN, stdout to $TMP/<name>.out, stderr to $TMP/<name>.err, exit code to
# $TMP/<name>.rc; rc <name> prints that exit code.
run() {
  local name="$1"; shift
  "$BIN" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
rc() { cat "$TMP/$1.rc"; }

# The failure of run <name> is one line: exactly one ERROR line, and nothing else but INFO lines.
one_error_line() {
  [ "$(grep -c '^ERROR: ' "$TMP/$1.err")" -eq 1 ] && [ "$(grep -vc '^INFO: ' "$TMP/$1.err")" -eq 1 ]
}

# expect_failure <code> <description> <text in the error> <args...>: run failure <args...> (so $BIN) ends
# with that exit code and one ERROR line (one_error_line) holding the text.
expect_failure() {
  local code="$1" what="$2" text="$3"; shift 3
  run failure "$@"
  if [ "$(rc failure)" -eq "$code" ] && one_error_line failure && grep -qF -- "$text" "$TMP/failure.err"; then
    pass "$what (exit $code: $(grep '^ERROR: ' "$TMP/failure.err"))"
  else
    fail "$what: exit $(rc failure), expected $code with '$text'; stderr: $(cat "$TMP/failure.err")"
  fi
}

# expect_error <code> <stderr substring> <description> <command...>: that exit code and exactly one
# ERROR line, which holds the substring.
expect_error() {
  local code="$1" text="$2" what="$3"; shift 3
  "$@" >"$TMP/out.txt" 2>"$TMP/err.txt"
  local got=$?
  if [ "$got" -eq "$code" ] && [ "$(grep -c '^ERROR: ' "$TMP/err.txt")" -eq 1 ] && grep -qF -- "$text" "$TMP/err.txt"; then
    echo "ok: $what (exit $got: $(grep '^ERROR: ' "$TMP/err.txt"))"
  else
    echo "FAIL: $what: exit $got, expected $code with '$text'; stderr: $(tail -3 "$TMP/err.txt")"
    failures=$((failures + 1))
  fi
}
expect_exit() {  # expect_exit <code> <stderr substring> <description> <args...>: expect_error on $BIN
  local code="$1" text="$2" what="$3"; shift 3
  expect_error "$code" "$text" "$what" "$BIN" "$@"
}

# --- What the test needs but the machine may lack (../shared, a program) ---------------------------
# Without it a test skips, except under CI=true, where every case must run: there it is a failure.

# shared_has <test operator> <path>: ../shared (TOUCHSTONE_SHARED_DIR) is set and has the path, e.g.
# shared_has -d golden.
shared_has() {
  [ -n "${TOUCHSTONE_SHARED_DIR:-}" ] && test "$1" "$TOUCHSTONE_SHARED_DIR/$2"
}

# unavailable <failure under CI> <skip line>: a counted "FAIL: ..." under CI=true, else the skip line;
# the test goes on.
unavailable() {
  if [ "${CI:-}" = "true" ]; then fail "$1"; else echo "$2"; fi
}

# unavailable_exit <failure under CI> <skip line>: ends the test: "FAIL: ..." and exit 1 under CI=true,
# else the skip line and exit 0.
unavailable_exit() {
  if [ "${CI:-}" = "true" ]; then echo "FAIL: $1"; exit 1; fi
  echo "$2"
  exit 0
}

# require_shared <test operator> <path> <skip line> [<failure under CI>]: the prologue of a test that
# needs ../shared: ends it (unavailable_exit) unless shared_has <operator> <path>; then S is ../shared.
require_shared() {
  shared_has "$1" "$2" || unavailable_exit "${4:-CI=true but TOUCHSTONE_SHARED_DIR is not set}" "$3"
  S="$TOUCHSTONE_SHARED_DIR"
}

# require_golden <test name>: the prologue of a test's golden-model part: without ../shared/golden the
# test ends here (a failure under CI=true, else a skip line); then S is ../shared.
require_golden() {
  if ! shared_has -d golden; then
    unavailable "CI=true but TOUCHSTONE_SHARED_DIR is not set" \
      "skip: ../shared not available (set TOUCHSTONE_SHARED_DIR); the golden-model cases did not run"
    finish "$1"
  fi
  S="$TOUCHSTONE_SHARED_DIR"
}

# golden_model_args <golden folder> [<model flag>]: two lines from the folder's meta.json (under
# $S/golden): <model flag>=<its model> (--graph unless given) and --input_layer_value_files=<its inputs>.
golden_model_args() {
  python3 - "$S" "$1" "${2:---graph}" <<'EOF'
import json, os, sys
shared, name, model_flag = sys.argv[1:4]
folder = os.path.join(shared, "golden", name)
meta = json.load(open(os.path.join(folder, "meta.json")))
print(model_flag + "=" + os.path.join(shared, "models", os.path.dirname(name), meta["model"]))
print("--input_layer_value_files=" + ",".join(
    i["name"].replace(":", "::") + ":" + os.path.join(folder, i["file"]) for i in meta["inputs"]))
EOF
}
