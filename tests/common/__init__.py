"""The shared nouns: the configuration's keys, the locale's word lists."""
