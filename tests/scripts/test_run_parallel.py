#!/usr/bin/env python3
"""Unit test of scripts/run_parallel.py: its summary table, and a whole run over a stand-in
driver (no GPU, no fusiondriver needed)."""
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import run_parallel  # noqa: E402


class SummaryTable(unittest.TestCase):
    def test_counts_and_speedups_per_spec_file(self):
        records = [
            {"name": "a/x", "status": "PASSED", "speedup": 2.0},
            {"name": "a/y", "status": "PASSED", "speedup": 0.5},
            {"name": "a/z", "status": "FAILED", "speedup": 8.0},
            {"name": "a/w", "status": "PASSED", "speedup": 1.0},
            {"name": "b/x", "status": "UNSUPPORTED"},
            {"name": "b/y", "status": "COMPILE_ERROR"},
        ]
        lines = run_parallel.summary_table(records).splitlines()
        self.assertEqual(len(lines), 4)
        # passed cases only: geomean of 2, 0.5, 1 = 1
        self.assertEqual(lines[2], "| a | 4 | 3 | 1 | 0 | 1.00x (0.50-2.00, 3 cases) |")
        self.assertEqual(lines[3], "| b | 2 | 0 | 1 | 1 | - |")

    def test_empty(self):
        self.assertEqual(len(run_parallel.summary_table([]).splitlines()), 2)


# A stand-in for fusiondriver: `list` prints three case commands; `run N ... --out FILE` writes
# case N's record, FAILED for case 1 and PASSED otherwise.
FAKE_DRIVER = textwrap.dedent("""\
    import json, sys
    if sys.argv[1] == "list":
        for n in range(3):
            print(f"{sys.executable} {sys.argv[0]} run {n}")
    else:
        n = int(sys.argv[2])
        out = sys.argv[sys.argv.index("--out") + 1]
        with open(out, "w") as f:
            f.write(json.dumps({"name": f"s/case{n}", "status": "FAILED" if n == 1 else "PASSED"}) + "\\n")
    """)


class WholeRun(unittest.TestCase):
    def test_failures_reported_as_they_happen_and_in_the_exit_status(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            fake = tmp / "fake_driver.py"
            fake.write_text(FAKE_DRIVER)
            driver = tmp / "driver"
            driver.write_text(f"#!/bin/sh\nexec {sys.executable} {fake} \"$@\"\n")
            driver.chmod(0o755)
            printed = io.StringIO()
            argv = sys.argv
            sys.argv = ["run_parallel.py", "--driver", str(driver), "--jobs", "2", "--out", str(tmp / "out"), "x.toml"]
            try:
                with contextlib.redirect_stdout(printed):
                    status = run_parallel.main()
            finally:
                sys.argv = argv
            text = printed.getvalue()
            self.assertEqual(status, 1)
            self.assertIn("run_parallel: case 1 FAILED", text)  # at once, before the totals
            self.assertIn("3/3 done (2 passed)", text)
            self.assertLess(text.index("case 1 FAILED"), text.index("3/3 done"))
            records = [json.loads(line) for line in (tmp / "out" / "results.jsonl").read_text().splitlines()]
            self.assertEqual([r["status"] for r in records], ["PASSED", "FAILED", "PASSED"])


if __name__ == "__main__":
    unittest.main()
