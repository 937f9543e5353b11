"""The fact model: how a fact about the user is stored so that it stays true.

A fact has a kind (fact, preference, skill; attribute for the persona), a
slot (which attribute: residence, pet.dog.name, likes...), a value, the turns
it came from, who found it (user, rules, llm) and a confidence. One rule set
serves ``memory.remember``, the rule-based extractor and the LLM:

- a restatement of a current fact updates it (provenance merged), adds nothing;
- a new value for a single-valued slot ("I moved to Porto") updates the slot's
  memory in place, keeping its id, and archives the old value as a
  ``superseded`` history row, which is never recalled as current;
- a multi-valued slot (likes, allergies, family members) accumulates values;
- a negation ("I don't like jazz any more") retracts the matching value, and a
  value in one slot retracts the same value in its opposite (likes/dislikes);
- a statement without a slot is deduplicated on its wording, against every
  current fact about the user ("Lives in Porto" from an LLM and from the rules).
"""
import json
import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from sqlite_utils import Database

from ovos_memory_service.history import new_id
from ovos_memory_service.items import USER_FACT_KINDS
from ovos_memory_service.memories import normalized, visible
from ovos_memory_service.scope import Scope

OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}
CONFIDENCE = {"user": 1.0, "rules": 0.8, "llm": 0.6}


@dataclass
class Fact:
    kind: str
    content: str                      # the readable statement that is stored and recalled
    slot: Optional[str] = None
    value: Optional[str] = None
    multi: bool = False
    negated: bool = False
    sources: Sequence[str] = field(default_factory=list)
    extractor: str = "user"


def _current(db: Database, scope: Scope, kind: str, share_facts: bool, slot: str, value: Optional[str] = None):
    sql, args = visible(scope, [kind], share_facts=share_facts)
    rows = db.execute_returning_dicts(
        f"SELECT m.* FROM memories m WHERE {sql} AND m.slot = ? ORDER BY m.updated_at DESC", [*args, slot])
    if value is not None:
        rows = [r for r in rows if normalized(r["value"] or "") == normalized(value)]
    return rows


def _merge_sources(row: dict, sources: Sequence[str]) -> str:
    known = json.loads(row["sources"] or "[]")
    return json.dumps(known + [s for s in sources if s not in known])


def _insert(db: Database, scope: Scope, fact: Fact, now: float, status: str = "current",
            created_at: Optional[float] = None, memory_id: Optional[str] = None) -> str:
    memory_id = memory_id or new_id()
    db.execute(
        "INSERT INTO memories (id, kind, user_id, persona_id, session_id, content, slot, value, status, "
        "confidence, sources, extractor, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [memory_id, fact.kind, scope.user_id, scope.persona_key, scope.session_id, fact.content.strip(),
         fact.slot, fact.value, status, CONFIDENCE.get(fact.extractor, 0.5), json.dumps(list(fact.sources)),
         fact.extractor, created_at if created_at is not None else now, now])
    return memory_id


def _touch(db: Database, row: dict, fact: Fact, now: float) -> str:
    db.execute("UPDATE memories SET updated_at = ?, sources = ?, confidence = max(coalesce(confidence, 0), ?) "
               "WHERE id = ?", [now, _merge_sources(row, fact.sources), CONFIDENCE.get(fact.extractor, 0.5),
                                row["id"]])
    return row["id"]


def _retract(db: Database, rows: List[dict], now: float):
    for row in rows:
        db.execute("UPDATE memories SET status = 'retracted', updated_at = ? WHERE id = ?", [now, row["id"]])


def _same_words(db: Database, scope: Scope, fact: Fact, share_facts: bool) -> Optional[dict]:
    """A current fact about the user worded like ``fact``, whatever its slot or
    kind ("Lives in Porto" from an LLM and from the rules)."""
    kinds = USER_FACT_KINDS if fact.kind in USER_FACT_KINDS else [fact.kind]
    sql, args = visible(scope, kinds, share_facts=share_facts)
    for row in db.execute_returning_dicts(f"SELECT m.* FROM memories m WHERE {sql}", args):
        if normalized(row["content"]) == normalized(fact.content):
            return row
    return None


def record(db: Database, scope: Scope, fact: Fact, share_facts: bool = True) -> Optional[str]:
    """Store ``fact`` under the rules above, in one transaction; returns the
    id of the memory that now holds it (None when a negation found nothing)."""
    now = time.time()
    with db.atomic():
        worded = _same_words(db, scope, fact, share_facts)
        if fact.slot is None:
            return _touch(db, worded, fact, now) if worded else _insert(db, scope, fact, now)
        if fact.negated:
            matching = _current(db, scope, fact.kind, share_facts, fact.slot,
                                fact.value if fact.multi or fact.value else None)
            _retract(db, matching, now)
            return matching[0]["id"] if matching else None
        if fact.slot in OPPOSITES:
            _retract(db, _current(db, scope, fact.kind, share_facts, OPPOSITES[fact.slot], fact.value), now)
        same = _current(db, scope, fact.kind, share_facts, fact.slot, fact.value)
        if same:
            return _touch(db, same[0], fact, now)
        current = [] if fact.multi else _current(db, scope, fact.kind, share_facts, fact.slot)
        if not current and worded and worded["slot"] is None:  # said before without a slot: give it one
            db.execute("UPDATE memories SET kind = ?, slot = ?, value = ? WHERE id = ?",
                       [fact.kind, fact.slot, fact.value, worded["id"]])
            return _touch(db, worded, fact, now)
        if not current:
            return _insert(db, scope, fact, now)
        row = current[0]
        history = Fact(kind=row["kind"], content=row["content"], slot=row["slot"], value=row["value"],
                       sources=json.loads(row["sources"] or "[]"), extractor=row["extractor"] or "user")
        _insert(db, scope, history, now, status="superseded", created_at=row["created_at"])
        db.execute("UPDATE memories SET content = ?, value = ?, sources = ?, extractor = ?, confidence = ?, "
                   "created_at = ?, updated_at = ? WHERE id = ?",
                   [fact.content.strip(), fact.value, json.dumps(list(fact.sources)), fact.extractor,
                    CONFIDENCE.get(fact.extractor, 0.5), now, now, row["id"]])
        return row["id"]


def derived_only_from(db: Database, user_id: str, turn_ids: Sequence[str]) -> List[str]:
    """Ids of extracted facts (and their history) whose every source is in ``turn_ids``."""
    gone = set(turn_ids)
    found = []
    for memory_id, sources in db.execute(
            "SELECT id, sources FROM memories WHERE user_id = ? AND extractor IN ('rules', 'llm') "
            "AND sources IS NOT NULL", [user_id]):
        listed = set(json.loads(sources))
        if listed and listed <= gone:
            found.append(memory_id)
    return found
