"""Keyword recall with SQLite FTS5 and bm25.

Each turn is indexed with its speaker's name, its text, and as context the
text of the turn before it (a reply is found by the question it answers).
Ranking is FTS5's bm25 with the column weights below (``rank``, -bm25).
Relevance evidence comes from a memory's own words only (``coverage``): the
idf-weighted share of the query's keywords that its text contains,

    coverage = sum(idf(t) for t in query if t in memory) / sum(idf(t) for t in query)

with the idf of store/idf.py, so 1.0 means every keyword was found, a rare
keyword counts more than a common one, and a keyword found only in the
speaker's name or the turn before counts nothing.
"""
import sqlite3
from typing import Dict, List, Sequence

from ovos_memory_service.common.words import misread
from ovos_memory_service.store.base import Exclude, Visible
from ovos_memory_service.store.sqlite.memories import as_json, condition, excluding
from ovos_memory_service.store.sql import selected
from ovos_memory_service.store.tokens import TOKENIZER

# bm25 weights of the name, content, context and owner columns (the owner
# number only narrows the search to one user's memories)
WEIGHTS = (0.5, 1.0, 0.4, 0.0)
OWN_WORDS = "{content} : "  # an FTS5 column filter: neither the speaker nor the context


def _matching(scratch, expression: str) -> set:
    """The rowids of the scratch index that match an FTS5 expression."""
    return {seq for (seq,) in scratch.execute("SELECT rowid FROM candidates WHERE candidates MATCH ?", [expression])}


def quote(token: str) -> str:
    """A token as an FTS5 string: user text is data, never query syntax."""
    return '"' + token.replace('"', '""') + '"'


def match_expression(words: Sequence[str]) -> str:
    return " OR ".join(quote(w) for w in words)


def owned_by(owner: int, expression: str) -> str:
    """``expression`` among one user's memories only."""
    return f'owner : "{owner}" AND ({expression})'


class KeywordIndex:
    """SqliteStore's keyword recall (self.db, self._lock)."""

    def keyword_search(self, visible: Visible, words: Sequence[str], limit: int,
                       exclude: Exclude = Exclude()) -> List[dict]:
        owner = self._owner_of(visible.scope.user_id)
        if not words or limit <= 0 or owner is None:
            return []
        sql, args = condition(visible)
        left_out, left_out_args = excluding(exclude)
        # ranked by bm25 on the FTS5 side alone; whole rows are read for the best ``limit`` only
        with self._reading() as db:
            words = self._terms.held(db, words)
            if not words:
                return []
            return db.execute_returning_dicts(
                "SELECT m.*, best.rank FROM (SELECT memories_fts.rowid AS seq, "
                "-bm25(memories_fts, %s, %s, %s, %s) AS rank " % WEIGHTS +
                "FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid "
                f"WHERE memories_fts MATCH ? AND {sql} AND {left_out} ORDER BY rank DESC LIMIT ?) AS best "
                "JOIN memories m ON m.seq = best.seq ORDER BY best.rank DESC",
                [owned_by(owner, match_expression(words)), *args, *left_out_args, limit])

    def coverage(self, words: Sequence[str], seqs: Sequence[int], related: Dict[str, Sequence[str]]):
        direct = {seq: 0.0 for seq in seqs}
        topical = dict(direct)
        if not direct or not words:
            return direct, topical
        with self._reading() as db:
            texts = db.execute("SELECT seq, content FROM memories WHERE seq IN (SELECT value FROM json_each(?))",
                               [as_json(direct)]).fetchall()
            idfs = self._document_counts.idfs(self._memory_count, words, lambda stale: [db.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", [OWN_WORDS + quote(w)]).fetchone()[0]
                for w in stale])
            # a topic's words that no memory says match no candidate either
            related = {w: self._terms.held(db, related[w]) for w in related}
        # which candidate says which word: matched in a scratch index of the
        # candidates alone (the same tokenizer), not in the whole store's
        scratch, text_of = self._scratch_index(texts), dict(texts)
        for word, idf in zip(words, idfs):
            having = {seq for seq in _matching(scratch, quote(word)) if not misread(text_of[seq], [word])}
            for seq in having:
                direct[seq] += idf
            if related.get(word):
                for seq in _matching(scratch, "(" + match_expression(related[word]) + ")") - having:
                    if not misread(text_of[seq], related[word]):
                        topical[seq] += idf
        idf_sum = sum(idfs)
        share = (lambda found: {seq: (value / idf_sum if idf_sum else 0.0) for seq, value in found.items()})
        return share(direct), share(topical)

    def _scratch_index(self, texts):
        """This thread's in-memory FTS5 index, holding only ``texts`` ((seq, content))."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = sqlite3.connect(":memory:", check_same_thread=False)
            scratch.execute(f"CREATE VIRTUAL TABLE candidates USING fts5 (content, tokenize='{TOKENIZER}')")
        scratch.execute("DELETE FROM candidates")
        scratch.executemany("INSERT INTO candidates (rowid, content) VALUES (?, ?)", texts)
        return scratch

    def adjacent_turns(self, visible: Visible, ids: Sequence[str], exclude: Exclude = Exclude(),
                       columns: Sequence[str] = ()) -> Dict[str, List[dict]]:
        sql, args = condition(visible)
        left_out, left_out_args = excluding(exclude)
        step = ("(SELECT {f}(p.seq) FROM memories p WHERE p.conversation_id = h.conversation_id "
                "AND p.kind = 'turn' AND p.seq {op} h.seq)")
        with self._reading() as db:
            rows = db.execute_returning_dicts(
                f"SELECT h.id AS source, {selected(columns, 'm.*')} FROM memories h "
                "JOIN memories m "
                f"ON m.seq IN ({step.format(f='max', op='<')}, {step.format(f='min', op='>')}) "
                f"WHERE h.id IN (SELECT value FROM json_each(?)) AND h.kind = 'turn' AND {sql} AND {left_out}",
                [as_json(ids), *args, *left_out_args])
        found = {}
        for row in rows:
            found.setdefault(row.pop("source"), []).append(row)
        return found

    def rebuild_keywords(self):
        with self._lock:
            self.db.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
