#!/usr/bin/env python3
"""Unit test of scripts/run_parallel.py's summary table (no GPU, no driver needed)."""
import pathlib
import sys
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


if __name__ == "__main__":
    unittest.main()
