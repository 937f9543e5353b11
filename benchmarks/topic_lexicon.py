"""The topic lexicons (locale/<lang>/topics.list) alone, as "forget what I told
you about <one word>" uses them: which turns a one-word topic reaches through
its own word and its topic's words, matched as the store matches them
(words.keywords, words.topic_words, FTS5 with the store's tokenizer).

On the development split only (never the test split): the understanding set's
topics (each names the facts it covers; every other turn of the scenario is of
another topic or small talk) and the relevance set's ``topic_word`` queries.

    python benchmarks/topic_lexicon.py                 # every language, summary
    python benchmarks/topic_lexicon.py --verbose       # and every miss and wrong reach
"""
import argparse
import json
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ovos_memory_service.common.resources import topics  # noqa: E402
from ovos_memory_service.store.sqlite.keywords import TOKENIZER, quote  # noqa: E402
from ovos_memory_service.common.words import keywords, topic_words  # noqa: E402

LANGS = ("en-us", "pt-pt", "es-es", "de-de")


def reacher(lang: str):
    """texts -> the indexes of the texts a topic word reaches (its own word, or its topic's)."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (c, tokenize='{TOKENIZER}')")

    def reach(topic: str, texts):
        words = keywords(topic, lang)
        related = topic_words(words, lang)
        terms = list(dict.fromkeys([*words, *(m for ms in related.values() for m in ms)]))
        db.execute("DELETE FROM t")
        db.executemany("INSERT INTO t (rowid, c) VALUES (?, ?)", [(i + 1, x) for i, x in enumerate(texts)])
        if not terms:
            return set()
        expression = " OR ".join(quote(w) for w in terms)
        return {rowid - 1 for (rowid,) in db.execute("SELECT rowid FROM t WHERE t MATCH ?", [expression])}
    return reach


def cases(lang: str):
    """(source, topic, turns, relevant indexes, judged indexes, user indexes) on the dev split."""
    with open(os.path.join(ROOT, "benchmarks", "understanding", f"{lang}.json"), encoding="utf-8") as f:
        understanding = json.load(f)
    for s in understanding["scenarios"]:
        if s["split"] != "dev":
            continue
        turns, fact_at, users = [], {}, set()
        for e in s["exchanges"]:
            if e.get("fact"):
                fact_at[e["fact"]] = len(turns)
            users.add(len(turns))
            turns += [e["user"], e["assistant"]]
        for t in s["topics"]:
            relevant = {fact_at[x] for x in t["facts"]}
            yield s["id"], t["topic"], turns, relevant, set(range(len(turns))), users
    with open(os.path.join(ROOT, "benchmarks", "relevance", f"{lang}.json"), encoding="utf-8") as f:
        relevance = json.load(f)
    for s in relevance["scenarios"]:
        if s["split"] != "dev":
            continue
        turns = [x for pair in s["exchanges"] for x in pair]
        users = set(range(0, len(turns), 2))
        ref = {f"{'ua'[i % 2]}{i // 2}": i for i in range(len(turns))}
        for q in s["queries"]:
            if q["category"] != "topic_word":
                continue
            relevant = {ref[r] for r in q["relevant"]}
            judged = set(range(len(turns))) - {ref[c] for c in q.get("context", ())}
            yield s["id"], q["query"], turns, relevant, judged, users


def run(lang: str, verbose: bool):
    topics.cache_clear()
    reach = reacher(lang)
    found = facts = wrong_user = wrong_reply = 0
    lines = []
    for source, topic, turns, relevant, judged, users in cases(lang):
        got = reach(topic, turns)
        facts += len(relevant)
        found += len(relevant & got)
        for i in sorted(relevant - got):
            lines.append(f"  MISS  {source:<14} {topic:<12} | {turns[i]}")
        for i in sorted((got & judged) - relevant):
            if i in users:
                wrong_user += 1
            else:
                wrong_reply += 1
            lines.append(f"  WRONG {source:<14} {topic:<12} | {'user' if i in users else 'reply'}: {turns[i]}")
    print(f"{lang}: facts reached {found}/{facts} ({found / max(facts, 1):.2f}); "
          f"other turns reached: {wrong_user} user, {wrong_reply} replies")
    if verbose:
        print("\n".join(lines))
    return found, facts, wrong_user, wrong_reply


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    for lang in [x.strip() for x in args.langs.split(",") if x.strip()]:
        run(lang, args.verbose)


if __name__ == "__main__":
    main()
