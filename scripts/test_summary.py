#!/usr/bin/env python3
"""Summarises a `bazel test` run from bazel-testlogs: the shared-data suites' case counts (lines
"TOUCHSTONE_CASES <suite> ran=N of=M" printed by those tests) and a closing "N passed, N failed" line
counted from the GoogleTest cases in every test.xml. Under CI=true a suite that ran fewer cases than
it holds, or did not run at all, is a failure."""
import os
import re
import sys
import xml.etree.ElementTree as ET

REQUIRED_SUITES = ["golden", "hostile", "models", "opsuite"]


def main():
    logs = sys.argv[1]
    under_ci = len(sys.argv) > 2 and sys.argv[2] == "true"
    passed = failed = skipped = 0
    suites = {}
    for root, _, files in os.walk(logs, followlinks=True):
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
            with open(os.path.join(root, "test.log"), errors="replace") as f:
                for line in f:
                    m = re.match(r"TOUCHSTONE_CASES (\S+) ran=(\d+) of=(\d+)", line)
                    if m:
                        suites[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    rc = 0
    for name in sorted(set(list(suites) + REQUIRED_SUITES)):
        if name in suites:
            ran, total = suites[name]
            print(f"shared suite {name}: {ran} of {total} cases ran")
            if under_ci and ran < total:
                print(f"ERROR: suite {name} ran fewer cases than it holds")
                rc = 1
        else:
            print(f"shared suite {name}: did not run")
            if under_ci:
                print(f"ERROR: suite {name} did not run under CI=true")
                rc = 1
    if skipped:
        print(f"{skipped} test cases skipped")
    print(f"{passed} passed, {failed} failed")
    if failed:
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
