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

from ovos_memory_service.common.items import USER_FACT_KINDS, new_id, normalized
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Store, Visible

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


def _current(store: Store, scope: Scope, kind: str, share_facts: bool, slot: str, value: Optional[str] = None):
    rows = store.in_slot(Visible(scope, (kind,), share_facts=share_facts), slot)
    if value is not None:
        rows = [r for r in rows if normalized(r["value"] or "") == normalized(value)]
    return rows


def _merge_sources(row: dict, sources: Sequence[str]) -> str:
    known = json.loads(row["sources"] or "[]")
    return json.dumps(known + [s for s in sources if s not in known])


def _insert(store: Store, scope: Scope, fact: Fact, now: float, status: str = "current",
            created_at: Optional[float] = None) -> str:
    return store.insert_memory({
        "id": new_id(), "kind": fact.kind, "user_id": scope.user_id, "persona_id": scope.persona_key,
        "session_id": scope.session_id, "content": fact.content.strip(), "slot": fact.slot, "value": fact.value,
        "status": status, "confidence": CONFIDENCE.get(fact.extractor, 0.5), "sources": json.dumps(list(fact.sources)),
        "extractor": fact.extractor, "created_at": created_at if created_at is not None else now, "updated_at": now})


def _touch(store: Store, row: dict, fact: Fact, now: float) -> str:
    """``fact`` restates ``row``: one fact, in the words of its most trusted
    source (the rules and an LLM learn it in either order)."""
    confidence = CONFIDENCE.get(fact.extractor, 0.5)
    words = ({"content": fact.content.strip(), "extractor": fact.extractor}
             if confidence > (row["confidence"] or 0) else {})
    store.update_memory(row["id"], updated_at=now, sources=_merge_sources(row, fact.sources),
                        confidence=max(row["confidence"] or 0, confidence), **words)
    return row["id"]


def _retract(store: Store, rows: List[dict], now: float):
    for row in rows:
        store.update_memory(row["id"], status="retracted", updated_at=now)


def _same_words(store: Store, scope: Scope, fact: Fact, share_facts: bool) -> Optional[dict]:
    """A current fact about the user worded like ``fact``, whatever its slot or
    kind ("Lives in Porto" from an LLM and from the rules)."""
    kinds = USER_FACT_KINDS if fact.kind in USER_FACT_KINDS else (fact.kind,)
    visible = Visible(scope, tuple(kinds), share_facts=share_facts)
    for row in store.list_visible(visible, store.count_visible(visible)):
        if normalized(row["content"]) == normalized(fact.content):
            return row
    return None


def record(store: Store, scope: Scope, fact: Fact, share_facts: bool = True) -> Optional[str]:
    """Store ``fact`` under the rules above, in one transaction; returns the
    id of the memory that now holds it (None when a negation found nothing)."""
    now = time.time()
    with store.transaction():
        worded = _same_words(store, scope, fact, share_facts)
        if fact.slot is None:
            return _touch(store, worded, fact, now) if worded else _insert(store, scope, fact, now)
        if fact.negated:
            matching = _current(store, scope, fact.kind, share_facts, fact.slot,
                                fact.value if fact.multi or fact.value else None)
            _retract(store, matching, now)
            return matching[0]["id"] if matching else None
        if fact.slot in OPPOSITES:
            _retract(store, _current(store, scope, fact.kind, share_facts, OPPOSITES[fact.slot], fact.value), now)
        same = _current(store, scope, fact.kind, share_facts, fact.slot, fact.value)
        if same:
            return _touch(store, same[0], fact, now)
        current = [] if fact.multi else _current(store, scope, fact.kind, share_facts, fact.slot)
        if not current and worded and worded["slot"] is None:  # said before without a slot: give it one
            store.update_memory(worded["id"], kind=fact.kind, slot=fact.slot, value=fact.value)
            return _touch(store, worded, fact, now)
        if not current:
            return _insert(store, scope, fact, now)
        row = current[0]
        history = Fact(kind=row["kind"], content=row["content"], slot=row["slot"], value=row["value"],
                       sources=json.loads(row["sources"] or "[]"), extractor=row["extractor"] or "user")
        _insert(store, scope, history, now, status="superseded", created_at=row["created_at"])
        store.update_memory(row["id"], content=fact.content.strip(), value=fact.value,
                            sources=json.dumps(list(fact.sources)), extractor=fact.extractor,
                            confidence=CONFIDENCE.get(fact.extractor, 0.5), created_at=now, updated_at=now)
        return row["id"]


def derived_only_from(derived: Sequence[dict], turn_ids: Sequence[str]) -> List[str]:
    """Ids of extracted facts (and their history), among ``derived`` rows,
    whose every source is in ``turn_ids``."""
    gone = set(turn_ids)
    found = []
    for row in derived:
        listed = set(json.loads(row["sources"]))
        if row["extractor"] in ("rules", "llm") and row["kind"] != "summary" and listed and listed <= gone:
            found.append(row["id"])
    return found
