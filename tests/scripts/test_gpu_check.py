#!/usr/bin/env python3
"""Unit test of scripts/gpu-check.sh's GPU test stage over a stand-in test binary (no GPU)."""
import os
import pathlib
import stat
import subprocess
import tempfile
import textwrap
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A stand-in for hipfuse_gpu_tests: four test cases (one with a comma in its name, which the
# script escapes in its filters). "beta, with a comma" fails; "alpha" prints a MESSAGE (a test
# case header that is not a failure); every process prints doctest's totals lines.
FAKE_TESTS = textwrap.dedent("""\
    #!/usr/bin/env python3
    import re, sys
    NAMES = ["alpha", "beta, with a comma", "gamma", "oom: fills the GPU"]
    args = sys.argv[1:]
    if "--list-test-cases" in args:
        print('[doctest] doctest version is "2.4.9"')
        print("=" * 79)
        print("\\n".join(NAMES))
        print("=" * 79)
        sys.exit(0)
    pattern = next(a.split("=", 1)[1] for a in args if a.startswith("--test-case="))
    wanted = [p.replace("\\\\,", ",") for p in re.split(r"(?<!\\\\),", pattern)]
    chosen = [n for n in NAMES if n in wanted or (pattern == "oom*" and n.startswith("oom"))]
    failed = 0
    for name in chosen:
        if name == "alpha":
            print("=" * 79 + "\\n/src/t.cpp:20:\\nTEST CASE:  alpha\\n\\n/src/t.cpp:21: MESSAGE: handle target: sm_90\\n")
        if name.startswith("beta"):
            failed += 1
            print("=" * 79 + f"\\n/src/t.cpp:10:\\nTEST CASE:  {name}\\n\\n/src/t.cpp:12: ERROR: CHECK( 1 == 2 ) is NOT correct!\\n")
    n = len(chosen)
    print(f"[doctest] test cases: {n:2d} | {n - failed:2d} passed | {failed} failed | 0 skipped")
    print(f"[doctest] assertions: {2 * n} | {2 * n - failed} passed | {failed} failed |")
    sys.exit(1 if failed else 0)
    """)


class GpuTestStage(unittest.TestCase):
    def test_summary_totals_the_processes_and_names_the_failed_case(self):
        with tempfile.TemporaryDirectory() as tmp:
            build = pathlib.Path(tmp) / "build"
            (build / "tests").mkdir(parents=True)
            binary = build / "tests" / "hipfuse_gpu_tests"
            binary.write_text(FAKE_TESTS)
            binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
            out = pathlib.Path(tmp) / "out"
            env = dict(os.environ, STAGES="tests", TEST_PROCS="2")
            result = subprocess.run(["bash", str(ROOT / "scripts" / "gpu-check.sh"), str(build), str(out)],
                                    cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            line = next(l for l in (out / "summary.txt").read_text().splitlines() if l.startswith("gpu tests"))
            self.assertIn("FAIL (rc=1)", line)
            self.assertIn("3 of 3 processes finished: test cases: 4 | 3 passed | 1 failed", line)
            self.assertIn("assertions: 8 | 1 failed", line)
            self.assertTrue(line.endswith("; failed: beta, with a comma"), line)


if __name__ == "__main__":
    unittest.main()
