#!/usr/bin/env python3
"""Compares two Touchstone reports of one tool figure by figure, exactly, leaving out what differs between
any two runs of the same work: when and where they ran (start_time, machine), the flags given, the shard
or merge notes, and the timings (latencies, wall time, throughput).

    compare_reports.py A.json B.json

Prints "same: A B" or each differing path with both values (the first 20), and exits 1 on a difference."""
import json
import sys

# Paths (as tuples of keys; "*" matches any key or index) left out of the comparison.
IGNORED = [
    ("start_time",), ("machine",), ("configuration", "flags"), ("shard",), ("merged",),
    ("latency",), ("wall_seconds",), ("images_per_second",),
    ("reference", "inference_latency"),  # imagenet_eval --reference
    ("reference", "latency"), ("test", "latency"),  # inference_diff
]


def ignored(path):
    for pattern in IGNORED:
        if len(path) >= len(pattern) and all(p == "*" or p == k for p, k in zip(pattern, path)):
            return True
    return False


def compare(a, b, path, out):
    if ignored(path):
        return
    where = "$" + "".join("[%r]" % k for k in path)
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                if not ignored(path + (key,)):
                    out.append("%s[%r]: only in %s" % (where, key, "the first" if key in a else "the second"))
                continue
            compare(a[key], b[key], path + (key,), out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d items vs %d" % (where, len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, path + (i,), out)
    elif type(a) is not type(b) or a != b:
        out.append("%s: %r vs %r" % (where, a, b))


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    out = []
    compare(a, b, (), out)
    if out:
        print("differ: %s %s" % (a_path, b_path))
        for line in out[:20]:
            print("  " + line)
        return 1
    print("same: %s %s" % (a_path, b_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
