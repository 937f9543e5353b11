"""Where requests come in: the daemon on the bus, the voice commands, the
``ovos-memory`` command line. Validation and replies; no memory logic."""
