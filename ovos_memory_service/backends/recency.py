"""``recency``: a sliding window of recent turns, by count and optionally age.
Also ovos-persona's own default (``ovos-agents-short-term-memory-plugin``)."""
from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.backends.inject import assemble
from ovos_memory_service.backends.window import trim_window
from ovos_memory_service.common.blocks import recency_block


class RecencyBackend(Backend):
    """Seed keys: ``max_history`` (10, 0 = unbounded), ``max_age`` (seconds or
    null), ``system_prompt``."""
    name = "recency"

    def __init__(self, config, reader):
        super().__init__(config, reader)
        self.max_history, self.max_age, self.settings = recency_block(config, self.name)

    def raw_window(self, scope, now):
        return self.reader.window(scope, now, self.max_history, self.max_age)

    def build(self, scope, utterance, now):
        return Context(assemble(self.settings, trim_window(self.raw_window(scope, now)), utterance))


class ShortTermBackend(RecencyBackend):
    """ovos-persona's bundled BasicShortTermMemory: ``max_history`` 5."""
    name = "short-term"
