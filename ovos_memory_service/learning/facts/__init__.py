"""Facts about the user, extracted by rules kept per language in locale/<lang>/facts/."""
from ovos_memory_service.learning.facts.extract import ExtractedFact, PatternError, extract_facts

__all__ = ["ExtractedFact", "PatternError", "extract_facts"]
