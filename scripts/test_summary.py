#!/usr/bin/env python3
"""Summarises a test run for scripts/test.sh: the shared-data suites' case counts (lines
"TOUCHSTONE_CASES <suite> ran=N of=M" printed by those tests; a suite printed by several test targets,
such as hostile_cli once per binary, adds up), and a closing "N passed, N failed" line counted from the
GoogleTest cases in every test.xml of the plain run, of the sanitizer run (--sanitizer_logs) and one
case per fuzz target (--fuzz_log, the "fuzz: <target>: ..." lines of scripts/fuzz.sh), and the arm64 pass
(--aarch64_logs, scripts/test_aarch64.sh's folder: the test logs of each qemu CPU model, and one case per
"ok:"/"FAIL:" line of its checks.log).

    test_summary.py TESTLOGS [CI] [--sanitizer_logs=DIR] [--sanitizer_suites=a,b] [--fuzz_log=FILE]
                    [--aarch64_logs=DIR]
    test_summary.py --only_aarch64 --aarch64_logs=DIR [CI]

Under CI=true a required suite that ran fewer cases than it holds, or did not run at all, is a failure:
every REQUIRED_SUITES in the plain run, and the --sanitizer_suites in the sanitizer run."""
import os
import re
import sys
import xml.etree.ElementTree as ET

REQUIRED_SUITES = ["golden", "hostile", "hostile_cli", "model_consistency", "models", "opsuite", "opsuite_sweep",
                   "opsuite_sweep_optimized", "opsuite_sweep_xnnpack"]
# What the arm64 pass must run in full on each CPU model, and on the last one (scripts/test_aarch64.sh).
AARCH64_SUITES = ["golden", "opsuite"]
AARCH64_LAST_CPU_SUITES = ["hostile_cli"]
# Sharded runs merged against single runs (docs/cluster.md).
REQUIRED_SUITES += ["shard_merge_imagenet", "shard_merge_coco", "shard_merge_inference_diff"]


def read_logs(logs):
    """Returns (passed, failed, skipped, {suite: (ran, total)}) for one bazel-testlogs folder."""
    passed = failed = skipped = 0
    suites = {}
    for root, dirs, files in os.walk(logs, followlinks=True):
        # A sharded target's own test.log and test.xml merge its shards' (shard_N_of_M/), read below.
        if any(d.startswith("shard_") for d in dirs):
            continue
        if "test.xml" in files:
            try:
                tree = ET.parse(os.path.join(root, "test.xml"))
            except ET.ParseError:
                failed += 1
                continue
            for case in tree.iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    failed += 1
                elif case.find("skipped") is not None or case.get("result") == "skipped":
                    skipped += 1
                else:
                    passed += 1
        if "test.log" in files:
            # One test target's counts per suite (a rerun log repeats them); targets add up.
            seen = {}
            with open(os.path.join(root, "test.log"), errors="replace") as f:
                for line in f:
                    m = re.match(r"TOUCHSTONE_CASES (\S+) ran=(\d+) of=(\d+)", line)
                    if m:
                        seen[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            for name, (ran, total) in seen.items():
                old = suites.get(name, (0, 0))
                suites[name] = (old[0] + ran, old[1] + total)
    return passed, failed, skipped, suites


def check_suites(label, suites, required, under_ci):
    rc = 0
    for name in sorted(set(list(suites) + required)):
        if name in suites:
            ran, total = suites[name]
            print(f"{label} suite {name}: {ran} of {total} cases ran")
            if under_ci and name in required and ran < total:
                print(f"ERROR: {label} suite {name} ran fewer cases than it holds")
                rc = 1
        elif name in required:
            print(f"{label} suite {name}: did not run")
            if under_ci:
                print(f"ERROR: {label} suite {name} did not run under CI=true")
                rc = 1
    return rc


def read_aarch64(folder, under_ci):
    """Returns (passed, failed, rc) of the arm64 pass: each CPU model's logs, and its checks."""
    passed = failed = rc = 0
    cpus = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d))) if os.path.isdir(folder) else []
    if not cpus:
        print("ERROR: the arm64 pass left no test logs")
        return 0, 1, 1
    for cpu in cpus:
        c_passed, c_failed, _, c_suites = read_logs(os.path.join(folder, cpu))
        required = AARCH64_SUITES + (AARCH64_LAST_CPU_SUITES if cpu == "max" else [])
        rc |= check_suites(f"aarch64 {cpu}", c_suites, required, under_ci)
        passed, failed = passed + c_passed, failed + c_failed
    checks = os.path.join(folder, "checks.log")
    if os.path.exists(checks):
        with open(checks, errors="replace") as f:
            for line in f:
                if line.startswith("ok: "):
                    passed += 1
                elif line.startswith("FAIL: "):
                    failed += 1
    print(f"aarch64 run: {passed} passed, {failed} failed")
    return passed, failed, rc


def main():
    positional = [a for a in sys.argv[1:] if not a.startswith("--")]
    options = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    if "--only_aarch64" in sys.argv[1:]:
        under_ci = bool(positional) and positional[0] == "true"
        passed, failed, rc = read_aarch64(options.get("aarch64_logs", ""), under_ci)
        return 1 if (rc or failed) else 0
    logs = positional[0]
    under_ci = len(positional) > 1 and positional[1] == "true"
    passed, failed, skipped, suites = read_logs(logs)
    rc = check_suites("shared", suites, REQUIRED_SUITES, under_ci)
    if skipped:
        print(f"{skipped} test cases skipped")

    if options.get("sanitizer_logs"):
        s_passed, s_failed, s_skipped, s_suites = read_logs(options["sanitizer_logs"])
        required = [s for s in options.get("sanitizer_suites", "").split(",") if s]
        rc |= check_suites("sanitizer", s_suites, required, under_ci)
        print(f"sanitizer run: {s_passed} passed, {s_failed} failed" +
              (f", {s_skipped} skipped" if s_skipped else ""))
        passed, failed = passed + s_passed, failed + s_failed

    if "fuzz_log" in options:
        targets = 0
        try:
            with open(options["fuzz_log"], errors="replace") as f:
                for line in f:
                    m = re.match(r"fuzz: (\w+_fuzzer): (.*)", line)
                    if not m:
                        continue
                    targets += 1
                    print(f"fuzz {m.group(1)}: {m.group(2)}")
                    if "nothing found" in m.group(2):
                        passed += 1
                    else:
                        failed += 1
        except OSError:
            pass
        if targets == 0:
            print("ERROR: the fuzz pass ran no target")
            failed += 1

    if options.get("aarch64_logs"):
        a_passed, a_failed, a_rc = read_aarch64(options["aarch64_logs"], under_ci)
        rc |= a_rc
        passed, failed = passed + a_passed, failed + a_failed

    print(f"{passed} passed, {failed} failed")
    if failed:
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
