"""What runs inside ovos-persona and ovos-core: the persona plugin and who is speaking."""
