"""What a person reviewing their memories does beyond the protocol: read
chosen memories and their provenance, and correct a fact that is wrong."""
from dataclasses import replace
from typing import List, Sequence

from ovos_memory_service.common.errors import InvalidRequest, NotFound
from ovos_memory_service.common.items import EXPLICIT_KINDS, KINDS, MemoryItem
from ovos_memory_service.common.scope import Scope


class Corrections:
    """Mixed into MemoryEngine (self.store, self.reader, self.background,
    self._record_statement, self._tell_forgotten)."""

    def memories(self, scope: Scope, ids: Sequence[str], kinds: Sequence[str] = KINDS,
                 where: str = "all") -> List[MemoryItem]:
        """Those of ``ids`` the scope may see (current ones), newest first:
        another user's ids give nothing."""
        rows = self.store.select_visible(self.reader.visible(scope, kinds, where), list(ids))
        return [MemoryItem.from_row(r) for r in rows]

    def correct(self, scope: Scope, memory_id: str, content: str) -> str:
        """Replace a fact, preference, skill or attribute the user says is
        wrong with ``content``, in one transaction: the wrong memory leaves
        the store for real (its row, keyword entry and vector; it was never
        true, so no history of it is kept), then ``content`` goes through the
        fact model as ``memory.remember`` does, in the old memory's persona
        (a statement in a slot fills it, a restatement of another fact
        updates that one, a statement it does not understand keeps the old
        memory's kind). Returns the id of the memory that holds the correction
        (a new id: a memory's id names one text). NotFound if ``memory_id`` is
        not a current fact of the scope's user (turns and summaries are what
        was said, and are forgotten, not corrected)."""
        with self.store.transaction():
            found = self.memories(scope, [memory_id], EXPLICIT_KINDS)
            if not found:
                raise NotFound("no fact of this user has that id")
            if self.store.is_paused(scope):
                raise InvalidRequest("memory is paused for this user; resume it first")
            old = found[0]
            self.store.delete([old.id])
            owner = replace(scope, persona_id=old.persona_id or None)
            new_id = self._record_statement(owner, content, "attribute" if old.kind == "attribute" else None,
                                            unknown_kind=old.kind)
        self._tell_forgotten(scope.user_id, [old.id])
        self.background.wake()
        return new_id

    def facets(self, user_id: str) -> dict:
        """The user's current memories counted by persona and by session."""
        return self.store.user_facets(user_id)
