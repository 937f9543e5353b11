"""This package's plugins for other OVOS processes: the persona memory plugin
(inside ovos-persona) and the identity transformer (inside ovos-core). They
reach the daemon over the bus only."""
