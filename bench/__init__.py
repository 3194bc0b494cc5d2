"""Benchmarks: ``make bench`` (``python -m bench``) prints a table measured in one run."""
