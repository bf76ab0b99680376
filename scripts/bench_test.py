#!/usr/bin/env python3
"""scripts/bench: its parsing of benchmark_model's lines and of the reference table, the sweep's rows,
ratios and summary, and a whole sweep over fake benchmark_model binaries (a failing model, a hanging one,
the reference table's conversion). Needs neither ../shared nor a build: every output here is canned."""
import contextlib
import csv
import importlib.machinery
import importlib.util
import io
import os
import stat
import tempfile
import textwrap
import unittest

# Beside this file, or in the runfiles of the Bazel test.
HERE = (os.path.join(os.environ["TEST_SRCDIR"], os.environ.get("TEST_WORKSPACE", "touchstone"), "scripts")
        if os.environ.get("TEST_SRCDIR") else os.path.dirname(os.path.abspath(__file__)))


def load_bench():
    loader = importlib.machinery.SourceFileLoader("bench", os.path.join(HERE, "bench"))
    spec = importlib.util.spec_from_loader("bench", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


bench = load_bench()

# TensorFlow Lite 2.14.1's benchmark_model, in the format of ../shared/reference/tflite-tools.md (every line
# through its logger, so with an "INFO: " prefix), a large average in the stream's exponent form.
TFLITE_TEXT = textwrap.dedent("""\
    INFO: STARTING!
    INFO: Graph: [conv.tflite]
    INFO: Loaded model conv.tflite
    INFO: Created TensorFlow Lite XNNPACK delegate for CPU.
    INFO: The input model file size (MB): 0.0188
    INFO: Initialized session in 417.2ms.
    INFO: Running benchmark for at least 2 iterations and at least 0.5 seconds but terminate if exceeding 150 seconds.
    INFO: count=3 first=1302117 curr=1201001 min=1201001 max=1302117 avg=1.23e+06 std=45000 p5=1201001 median=1210000 p95=1302117
    INFO: Inference timings in us: Init: 417200, First inference: 1302117, Warmup (avg): 1.23e+06, Inference (avg): 1.23457e+06
    INFO: Note: as the benchmark tool itself affects memory footprint, the following is only APPROXIMATE to the actual memory footprint of the model at runtime. Take the information at your discretion.
    INFO: Memory footprint delta from the start of the tool (MB): init=3.125 overall=7.5
    INFO: Overall peak memory footprint (MB) via periodic monitoring: 12.25
    """)

# Ours, as a current build prints it: the Kernels line after "Initialized session".
OURS_TEXT = textwrap.dedent("""\
    Loaded model kws.tflite
    Initialized session in 0.441ms.
    Kernels: 9 optimized, 4 reference (DEPTHWISE_CONV_2D int8 multiplier 4, ADD int16 x3), 0 delegated
    count=2304 first=45 curr=40 min=39 max=95 avg=43.2062 std=4 p5=40 median=42 p95=47
    Inference timings in us: Init: 441, First inference: 357, Warmup (avg): 49.3774, Inference (avg): 43.2062
    Memory footprint delta from the start of the tool (MB): init=1.20312 overall=1.95312
    """)

REFERENCE_TABLE = textwrap.dedent("""\
    # TensorFlow Lite 2.14.1 and Touchstone 45eff1b, latency side by side, model by model

    | model | threads | TFLite avg us | Touchstone avg us | ratio | TFLite init us | Touchstone init us |
    |---|---|---|---|---|---|---|
    | a/fast.tflite | 1 | 1000.0 | 1500.0 | 1.50 | 600 | 300 |
    | a/fast.tflite | 2 | 0.1 | 0.2 | 2.00 | 600 | 300 |
    | a/slow.tflite | 1 | 16493.0 | 107.5 | 0.01 | 468 | 3505 |

    Rows without a figure:

    | model | threads | why |
    |---|---|---|
    | a/bad.bin | 1 | TFLite: ERROR: Encountered unresolved custom op: Sinh. |

    | model | TFLite run_eval | Touchstone imagenet_eval | ratio |
    |---|---|---|---|
    | a/fast.tflite | 31.1 s | 1.26 s | 0.04 |
    """)

# A stand-in benchmark_model: AVG, INIT and MB per thread count, a Kernels line when KERNELS is set; a
# model named *bad* is refused when REFUSE is set, one named *hang* when HANG is set never finishes; --report_json writes
# what the model list reads. Each run's flags are appended to the file LOG.
FAKE_BINARY = """#!/bin/sh
echo "$*" >> "LOG"
threads=1
for a in "$@"; do
  case "$a" in
    --graph=*) graph="${a#--graph=}" ;;
    --num_threads=*) threads="${a#--num_threads=}" ;;
    --report_json=*) report="${a#--report_json=}" ;;
  esac
done
case "$graph" in
  *bad*) [ -n "REFUSE" ] && { echo "Loaded model $graph"; echo "ERROR: $graph: unresolved custom op 'Sinh'" >&2; exit 3; } ;;
  *hang*) [ -n "HANG" ] && sleep 30 ;;
esac
echo "Initialized session in 0.5ms."
[ -n "KERNELS" ] && echo "KERNELS"
echo "Inference timings in us: Init: INIT, First inference: 90, Warmup (avg): 80, Inference (avg): $((AVG / threads))"
echo "Memory footprint delta from the start of the tool (MB): init=1.5 overall=MB"
if [ -n "$report" ]; then
  echo '{"latency": {"regular": {"mean_us": '$((AVG / threads))', "p50_us": 1, "p90_us": 2}, "init_us": INIT},
        "memory": {"arena_bytes": 4096}, "configuration": {"delegates": [{"provider": "XNNPACK", "delegate_kernels": 0}]}}' > "$report"
fi
"""


def write_fake(path, avg, init, mb, kernels="", refuse="", hang=""):
    text = (FAKE_BINARY.replace("AVG", str(avg)).replace("INIT", str(init)).replace("=MB", "=" + str(mb))
            .replace('"KERNELS"', '"%s"' % kernels).replace('"REFUSE"', '"%s"' % refuse).replace('"HANG"', '"%s"' % hang)
            .replace('"LOG"', '"%s.log"' % path))
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class ParseTest(unittest.TestCase):
    def test_tflite_lines(self):
        result = bench.parse_output(TFLITE_TEXT)
        self.assertEqual(result["init_us"], 417200)
        self.assertEqual(result["first_us"], 1302117)
        self.assertAlmostEqual(result["warmup_us"], 1.23e6)
        self.assertAlmostEqual(result["avg_us"], 1.23457e6)
        self.assertEqual(result["mem_init_mb"], 3.125)
        self.assertEqual(result["mem_overall_mb"], 7.5)
        self.assertEqual(result["peak_mb"], 12.25)
        self.assertNotIn("kernels", result)

    def test_our_lines(self):
        result = bench.parse_output(OURS_TEXT)
        self.assertEqual(result["avg_us"], 43.2062)
        self.assertEqual(result["init_us"], 441)
        self.assertEqual(result["mem_overall_mb"], 1.95312)
        self.assertNotIn("peak_mb", result)
        self.assertEqual(result["kernels"], {"optimized": 9, "reference": 4, "delegated": 0, "prepare": 0,
                                             "reference_list": "DEPTHWISE_CONV_2D int8 multiplier 4, ADD int16 x3"})
        plain = bench.parse_output(OURS_TEXT.replace(
            "4 reference (DEPTHWISE_CONV_2D int8 multiplier 4, ADD int16 x3), 0 delegated",
            "0 reference, 2 delegated"))
        self.assertEqual(plain["kernels"], {"optimized": 9, "reference": 0, "delegated": 2, "prepare": 0,
                                            "reference_list": ""})
        # The optional parts after "delegated": constants computed at Prepare, nodes chosen at Invoke.
        suffixed = bench.parse_output(OURS_TEXT.replace(
            "4 reference (DEPTHWISE_CONV_2D int8 multiplier 4, ADD int16 x3), 0 delegated",
            "1 reference (SIN float32), 0 delegated, 102 computed at Prepare (DEQUANTIZE float16 x102), "
            "3 chosen at the first Invoke"))
        self.assertEqual(suffixed["kernels"], {"optimized": 9, "reference": 1, "delegated": 0, "prepare": 102,
                                               "reference_list": "SIN float32"})
        custom = bench.parse_output(OURS_TEXT.replace(
            "4 reference (DEPTHWISE_CONV_2D int8 multiplier 4, ADD int16 x3), 0 delegated",
            "1 reference (Op(v2) float32), 0 delegated, 2 computed at Prepare (DENSIFY float16 x2)"))
        self.assertEqual(custom["kernels"], {"optimized": 9, "reference": 1, "delegated": 0, "prepare": 2,
                                             "reference_list": "Op(v2) float32"})

    def test_no_timings(self):
        self.assertIsNone(bench.parse_output("Loaded model x.tflite\nERROR: x.tflite: no subgraph\n"))

    def test_one_line_error(self):
        text = ("Loaded model ../shared/models/a/x.bin\nERROR: ../shared/models/a/x.bin: unresolved custom op\n"
                "ERROR: Node number 0 (Sinh) failed to prepare.\nBenchmarking failed.\n")
        self.assertEqual(bench.one_line_error(text, 1, False, 60, "../shared/models/a/x.bin", "a/x.bin"),
                         "exit 1: ERROR: a/x.bin: unresolved custom op")
        self.assertEqual(bench.one_line_error("Segmentation fault\n", -11, False, 60), "exit -11: Segmentation fault")
        self.assertEqual(bench.one_line_error("", -9, True, 2.5), "timed out after 2.5s")
        self.assertEqual(bench.one_line_error("done\n", 0, False, 60), "exit 0, no 'Inference timings' line: done")


class ReferenceTableTest(unittest.TestCase):
    def setUp(self):
        handle, self.path = tempfile.mkstemp(suffix=".md")
        with os.fdopen(handle, "w") as f:
            f.write(REFERENCE_TABLE)

    def tearDown(self):
        os.remove(self.path)

    def test_rows(self):
        table = bench.read_reference_table(self.path)
        self.assertEqual(table["build"], "45eff1b")
        self.assertTrue(table["has_init"])
        self.assertEqual(sorted(table["rows"]), [("a/fast.tflite", 1), ("a/fast.tflite", 2), ("a/slow.tflite", 1)])
        row = table["rows"][("a/slow.tflite", 1)]
        self.assertEqual((row["tflite_avg_us"], row["base_avg_us"], row["ratio"]), (16493.0, 107.5, 0.01))
        self.assertEqual((row["tflite_init_us"], row["base_init_us"]), (468, 3505))

    def test_base_over_tflite_takes_the_less_rounded(self):
        table = bench.read_reference_table(self.path)["rows"]
        # Slow models: the averages (the ratio column's 0.01 is 0.0065 rounded).
        self.assertAlmostEqual(bench.base_over_tflite(table[("a/slow.tflite", 1)]), 107.5 / 16493.0)
        self.assertAlmostEqual(bench.base_over_tflite(table[("a/fast.tflite", 1)]), 1.5)
        # Tiny models: the ratio column (0.1 and 0.2 us say little).
        self.assertEqual(bench.base_over_tflite(table[("a/fast.tflite", 2)]), 2.0)
        self.assertAlmostEqual(bench.init_base_over_tflite(table[("a/slow.tflite", 1)]), 3505 / 468)


class RowTest(unittest.TestCase):
    @staticmethod
    def result(avg, init, mb, reference=None):
        r = {"avg_us": avg, "init_us": init, "mem_overall_mb": mb}
        if reference is not None:
            r["kernels"] = {"optimized": 5, "reference": reference, "reference_list": "SOFTMAX int8" if reference else "",
                            "delegated": 0}
        return r

    def test_ratio_is_the_median_of_paired_rounds(self):
        ours = [self.result(100, 400, 2, 1), self.result(110, 500, 2, 1), None]
        theirs = [self.result(200, 200, 4), self.result(200, 250, 4), self.result(250, 300, 4)]
        row = bench.aggregate("m.tflite", 2, None, ours, theirs,
                              {"ours": ("exit 1: ERROR: boom", False, 2)})
        self.assertEqual(row["ours_avg_us"], 105)
        self.assertEqual(row["theirs_avg_us"], 200)
        self.assertAlmostEqual(row["ratio"], 0.525)
        self.assertAlmostEqual(row["ratio_spread"], 0.05 / 0.525)
        self.assertEqual((row["ours_init_us"], row["theirs_init_us"]), (400, 200))  # the smallest of the rounds
        self.assertAlmostEqual(row["init_ratio"], 2.0)
        self.assertAlmostEqual(row["mem_ratio"], 0.5)
        self.assertEqual((row["ours_reference"], row["ours_reference_list"]), (1, "SOFTMAX int8"))
        self.assertEqual(row["status"], "FAIL ours after 2 round(s)")
        self.assertEqual(row["error"], "ours: exit 1: ERROR: boom")
        self.assertEqual(bench.reference_cell(row), "1: SOFTMAX int8")

    def test_one_round_has_no_spread_and_no_kernels_line_is_dash(self):
        row = bench.aggregate("m.tflite", 1, None, [self.result(10, 1, 1)], [self.result(20, 1, 1)], {})
        self.assertEqual(row["ratio"], 0.5)
        self.assertIsNone(row["ratio_spread"])
        self.assertEqual(row["status"], "ok")
        self.assertEqual(bench.reference_cell(row), "-")

    def test_conversion_to_tflite(self):
        table = {"build": "45eff1b", "has_init": True,
                 "rows": {("m.tflite", 1): {"tflite_avg_us": 1000.0, "base_avg_us": 1500.0, "ratio": 1.5,
                                            "tflite_init_us": 600.0, "base_init_us": 300.0}}}
        row = {"model": "m.tflite", "threads": 1, "ratio": 0.5, "init_ratio": 3.0, "ours_init_us": 450.0}
        bench.convert_to_tflite(row, table, "45eff1b97642d0a5adb0fdac538be0bd6e47d536")
        self.assertAlmostEqual(row["ratio_vs_tflite"], 0.75)
        self.assertAlmostEqual(row["init_vs_tflite"], 1.5)
        self.assertAlmostEqual(row["init_over_table_tflite"], 0.75)  # 450 us against the table's 600
        bench.convert_to_tflite(row, table, "0123abc")  # another build: nothing to convert with
        self.assertIsNone(row["ratio_vs_tflite"])
        self.assertAlmostEqual(row["init_over_table_tflite"], 0.75)  # needs no conversion
        bench.convert_to_tflite(row, table, "tflite")  # TFLite itself: the measured ratio
        self.assertEqual((row["ratio_vs_tflite"], row["init_vs_tflite"]), (0.5, 3.0))
        row["threads"] = 2
        bench.convert_to_tflite(row, table, "45eff1b")  # not in the table
        self.assertIsNone(row["ratio_vs_tflite"])

    def test_summary(self):
        rows = [{"model": "a", "threads": 1, "r": 0.5}, {"model": "b", "threads": 1, "r": 0.9},
                {"model": "c", "threads": 1, "r": 1.2}, {"model": "a", "threads": 2, "r": 2.0},
                {"model": "b", "threads": 2, "r": None}]
        lines = bench.summary_lines("latency", rows, "r", 2)
        self.assertEqual(lines, [
            "latency: median 0.90 at 1 thread (3 rows), 2.00 at 2 threads (1 rows); 2 of 4 rows above 1.0, 3 above 0.8",
            "latency, worst: a 2T 2.00, c 1T 1.20"])
        self.assertEqual(bench.summary_lines("latency", rows[4:], "r", 2), ["latency: no rows"])


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.models = os.path.join(self.tmp, "models")
        os.makedirs(os.path.join(self.models, "a"))
        for name in ("a/fast.tflite", "a/bad.bin", "hang.tflite", "notes.txt"):
            open(os.path.join(self.models, name), "w").close()
        self.table = os.path.join(self.tmp, "table.md")
        with open(self.table, "w") as f:
            f.write(REFERENCE_TABLE)
        self.ours = os.path.join(self.tmp, "ours")
        self.theirs = os.path.join(self.tmp, "theirs")
        write_fake(self.ours, 100, 500, 2, kernels="Kernels: 3 optimized, 1 reference (SOFTMAX int8), 0 delegated",
                   refuse="yes", hang="yes")
        write_fake(self.theirs, 200, 250, 4)

    def test_read_through_reads_every_file_and_skips_missing_ones(self):
        opened = []
        real_open = open

        def recording_open(path, *args, **kwargs):
            opened.append(path)
            return real_open(path, *args, **kwargs)

        bench.open = recording_open
        try:
            bench.read_through([self.ours, os.path.join(self.tmp, "missing.tflite"), self.table])
        finally:
            del bench.open
        self.assertEqual(opened, [self.ours, os.path.join(self.tmp, "missing.tflite"), self.table])

    def run_bench(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = bench.main(["--binary=" + self.ours, "--host_probe="] + list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_sweep(self):
        md, csv_path = os.path.join(self.tmp, "out.md"), os.path.join(self.tmp, "out.csv")
        code, out, err = self.run_bench("--models_dir=" + self.models, "--compare=" + self.theirs,
                                        "--compare_build=45eff1b", "--reference_table=" + self.table, "--rounds=2",
                                        "--timeout_s=1", "--markdown=" + md, "--csv=" + csv_path)
        self.assertEqual(code, 0, err)
        with open(md) as f:
            self.assertEqual(f.read(), out)
        with open(csv_path) as f:
            rows = {(r["model"], int(r["threads"])): r for r in csv.DictReader(f)}
        self.assertEqual(sorted(rows), [("a/bad.bin", 1), ("a/bad.bin", 2), ("a/fast.tflite", 1), ("a/fast.tflite", 2),
                                        ("hang.tflite", 1), ("hang.tflite", 2)])
        fast = rows[("a/fast.tflite", 1)]
        self.assertEqual((fast["ours_avg_us"], fast["theirs_avg_us"], fast["ratio"]), ("100", "200", "0.5"))
        self.assertEqual((fast["rounds_ours"], fast["rounds_theirs"], fast["ratio_spread"]), ("2", "2", "0"))
        self.assertEqual((fast["ratio_vs_tflite"], fast["init_ratio"], fast["init_vs_tflite"]), ("0.75", "2", "1"))
        self.assertEqual((fast["ours_mem_mb"], fast["theirs_mem_mb"]), ("2", "4"))
        self.assertEqual((fast["ours_reference"], fast["ours_reference_list"], fast["status"]), ("1", "SOFTMAX int8", "ok"))
        self.assertEqual(rows[("a/fast.tflite", 2)]["ratio_vs_tflite"], "1")  # 0.5 x the table's 2.00
        bad = rows[("a/bad.bin", 1)]
        self.assertEqual((bad["status"], bad["ours_avg_us"], bad["theirs_avg_us"]), ("FAIL ours", "", "200"))
        self.assertEqual(bad["error"], "ours: exit 3: ERROR: a/bad.bin: unresolved custom op 'Sinh'")
        hang = rows[("hang.tflite", 2)]
        self.assertEqual((hang["status"], hang["error"]), ("TIMEOUT ours", "ours: timed out after 1s"))
        # init / table's TFLite: 500 us against the table's 600.
        self.assertIn("| a/fast.tflite | 1 | 100.0 | 200.0 | 0.50 | 0% | 0.75 | 500 | 250 | 2.00 | 1.00 | 0.83 | 2.00 | "
                      "4.00 | 1: SOFTMAX int8 | ok |", out)
        self.assertIn("init ours/table's TFLite: median 0.83 at 1 thread", out)
        self.assertIn("| a/bad.bin | 1 | ours: exit 3: ERROR: a/bad.bin: unresolved custom op 'Sinh' |", out)
        self.assertIn("latency ours/TFLite: median 0.75 at 1 thread (1 rows), 1.00 at 2 threads (1 rows); "
                      "0 of 2 rows above 1.0, 1 above 0.8", out)
        self.assertIn("latency ours/TFLite, worst: a/fast.tflite 2T 1.00, a/fast.tflite 1T 0.75", out)
        self.assertIn("init ours/TFLite: median 1.00 at 1 thread", out)
        # A side that failed is not run again: the hanging model cost one timeout per thread count.
        self.assertIn("round 2 of 2, 6 of 6: hang.tflite 2T: theirs 100.0 us, ours skipped (failed before)", err)
        # Both binaries in their default configuration: the loop flags and nothing else.
        for log in (self.ours + ".log", self.theirs + ".log"):
            with open(log) as f:
                runs = f.read().splitlines()
            self.assertIn("--graph=%s/a/fast.tflite --num_threads=2 --num_runs=20 --min_secs=0.5 --warmup_runs=2 "
                          "--max_secs=15" % self.models, runs)
            self.assertFalse([r for r in runs if "xnnpack" in r], runs)
        with open(self.ours + ".log") as f:
            self.assertEqual(len(f.read().splitlines()), 2 * 2 + 2 + 2)  # fast: 2 rounds; bad, hang: once

    def test_sweep_without_a_matching_build_gives_measured_ratios_only(self):
        code, out, _ = self.run_bench("--sweep", "--models=" + os.path.join(self.models, "a", "fast.tflite"),
                                      "--models_dir=" + self.models, "--compare=" + self.theirs,
                                      "--reference_table=" + self.table, "--rounds=1", "--threads=1")
        self.assertEqual(code, 0)
        self.assertIn("latency ours/theirs: median 0.50 at 1 thread (1 rows)", out)
        self.assertNotIn("vs TFLite |", out)
        self.assertIn("pass --compare_build=45eff1b", out)

    def test_model_list_still_runs(self):
        code, out, _ = self.run_bench("--models=" + os.path.join(self.models, "a", "fast.tflite"),
                                      "--threads=2", "--xnnpack=on", "--rounds=1", "--compare=" + self.theirs)
        self.assertEqual(code, 0)
        self.assertIn("fast | 2 | on | 0.05 |", out)
        self.assertIn("| 0.10 | 0.50 |", out)

    def test_bad_arguments(self):
        for argv in (["--markdown=x.md"], ["--sweep", "--xnnpack=sometimes"], ["--sweep", "--timeout_s=-1"],
                     ["--models_dir=" + os.path.join(self.tmp, "none")],
                     ["--sweep", "--models_dir=" + self.models, "--compare_build=45eff1b"]):
            code, _, err = self.run_bench(*argv)
            self.assertEqual(code, 2, argv)
            self.assertTrue(err.startswith("scripts/bench: "), err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
