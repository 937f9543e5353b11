"""Rolling conversation summaries: what the ``longterm`` backend folds, when,
and how a summary is stored. The LLM call itself happens in the background
(llm_worker.py), never inside a turn.

As in the seed, every ``summarize_every`` exchanges the turns before the
newest ``recent_window`` exchanges are folded, with the previous summary, into
a new summary. One ``summary`` memory per conversation holds it (updated in
place, its sources listing every folded turn); the ``summaries`` table records
the last folded turn.
"""
import json
import time
from dataclasses import dataclass
from typing import List, Optional

import langcodes
from sqlite_utils import Database

from ovos_memory_service.history import new_id
from ovos_memory_service.scope import Scope

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


SELECT_STATE = ("SELECT s.memory_id, m.content, s.covered_seq FROM summaries s "
                "JOIN memories m ON m.id = s.memory_id ")


def state(db: Database, conversation_id: str) -> SummaryState:
    row = db.execute(SELECT_STATE + "WHERE s.conversation_id = ?", [conversation_id]).fetchone()
    return SummaryState(*row) if row else SummaryState(None, "", 0)


def latest(db: Database, scope: Scope) -> Optional[SummaryState]:
    """The newest summary of the scope's session: a new conversation carries
    on from the last one's gist, as the seed's per-session summary did."""
    row = db.execute(SELECT_STATE + "WHERE m.user_id = ? AND m.persona_id = ? AND m.session_id = ? "
                     "ORDER BY m.updated_at DESC LIMIT 1",
                     [scope.user_id, scope.persona_key, scope.session_id]).fetchone()
    return SummaryState(*row) if row else None


def turns_after(db: Database, conversation_id: str, covered_seq: int) -> List[dict]:
    """Stored turns (rows) of a conversation that no summary has folded yet."""
    return db.execute_returning_dicts(
        "SELECT * FROM memories WHERE conversation_id = ? AND kind = 'turn' AND seq > ? ORDER BY seq",
        [conversation_id, covered_seq])


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


def save(db: Database, scope: Scope, conversation_id: str, summary: str, folded: List[List[dict]]):
    """Store the new summary of a conversation (the caller holds the lock)."""
    now = time.time()
    folded_ids = [t["id"] for group in folded for t in group]
    last_seq = folded[-1][-1]["seq"]
    current = state(db, conversation_id)
    with db.atomic():
        if current.memory_id is None:
            memory_id = new_id()
            db.execute(
                "INSERT INTO memories (id, kind, user_id, persona_id, session_id, conversation_id, content, "
                "sources, extractor, confidence, created_at, updated_at) "
                "VALUES (?, 'summary', ?, ?, ?, ?, ?, ?, 'llm', ?, ?, ?)",
                [memory_id, scope.user_id, scope.persona_key, scope.session_id, conversation_id, summary,
                 json.dumps(folded_ids), SUMMARY_CONFIDENCE, now, now])
        else:
            memory_id = current.memory_id
            sources = json.loads(db.execute("SELECT sources FROM memories WHERE id = ?",
                                            [memory_id]).fetchone()[0] or "[]")
            db.execute("UPDATE memories SET content = ?, sources = ?, updated_at = ? WHERE id = ?",
                       [summary, json.dumps(sources + folded_ids), now, memory_id])
        db.execute("INSERT OR REPLACE INTO summaries (conversation_id, memory_id, covered_seq) VALUES (?, ?, ?)",
                   [conversation_id, memory_id, last_seq])


def built_on(db: Database, user_id: str, turn_ids) -> List[str]:
    """Summaries that folded any of ``turn_ids``: they repeat what is forgotten."""
    gone = set(turn_ids)
    return [memory_id for memory_id, sources in db.execute(
        "SELECT id, sources FROM memories WHERE user_id = ? AND kind = 'summary' AND sources IS NOT NULL",
        [user_id]) if gone & set(json.loads(sources))]
