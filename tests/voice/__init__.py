"""The voice commands (edge/skill.py) through ovos-core's intent pipeline and the bus."""
