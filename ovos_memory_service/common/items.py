"""Long-term memory items as the protocol returns them (memory.recall's shape)."""
import json
import re
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from typing import List, Optional

from ovos_memory_service.common.wire import iso_time

KINDS = ("turn", "fact", "preference", "skill", "attribute", "summary")
USER_FACT_KINDS = ("fact", "preference", "skill")
# what memory.remember stores (turns and summaries come from conversations)
EXPLICIT_KINDS = ("fact", "preference", "skill", "attribute")
# kinds learnt from turns: they carry the ids of the turns they came from
DERIVED_KINDS = (*USER_FACT_KINDS, "attribute", "summary")


def new_id() -> str:
    return uuid.uuid4().hex


SPACES = re.compile(r"\s+")


@lru_cache(maxsize=8192)  # a build compares a few hundred memories, most of them again the next time
def normalized(text: str) -> str:
    """What makes two statements the same restatement: case, spacing and
    closing punctuation do not count."""
    return SPACES.sub(" ", text.casefold()).strip().rstrip(".!;").strip()


@dataclass
class MemoryItem:
    id: str
    content: str
    kind: str
    created_at: float
    session_id: str
    persona_id: str
    role: Optional[str] = None
    name: Optional[str] = None
    score: float = 0.0       # relevance in 0..1, comparable across kinds and backends
    rank_score: float = 0.0  # the score the final ranking used
    sources: List[str] = field(default_factory=list)  # derived kinds: the turns it came from
    value: Optional[str] = None  # a fact's value ("Lisbon"), when its slot is known
    slot: Optional[str] = None   # a fact's slot ("residence"), when the fact model knows it
    seq: int = 0  # the row's place in the store (keyword index key)
    answers: Optional[str] = None  # a reply forgotten with the user turn it answered: that turn's id
    auth_level: Optional[int] = None  # the speaker's level when it was said (None: not known)

    @classmethod
    def from_row(cls, row: dict, score: float = 0.0, rank_score: float = 0.0) -> "MemoryItem":
        sources = row.get("sources")
        return cls(id=row["id"], content=row["content"], kind=row["kind"],
                   created_at=row["created_at"], session_id=row["session_id"],
                   persona_id=row["persona_id"], role=row["role"], name=row["name"],
                   score=score, rank_score=rank_score,
                   sources=json.loads(sources) if sources else [], value=row.get("value"),
                   slot=row.get("slot"), seq=row.get("seq") or 0, auth_level=row.get("auth_level"))

    def to_wire(self) -> dict:
        wire = {"id": self.id, "content": self.content, "kind": self.kind,
                "score": round(self.score, 6), "rank_score": round(self.rank_score, 6),
                "created_at": iso_time(self.created_at), "session_id": self.session_id,
                "persona_id": self.persona_id or None, "auth_level": self.auth_level}
        if self.kind in DERIVED_KINDS:
            wire["sources"] = list(self.sources)
        return wire

    @property
    def speaker(self) -> str:
        if self.name:
            return self.name
        return {"user": "User", "assistant": "Assistant"}.get(self.role or "", "")
