"""Shared nouns: what every layer and every process of ours speaks (memories,
scopes, wire messages, errors, the configuration, the bus client). Imports
nothing of ours outside this folder."""
