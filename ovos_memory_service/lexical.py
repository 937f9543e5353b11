"""Keyword recall over the memories table with SQLite FTS5 and bm25.

Each turn is indexed with its speaker's name, its text, and as context the
text of the turn before it (a reply is found by the question it answers).
Ranking is FTS5's bm25 with the column weights below (``rank_score``, -bm25).
Relevance evidence comes from a memory's own words only (``coverage``): the
idf-weighted share of the query's keywords that its text contains,

    coverage = sum(idf(t) for t in query if t in memory) / sum(idf(t) for t in query)
    idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

so 1.0 means every keyword was found, a rare keyword counts more than a
common one, and a keyword found only in the speaker's name or the turn
before counts nothing.
"""
import json
import math
import re
from typing import List, Sequence

from sqlite_utils import Database

from ovos_memory_service.items import MemoryItem
from ovos_memory_service.resources import stop_words, topics

TOKEN = re.compile(r"\w+", re.UNICODE)
# bm25 weights of the name, content and context columns
WEIGHTS = (0.5, 1.0, 0.4)
OWN_WORDS = "{content} : "  # an FTS5 column filter: neither the speaker nor the context


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


def topic_words(words: Sequence[str], lang: str) -> dict:
    """keyword -> the words of its topic (topics.list), for keywords that name one."""
    known = topics(lang)
    return {w: known[w] for w in words if w in known}


def search(db: Database, text: str, lang: str, visible_sql: str, visible_args: list,
           exclude_ids: Sequence[str] = (), exclude_content: str = "",
           limit: int = 5) -> List[MemoryItem]:
    """Memories matching any keyword of ``text`` among those ``visible_sql``
    selects (a condition on alias ``m``), best first."""
    words = keywords(text, lang)
    if not words or limit <= 0:
        return []
    related = topic_words(words, lang)
    searched = list(dict.fromkeys([*words, *(m for members in related.values() for m in members)]))
    sql = (
        "SELECT m.*, -bm25(memories_fts, %s, %s, %s) AS relevance " % WEIGHTS +
        "FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? AND {visible_sql} "
        "AND m.id NOT IN (SELECT value FROM json_each(?)) "
        "AND NOT (m.kind = 'turn' AND m.role = 'user' AND lower(m.content) = lower(?)) "
        "ORDER BY relevance DESC LIMIT ?")
    rows = db.execute_returning_dicts(
        sql, [match_expression(searched), *visible_args, json.dumps(list(exclude_ids)),
              exclude_content.strip(), limit])
    found = coverage(db, words, [r["seq"] for r in rows], related)[0]
    return [MemoryItem.from_row(r, score=found[r["seq"]], rank_score=r["relevance"])
            for r in rows]


def coverage(db: Database, words: Sequence[str], seqs: Sequence[int], related: dict = None):
    """Two maps seq -> idf-weighted share of ``words``: those the memory's own
    text contains (see the module doc), and those it does not contain but
    talks about through their topic's words (``related``, topic_words())."""
    direct = {seq: 0.0 for seq in seqs}
    topical = dict(direct)
    if not direct or not words:
        return direct, topical
    total_docs = db.execute("SELECT count(*) FROM memories").fetchone()[0]
    wanted = json.dumps(list(direct))
    idf_sum = 0.0
    for word in words:
        expression = OWN_WORDS + quote(word)
        n = db.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", [expression]).fetchone()[0]
        idf = math.log(1 + (total_docs - n + 0.5) / (n + 0.5))
        idf_sum += idf
        having = _matching(db, expression, wanted)
        for seq in having:
            direct[seq] += idf
        if (related or {}).get(word):
            for seq in _matching(db, OWN_WORDS + "(" + match_expression(related[word]) + ")", wanted) - having:
                topical[seq] += idf
    share = (lambda found: {seq: (value / idf_sum if idf_sum else 0.0) for seq, value in found.items()})
    return share(direct), share(topical)


def _matching(db: Database, expression: str, wanted: str) -> set:
    """The rowids among ``wanted`` (a JSON list) that match an FTS5 expression."""
    return {seq for (seq,) in db.execute("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? "
                                         "AND rowid IN (SELECT value FROM json_each(?))", [expression, wanted])}
