"""Long-term memory items as the protocol returns them (memory.recall's shape)."""
from dataclasses import dataclass
from typing import Optional

from ovos_memory_service.wire import iso_time

KINDS = ("turn", "fact", "preference", "skill", "attribute", "summary")
USER_FACT_KINDS = ("fact", "preference", "skill")


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

    @classmethod
    def from_row(cls, row: dict, score: float = 0.0, rank_score: float = 0.0) -> "MemoryItem":
        return cls(id=row["id"], content=row["content"], kind=row["kind"],
                   created_at=row["created_at"], session_id=row["session_id"],
                   persona_id=row["persona_id"], role=row["role"], name=row["name"],
                   score=score, rank_score=rank_score)

    def to_wire(self) -> dict:
        return {"id": self.id, "content": self.content, "kind": self.kind,
                "score": round(self.score, 6), "rank_score": round(self.rank_score, 6),
                "created_at": iso_time(self.created_at), "session_id": self.session_id,
                "persona_id": self.persona_id or None}

    @property
    def speaker(self) -> str:
        if self.name:
            return self.name
        return {"user": "User", "assistant": "Assistant"}.get(self.role or "", "")
