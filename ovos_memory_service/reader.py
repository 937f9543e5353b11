"""What backends may read from the store: the live window and recall.
One object per engine; callers hold the engine's lock."""
from typing import List, Optional, Sequence

from sqlite_utils import Database

from ovos_memory_service import lexical
from ovos_memory_service.history import live_window
from ovos_memory_service.items import MemoryItem
from ovos_memory_service.memories import visible
from ovos_memory_service.scope import Scope
from ovos_memory_service.wire import ChatMessage


class StoreReader:
    def __init__(self, db: Database, config: dict):
        self.db = db
        self.config = config

    @property
    def timeout_s(self) -> float:
        return self.config["session_timeout_minutes"] * 60

    def window(self, scope: Scope, now: float, limit: int = 0,
               max_age: Optional[float] = None) -> List[ChatMessage]:
        """The newest ``limit`` turns (0: all) of the live conversation, oldest
        first, without turns older than ``max_age`` seconds."""
        turns = live_window(self.db, scope, now, self.timeout_s, limit)
        if max_age is not None:
            turns = [t for t in turns if now - t.created_at <= max_age]
        return turns

    def visible(self, scope: Scope, kinds: Sequence[str], where: str = "user"):
        return visible(scope, kinds, where, share_turns=self.config["share_turns_across_personas"],
                       share_facts=self.config["share_facts_across_personas"])

    def keyword_search(self, scope: Scope, text: str, limit: int, kinds: Sequence[str],
                       where: str = "user", exclude_ids: Sequence[str] = (),
                       exclude_content: str = "") -> List[MemoryItem]:
        sql, args = self.visible(scope, kinds, where)
        return lexical.search(self.db, text, scope.lang, sql, args, exclude_ids=exclude_ids,
                              exclude_content=exclude_content, limit=limit)
