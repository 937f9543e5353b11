"""Rolling conversation summaries: what the ``longterm`` backend folds, when,
and how a summary is stored. The LLM call itself happens in the background
(learning/llm_worker.py), never inside a turn.

As in the seed, every ``summarize_every`` exchanges the turns before the
newest ``recent_window`` exchanges are folded, with the previous summary, into
a new summary. One ``summary`` memory per conversation holds it (updated in
place, its sources listing every folded turn); the ``summaries`` table records
the last folded turn.
"""
import json
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence

import langcodes

from ovos_memory_service.common.items import new_id
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Store

SUMMARY_INSTRUCTION = (
    "You keep a running summary of a conversation between a user and a voice assistant. "
    "Update the summary with the new part of the conversation. Keep names, places, dates, "
    "numbers, decisions and what the user wants; drop small talk. Be brief: a few sentences, "
    "no lists, no preamble. Write the summary in {language}.")

SUMMARY_CONFIDENCE = 0.6  # as an LLM's facts


@dataclass
class SummaryState:
    memory_id: Optional[str]   # None: no summary yet
    text: str
    covered_seq: int


def language_name(lang: str) -> str:
    """'pt-pt' -> 'Portuguese (Portugal)', for the prompt."""
    try:
        return langcodes.Language.get(lang).display_name()
    except (ValueError, LookupError, ImportError):
        return lang or "English"


def state(store: Store, conversation_id: str) -> SummaryState:
    found = store.summary_state(conversation_id)
    return SummaryState(*found) if found else SummaryState(None, "", 0)


def latest(store: Store, scope: Scope) -> Optional[SummaryState]:
    """The newest summary of the scope's session: a new conversation carries
    on from the last one's gist, as the seed's per-session summary did.
    None below the speaker's access level: that gist is long-term memory."""
    found = store.latest_summary(scope) if scope.long_term else None
    return SummaryState(*found) if found else None


def exchanges(turns: List) -> List[List]:
    """Turns grouped into exchanges, each opened by a user turn."""
    groups = []
    for turn in turns:
        if turn["role"] == "user" or not groups:
            groups.append([])
        groups[-1].append(turn)
    return groups


def answered(group: List[dict]) -> bool:
    return any(t["role"] == "assistant" for t in group)


def due(groups: List[List], has_summary: bool, summarize_every: int, recent_window: int) -> List[List]:
    """The exchanges to fold now ([] when it is not time): the seed's rhythm, a
    first fold after ``summarize_every`` exchanges, then every ``summarize_every``
    more, keeping the newest ``recent_window`` verbatim."""
    complete = sum(answered(g) for g in groups)
    if complete < summarize_every + (recent_window if has_summary else 0):
        return []
    return groups[:max(0, complete - recent_window)]


def prompt(previous: str, folded: List[List[dict]], lang: str) -> List[dict]:
    transcript = "\n".join(f"{t['name'] or t['role']}: {t['content']}" for group in folded for t in group
                           if t["content"])
    parts = [f"Summary so far:\n{previous}"] if previous else []
    parts.append(f"New part of the conversation:\n{transcript}")
    return [{"role": "system", "content": SUMMARY_INSTRUCTION.format(language=language_name(lang))},
            {"role": "user", "content": "\n\n".join(parts)}]


def save(store: Store, scope: Scope, conversation_id: str, summary: str, folded: List[List[dict]]):
    """Store the new summary of a conversation."""
    now = time.time()
    folded_ids = [t["id"] for group in folded for t in group]
    with store.transaction():
        current = state(store, conversation_id)
        if current.memory_id is None:
            memory_id = store.insert_memory({
                "id": new_id(), "kind": "summary", "user_id": scope.user_id, "persona_id": scope.persona_key,
                "session_id": scope.session_id, "conversation_id": conversation_id, "content": summary,
                "sources": json.dumps(folded_ids), "extractor": "llm", "confidence": SUMMARY_CONFIDENCE,
                "created_at": now, "updated_at": now})
        else:
            memory_id = current.memory_id
            sources = json.loads(store.get_memories([memory_id])[0]["sources"] or "[]")
            store.update_memory(memory_id, content=summary, sources=json.dumps(sources + folded_ids), updated_at=now)
        store.set_summary_state(conversation_id, memory_id, folded[-1][-1]["seq"])


def built_on(derived: Sequence[dict], turn_ids) -> List[str]:
    """Summaries (among ``derived`` rows) that folded any of ``turn_ids``:
    they repeat what is forgotten."""
    gone = set(turn_ids)
    return [row["id"] for row in derived if row["kind"] == "summary" and gone & set(json.loads(row["sources"]))]
