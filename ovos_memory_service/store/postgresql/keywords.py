"""Keyword recall with PostgreSQL full-text search (store/postgresql/text.py
says what is indexed).

``keyword_search`` ranks the memories of the asking user that match any
word, with ts_rank_cd over the weighted ``search`` vector (``rank``; a
keyword rank on PostgreSQL's own scale, not bm25's: ranks are compared
within one search only). The query is made once per text search
configuration the user's memories use, each matched against the memories
indexed with it (GIN index on ``search``; the user's rows by their index).

``coverage`` is SQLite's (store/sqlite/keywords.py), on the same tokens:

    coverage = sum(idf(t) for t in query if t in memory) / sum(idf(t) for t in query)

with the idf of store/idf.py, n_t counted on ``terms`` (a memory's own text),
so a calibrated relevance score means the same on both stores. N, every
stored memory, is counted again every ``TOTAL_KEEP_S`` seconds.
"""
import time
from typing import Dict, List, Sequence

from ovos_memory_service.common.words import misread
from ovos_memory_service.store.base import Exclude, Visible
from ovos_memory_service.store.postgresql.memories import ROW, condition, excluding
from ovos_memory_service.store.postgresql.text import RANK_NORMALIZATION, RANK_WEIGHTS, fold, ts_config
from ovos_memory_service.store.sql import selected

TOTAL_KEEP_S = 10.0

# the text of the turn before a memory in its conversation (the context a reply is found by)
PREVIOUS = ("(SELECT p.content FROM memories p WHERE p.conversation_id = m.conversation_id "
            "AND p.kind = 'turn' AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1)")
# the language of a memory: its conversation's, else its session's newest conversation's
LANG = ("coalesce((SELECT c.lang FROM conversations c WHERE c.id = m.conversation_id), "
        "(SELECT s.lang FROM conversations s WHERE s.user_id = m.user_id AND s.session_id = m.session_id "
        "AND s.lang IS NOT NULL ORDER BY s.started_at DESC, s.n DESC LIMIT 1))")
SEARCH = ("setweight(to_tsvector(%(cfg)s::text::regconfig, %(name)s), 'B') || "
          "setweight(to_tsvector(%(cfg)s::text::regconfig, %(content)s), 'A') || "
          "setweight(to_tsvector(%(cfg)s::text::regconfig, %(context)s), 'C')")


class KeywordIndex:
    """PostgresStore's keyword recall."""

    # ------------------------------------------------------------- index
    def _index_text(self, cur, seqs: Sequence[int]):
        """(Re)index the memories ``seqs`` that exist, with their current context."""
        if not seqs:
            return
        rows = cur.execute(f"SELECT m.seq, m.user_id, m.name, m.content, {PREVIOUS} AS context, {LANG} AS lang "
                           "FROM memories m WHERE m.seq = ANY(%s::bigint[])", [list(dict.fromkeys(seqs))]).fetchall()
        if not rows:
            return
        terms = self._tokens.tsvector([r["content"] for r in rows])
        values = [{"seq": r["seq"], "user_id": r["user_id"], "cfg": ts_config(r["lang"] or self.lang, self._configs),
                   "name": fold(r["name"]), "content": fold(r["content"]), "context": fold(r["context"]),
                   "terms": literal} for r, literal in zip(rows, terms)]
        cur.executemany(
            "INSERT INTO memory_text (seq, user_id, ts_config, search, terms) VALUES "
            f"(%(seq)s, %(user_id)s, %(cfg)s::text, {SEARCH}, %(terms)s::tsvector) ON CONFLICT (seq) DO UPDATE SET "
            "user_id = excluded.user_id, ts_config = excluded.ts_config, search = excluded.search, "
            "terms = excluded.terms", values)
        cur.executemany("INSERT INTO user_configs (user_id, ts_config) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                        sorted({(v["user_id"], v["cfg"]) for v in values}))

    @staticmethod
    def _next_turns(cur, rows: List[dict]) -> List[int]:
        """The seq of the turn after each of ``rows`` (seq, kind, conversation_id)
        that is a turn: it is indexed with that turn's text as its context."""
        turns = [(r["conversation_id"], r["seq"]) for r in rows if r["kind"] == "turn" and r["conversation_id"]]
        if not turns:
            return []
        return [r["seq"] for r in cur.execute(
            "SELECT (SELECT n.seq FROM memories n WHERE n.conversation_id = t.conversation_id AND n.kind = 'turn' "
            "AND n.seq > t.seq ORDER BY n.seq LIMIT 1) AS seq FROM unnest(%s::text[], %s::bigint[]) "
            "AS t(conversation_id, seq)", [[c for c, _ in turns], [s for _, s in turns]]) if r["seq"] is not None]

    def _language_of(self, cur, conversation_ids: Sequence[str], lang: str):
        """Conversations whose session speaks ``lang``: their memories are
        indexed again with its configuration where it differs."""
        changed = [r["id"] for r in cur.execute(
            "UPDATE conversations SET lang = %s WHERE id = ANY(%s::text[]) AND lang IS DISTINCT FROM %s "
            "RETURNING id", [lang, list(conversation_ids), lang])]
        if changed:
            self._index_text(cur, [r["seq"] for r in cur.execute(
                "SELECT m.seq FROM memories m JOIN memory_text t ON t.seq = m.seq "
                "WHERE m.conversation_id = ANY(%s::text[]) AND t.ts_config <> %s",
                [changed, ts_config(lang, self._configs)])])

    def rebuild_keywords(self):
        with self.transaction(), self._cursor() as cur:
            cur.execute("DELETE FROM user_configs")
            seqs = [r["seq"] for r in cur.execute("SELECT seq FROM memories ORDER BY seq")]
            for start in range(0, len(seqs), 1000):
                self._index_text(cur, seqs[start:start + 1000])

    # ------------------------------------------------------------ recall
    def keyword_search(self, visible: Visible, words: Sequence[str], limit: int,
                       exclude: Exclude = Exclude()) -> List[dict]:
        user_id = visible.scope.user_id
        if not words or limit <= 0:
            return []
        with self._cursor(user_id) as cur:
            configs = [r["ts_config"] for r in cur.execute(
                "SELECT ts_config FROM user_configs WHERE user_id = %s ORDER BY ts_config", [user_id])]
            if not configs:
                return []
            sql, args = condition(visible)
            left_out, left_out_args = excluding(exclude)
            folded = [fold(w) for w in words]
            queries, query_args = [], []
            for config in configs:  # one query per configuration: each matches with the GIN index
                queries.append("(%s, " + " || ".join(["phraseto_tsquery(%s::regconfig, %s)"] * len(folded)) + ")")
                query_args += [config, *(a for w in folded for a in (config, w))]
            return cur.execute(
                f"SELECT {ROW}, ts_rank_cd('{RANK_WEIGHTS}', t.search, q.query, {RANK_NORMALIZATION}) AS rank "
                f"FROM (VALUES {', '.join(queries)}) AS q (cfg, query) "
                "JOIN memory_text t ON t.ts_config = q.cfg AND t.search @@ q.query "
                "JOIN memories m ON m.seq = t.seq "
                f"WHERE t.user_id = %s AND {sql} AND {left_out} ORDER BY rank DESC, m.seq DESC LIMIT %s",
                [*query_args, user_id, *args, *left_out_args, limit]).fetchall()

    def coverage(self, words: Sequence[str], seqs: Sequence[int], related: Dict[str, Sequence[str]]):
        direct = {seq: 0.0 for seq in seqs}
        topical = dict(direct)
        if not direct or not words:
            return direct, topical
        phrases = [self._tokens.phrase(w) for w in words]
        topics = [self._tokens.any_of(related[w]) if related.get(w) else None for w in words]
        with self._cursor() as cur:
            rows = cur.execute(
                "SELECT w.i, CASE WHEN w.q IS NULL THEN '{}' ELSE ARRAY(SELECT t.seq FROM memory_text t "
                "WHERE t.seq = ANY(%(seqs)s::bigint[]) AND t.terms @@ w.q) END AS having, "
                "CASE WHEN w.r IS NULL THEN '{}' ELSE ARRAY(SELECT t.seq FROM memory_text t "
                "WHERE t.seq = ANY(%(seqs)s::bigint[]) AND t.terms @@ w.r) END AS related "
                "FROM unnest(%(q)s::tsquery[], %(r)s::tsquery[]) WITH ORDINALITY AS w (q, r, i) ORDER BY w.i",
                {"seqs": list(direct), "q": phrases, "r": topics}).fetchall()
            text_of = {r["seq"]: r["content"] for r in cur.execute(
                "SELECT seq, content FROM memories WHERE seq = ANY(%s::bigint[])", [list(direct)])}
            idfs = self._document_counts.idfs(self._memory_total(cur), phrases, lambda stale: [
                r["n"] for r in cur.execute(
                    "SELECT CASE WHEN w.q IS NULL THEN 0 ELSE (SELECT count(*) FROM memory_text t "
                    "WHERE t.terms @@ w.q) END AS n FROM unnest(%s::tsquery[]) WITH ORDINALITY AS w (q, i) "
                    "ORDER BY w.i", [stale])])
        for word, row, idf in zip(words, rows, idfs):
            having = {seq for seq in row["having"] if not misread(text_of[seq], [word])}
            for seq in having:
                direct[seq] += idf
            for seq in set(row["related"]) - having:
                if not misread(text_of[seq], related[word]):
                    topical[seq] += idf
        idf_sum = sum(idfs)
        share = (lambda found: {seq: (value / idf_sum if idf_sum else 0.0) for seq, value in found.items()})
        return share(direct), share(topical)

    def _memory_total(self, cur) -> int:
        """Every stored memory: this store's own writes are counted as they
        happen, and the whole is counted again after ``TOTAL_KEEP_S`` (other
        daemons write too, and a transaction may roll back)."""
        counted, at = self._total
        if counted is None or time.monotonic() - at > TOTAL_KEEP_S:
            counted = cur.execute("SELECT count(*) AS n FROM memories").fetchone()["n"]
            self._total = (counted, time.monotonic())
        return counted

    def _total_changed(self, by: int):
        counted, at = self._total
        if counted is not None:
            self._total = (max(0, counted + by), at)

    def adjacent_turns(self, visible: Visible, ids: Sequence[str], exclude: Exclude = Exclude(),
                       columns: Sequence[str] = ()) -> Dict[str, List[dict]]:
        sql, args = condition(visible)
        left_out, left_out_args = excluding(exclude)
        step = ("(SELECT {f}(p.seq) FROM memories p WHERE p.conversation_id = h.conversation_id "
                "AND p.kind = 'turn' AND p.seq {op} h.seq)")
        with self._cursor(visible.scope.user_id) as cur:
            rows = cur.execute(
                f"SELECT h.id AS source, {selected(columns, ROW)} FROM memories h "
                "JOIN memories m "
                f"ON m.seq IN ({step.format(f='max', op='<')}, {step.format(f='min', op='>')}) "
                f"WHERE h.id = ANY(%s::text[]) AND h.kind = 'turn' AND {sql} AND {left_out} ORDER BY m.seq",
                [list(ids), *args, *left_out_args]).fetchall()
        found = {}
        for row in rows:
            found.setdefault(row.pop("source"), []).append(row)
        return found
