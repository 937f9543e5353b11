"""``longterm``: a rolling summary of the conversation and a bounded verbatim
window, as the seed's LongTermMemory, with the summary made in the background.

The context is the seed's: one system message (the persona's prompt, then
"[Conversation summary so far]" and the summary), the turns the summary has not
folded yet, then the utterance. While the endpoint is down the window still
holds at most ``summarize_every + recent_window`` exchanges; the older turns
stay stored (and recallable) and are folded once the endpoint answers again.
"""
from ovos_memory_service.backends.base import Backend, Context, llm_client
from ovos_memory_service.backends.window import trim_window, turn_from_row
from ovos_memory_service.common.blocks import longterm_block
from ovos_memory_service.common.wire import ChatMessage
from ovos_memory_service.learning.summaries import exchanges

SUMMARY_HEADER = "[Conversation summary so far]"


class LongtermBackend(Backend):
    """Seed keys: ``api_url`` (http://localhost:8000/v1), ``model`` ("" asks the
    server), ``summarize_every`` (6), ``max_summary_tokens`` (256),
    ``recent_window`` (4), ``request_timeout`` (30), ``system_prompt``; and
    ``api_key``."""
    name = "longterm"
    block_kinds = ("summary",)

    def __init__(self, config, reader):
        super().__init__(config, reader)
        block = longterm_block(config, self.name)
        self.client = llm_client(block.endpoint)
        self.summarize_every = block.summarize_every
        self.max_summary_tokens = block.max_summary_tokens
        self.recent_window = block.recent_window
        self.system_prompt = block.system_prompt
        self.max_history = 2 * (self.summarize_every + self.recent_window)

    def llm_tasks(self):
        return {"summary": self} if self.client else {}

    def _read(self, scope, now):
        summary, rows = self.reader.summarized_window(scope, now)
        groups = exchanges(rows)[-(self.summarize_every + self.recent_window):]
        return summary, [turn_from_row(row) for group in groups for row in group]

    def raw_window(self, scope, now):
        return self._read(scope, now)[1]

    def build(self, scope, utterance, now):
        summary, turns = self._read(scope, now)
        parts = [self.system_prompt.strip()] if self.system_prompt.strip() else []
        if summary is not None:
            parts.append(f"{SUMMARY_HEADER}\n{summary.content}")
        messages = [ChatMessage("system", "\n\n".join(parts))] if parts else []
        messages += trim_window(turns) + [ChatMessage("user", utterance.strip())]
        return Context(messages, self.reader.score(scope, utterance, [summary] if summary is not None else []))
