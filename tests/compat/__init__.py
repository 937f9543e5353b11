"""Coming from ovos-memory-plugins: a persona JSON written for it behaves as its users expect."""
