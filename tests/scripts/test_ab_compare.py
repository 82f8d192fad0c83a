#!/usr/bin/env python3
"""Unit test of scripts/ab_compare.py over a stand-in driver (no GPU, no fusiondriver needed)."""
import contextlib
import io
import pathlib
import sys
import tempfile
import textwrap
import unittest
import unittest.mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import ab_compare  # noqa: E402

# A stand-in for fusiondriver `run`: two cases (those that --filter's regex matches), median 10
# us for the build called "old", 8 for any other (HIPFUSE_KERNEL_DIR adds 1, TILE takes 2); case
# "b" FAILS when FAIL_B is set. Each run appends "<build> <kernel dir>[ <tile>]" to ORDER_LOG, so
# the test sees the order of the runs.
FAKE_DRIVER = textwrap.dedent("""\
    import csv, os, re, sys
    args = sys.argv[1:]
    out = args[args.index("--out") + 1]
    wanted = args[args.index("--filter") + 1] if "--filter" in args else ""
    build = os.path.basename(os.path.dirname(os.path.abspath(sys.argv[0])))
    kernels = os.environ.get("HIPFUSE_KERNEL_DIR", "")
    tile = os.environ.get("TILE", "")
    with open(os.environ["ORDER_LOG"], "a") as log:
        log.write(f"{build} {os.path.basename(kernels)}{' ' + tile if tile else ''}\\n")
    median = (10.0 if build == "old" else 8.0) + (1.0 if kernels else 0.0) - (2.0 if tile else 0.0)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "status", "median_us"])
        if re.search(wanted, "s/a"):
            w.writerow(["s/a", "PASSED", median])
        if re.search(wanted, "s/b"):
            w.writerow(["s/b", "FAILED" if os.environ.get("FAIL_B") else "PASSED", median * 2])
    """)


class AbCompare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        for build in ("old", "new"):
            (self.dir / build).mkdir()
            (self.dir / build / "fake.py").write_text(FAKE_DRIVER)
            driver = self.dir / build / "fusiondriver"
            driver.write_text(f"#!/bin/sh\nexec {sys.executable} {self.dir / build / 'fake.py'} \"$@\"\n")
            driver.chmod(0o755)
        (self.dir / "kernels-x").mkdir()
        self.log = self.dir / "order.log"

    def tearDown(self):
        self.tmp.cleanup()

    def run_compare(self, env):
        argv = ["--out", str(self.dir / "out"), "--variant", f"base={self.dir / 'old' / 'fusiondriver'}",
                "--variant", f"new={self.dir / 'new' / 'fusiondriver'}",
                "--variant", f"src={self.dir / 'new' / 'fusiondriver'}:{self.dir / 'kernels-x'}",
                "--rounds", "2", "specs/x.toml:a|b"]
        printed = io.StringIO()
        with unittest.mock.patch.dict("os.environ", {"ORDER_LOG": str(self.log), **env}), \
                contextlib.redirect_stdout(printed):
            status = ab_compare.main(argv)
        return status, printed.getvalue()

    def test_ratios_order_and_exit_status(self):
        status, text = self.run_compare({})
        self.assertEqual(status, 0)
        # Round 1 in the given order, round 2 reversed; the kernel directory only for "src".
        self.assertEqual(self.log.read_text().split("\n")[:6],
                         ["old ", "new ", "new kernels-x", "new kernels-x", "new ", "old "])
        rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| s/")}
        self.assertEqual(rows["s/a"], "| s/a | 10.0, 10.0 | 8.0, 8.0 | 9.0, 9.0 | 0.800 | 0.900 |")
        self.assertEqual(rows["s/b"], "| s/b | 20.0, 20.0 | 16.0, 16.0 | 18.0, 18.0 | 0.800 | 0.900 |")
        self.assertTrue(text.endswith((self.dir / "out" / "summary.md").read_text()))  # the last table printed
        self.assertTrue((self.dir / "out" / "x_src_r2.csv").exists())

    def test_a_failed_case_is_marked_and_fails_the_run(self):
        status, text = self.run_compare({"FAIL_B": "1"})
        self.assertEqual(status, 1)
        self.assertIn("| s/b | 20.0 FAILED, 20.0 FAILED |", text)

    def test_env_per_variant(self):
        # TILE for "new" only; an outer TILE reaches no variant.
        argv = ["--out", str(self.dir / "out"), "--variant", f"base={self.dir / 'new' / 'fusiondriver'}",
                "--variant", f"tiled={self.dir / 'new' / 'fusiondriver'}", "--env", "tiled:TILE=wg128x128/ws+sk",
                "--rounds", "1", "specs/x.toml:a"]
        printed = io.StringIO()
        with unittest.mock.patch.dict("os.environ", {"ORDER_LOG": str(self.log), "TILE": "outer"}), \
                contextlib.redirect_stdout(printed):
            status = ab_compare.main(argv)
        self.assertEqual(status, 0)
        self.assertEqual(self.log.read_text().split("\n")[:2], ["new ", "new  wg128x128/ws+sk"])
        self.assertIn("| s/a | 8.0 | 6.0 | 0.750 |", printed.getvalue())
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            ab_compare.main(argv[:-3] + ["--env", "nobody:TILE=x", "specs/x.toml"])

    def test_one_spec_twice_with_two_filters(self):
        # Each item keeps its own CSVs: both cases reach the summary.
        argv = ["--out", str(self.dir / "out"), "--variant", f"base={self.dir / 'old' / 'fusiondriver'}",
                "--variant", f"new={self.dir / 'new' / 'fusiondriver'}", "--rounds", "1",
                "specs/x.toml:a", "specs/x.toml:b"]
        printed = io.StringIO()
        with unittest.mock.patch.dict("os.environ", {"ORDER_LOG": str(self.log)}), contextlib.redirect_stdout(printed):
            status = ab_compare.main(argv)
        self.assertEqual(status, 0)
        self.assertIn("| s/a | 10.0 | 8.0 | 0.800 |", printed.getvalue())
        self.assertIn("| s/b | 20.0 | 16.0 | 0.800 |", printed.getvalue())
        self.assertTrue((self.dir / "out" / "x_new_r1.csv").exists())
        self.assertTrue((self.dir / "out" / "x_2_new_r1.csv").exists())

    def test_bad_variant(self):
        with self.assertRaises(Exception):
            ab_compare.parse_variant("no-equals-sign")


if __name__ == "__main__":
    unittest.main()
