"""Benchmarks: each prints ratios against a reference measured in the same run.

Run from the project root as ``.venv/bin/python -m bench.NAME``; the last line printed is
the result. These are measurements, not tests: tests check correctness.
"""
