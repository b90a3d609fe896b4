"""Benchmarks run by ``python -m benchmarks`` (``make bench``); informative figures, never assertions."""
