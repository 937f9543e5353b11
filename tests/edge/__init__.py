"""Where requests come in: the bus protocol, the daemon's life, the command lines, hostile input."""
