"""The engine: what every operation of the protocol means, on typed arguments."""
