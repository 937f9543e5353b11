"""The benchmarks' labelled sets are well formed."""
