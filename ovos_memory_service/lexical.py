"""Keyword recall over the memories table with SQLite FTS5 and bm25.

Each turn is indexed with its speaker's name, its text, and as context the
text of the turn before it (a reply is found by the question it answers).
Ranking is FTS5's bm25 with the column weights below. The score reported for
each hit is on a 0..1 scale that means the same on any corpus: the
idf-weighted share of the query's keywords that the memory contains (a
keyword found only in its context counts half),

    score = sum(idf(t) for t in query if t in memory) / sum(idf(t) for t in query)
    idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

so 1.0 means every keyword was found, and a rare keyword counts more than a
common one. Raw bm25 (-bm25, larger is better) is kept as ``rank_score``.
"""
import json
import math
import re
from typing import List, Sequence

from sqlite_utils import Database

from ovos_memory_service.items import MemoryItem
from ovos_memory_service.resources import stop_words

TOKEN = re.compile(r"\w+", re.UNICODE)
# bm25 weights of the name, content and context columns
WEIGHTS = (0.5, 1.0, 0.4)
# a keyword found only in the context counts this much toward the score
CONTEXT_CREDIT = 0.5


def keywords(text: str, lang: str) -> List[str]:
    """The searchable words of ``text``: lowercased, stop words and
    one-letter words out, each once, in order."""
    stops = stop_words(lang)
    words = []
    for raw in re.split(r"\s+", text.lower()):
        if raw.strip("?!.,;:\"()") in stops:
            continue
        for token in TOKEN.findall(raw):
            if (len(token) > 1 or token.isdigit()) and token not in stops and token not in words:
                words.append(token)
    return words


def quote(token: str) -> str:
    """A token as an FTS5 string: user text is data, never query syntax."""
    return '"' + token.replace('"', '""') + '"'


def match_expression(words: Sequence[str]) -> str:
    return " OR ".join(quote(w) for w in words)


def search(db: Database, text: str, lang: str, visible_sql: str, visible_args: list,
           exclude_ids: Sequence[str] = (), exclude_content: str = "",
           limit: int = 5) -> List[MemoryItem]:
    """Memories matching any keyword of ``text`` among those ``visible_sql``
    selects (a condition on alias ``m``), best first."""
    words = keywords(text, lang)
    if not words or limit <= 0:
        return []
    sql = (
        "SELECT m.*, -bm25(memories_fts, %s, %s, %s) AS relevance " % WEIGHTS +
        "FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? AND {visible_sql} "
        "AND m.id NOT IN (SELECT value FROM json_each(?)) "
        "AND NOT (m.kind = 'turn' AND m.role = 'user' AND lower(m.content) = lower(?)) "
        "ORDER BY relevance DESC LIMIT ?")
    rows = db.execute_returning_dicts(
        sql, [match_expression(words), *visible_args, json.dumps(list(exclude_ids)),
              exclude_content.strip(), limit])
    coverage = _coverage(db, words, [r["seq"] for r in rows])
    return [MemoryItem.from_row(r, score=coverage[r["seq"]], rank_score=r["relevance"])
            for r in rows]


def _coverage(db: Database, words: Sequence[str], seqs: List[int]) -> dict:
    """idf-weighted share of ``words`` found in each of ``seqs`` (see module doc)."""
    if not seqs:
        return {}
    total_docs = db.execute("SELECT count(*) FROM memories").fetchone()[0]
    found = {seq: 0.0 for seq in seqs}
    idf_sum = 0.0
    # a word's whole match list, intersected here: FTS5 is slow with "rowid IN (...)"
    matching = "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?"
    for word in words:
        in_memory = {r[0] for r in db.execute(matching, ["{name content} : " + quote(word)])}
        in_context = {r[0] for r in db.execute(matching, ["{context} : " + quote(word)])}
        n = len(in_memory)
        idf = math.log(1 + (total_docs - n + 0.5) / (n + 0.5))
        idf_sum += idf
        for seq in found:
            if seq in in_memory:
                found[seq] += idf
            elif seq in in_context:
                found[seq] += CONTEXT_CREDIT * idf
    return {seq: (value / idf_sum if idf_sum else 0.0) for seq, value in found.items()}
