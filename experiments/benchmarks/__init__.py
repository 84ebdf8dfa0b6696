"""Speed and memory benchmarks: plain scripts, not part of the test suite."""
