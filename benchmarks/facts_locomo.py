"""How well the rule-based fact extractor finds what LoCoMo's annotators
wrote down about each speaker (Maharana et al., ACL 2024).

Development split only (conv-26, conv-30, conv-41, conv-42, conv-43): every
turn is given to ``extract_facts(text, "en-us")`` as an utterance of its
speaker. The gold facts are the conversations' ``observation`` lists: per
session and per speaker, [statement, evidence dia_id(s)].

Matching rules (all case-insensitive):
- content words of a value: its words of 3 or more letters that are not
  en-us stop words; two words match when they share their first 5 letters
  (or are equal, if shorter): "hiking" matches "hikes".
- a fact *covers* an observation when the observation is about the fact's
  speaker, the fact comes from one of the observation's evidence turns, and at
  least half (and at least one) of the value's content words match a word of
  the observation.
- precision, grounded: the fact's value occurs verbatim in its turn's text
  (whitespace and apostrophes normalised). The extractor copies values out of
  the text, so this checks the trimming, not the meaning.
- precision, gold-supported: the fact covers at least one observation. The
  annotators did not write down everything, so this is a lower bound.
- recall: share of observations covered by some fact, per slot family. Each
  observation is put in one family by the keyword rules in FAMILY_RULES (first
  match wins; "other" when none matches: events and opinions the extractor
  does not look for).

    python benchmarks/facts_locomo.py [--data PATH] [--examples N]

The data file is not part of the project (CC BY-NC 4.0); it is read from
../shared/data/locomo10.json unless --data names another path.
"""
import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ovos_memory_service.learning.facts import extract_facts  # noqa: E402
from ovos_memory_service.common.resources import stop_words  # noqa: E402

DEFAULT_DATA = os.path.join(ROOT, "..", "shared", "data", "locomo10.json")
DEV = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
FAMILY_RULES = [
    ("name", r"\b(name|nickname|called)\b"),
    ("birthday", r"\b(birthday|born|years old)\b"),
    ("health", r"\b(allerg\w*|vegetarian|vegan|diet|intoleran\w*)\b"),
    ("pets", r"\b(dogs?|cats?|pets?|pupp(y|ies)|kittens?|turtles?|snakes?|birds?|fish|hamsters?|rabbits?|horses?)\b"),
    ("family", r"\b(sisters?|brothers?|mother|mom|father|dad|wife|husband|sons?|daughters?|kids|children"
               r"|parents|grand\w+|family|married|spouse)\b"),
    ("residence", r"\b(lives? in|living in|moved|moving to|from|hometown|home country|grew up|relocat\w*)\b"),
    ("work", r"\b(works?|working|job|career|company|employer|boss|profession|colleagues?|hired)\b"),
    ("skills", r"\b(plays? the|can play|speaks?|languages?|learned to|knows how)\b"),
    ("likes", r"\b(loves?|likes?|enjoys?|favou?rite|fan of|passionate|hates?|dislikes?|into)\b"),
]
FAMILIES = [f for f, _ in FAMILY_RULES] + ["other"]
STOPS = stop_words("en-us")


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[’‘`]", "'", text)).strip().lower()


def content_words(text: str) -> list:
    return [w for w in re.findall(r"[a-z0-9']+", norm(text))
            if len(w) >= 3 and w not in STOPS]


def word_match(a: str, b: str) -> bool:
    return a[:5] == b[:5] if len(a) >= 5 and len(b) >= 5 else a == b


def covers(value: str, observation: str) -> bool:
    wanted = content_words(value)
    seen = content_words(observation)
    hits = sum(any(word_match(w, s) for s in seen) for w in wanted)
    return hits >= 1 and hits * 2 >= len(wanted)


def family_of(observation: str) -> str:
    for family, pattern in FAMILY_RULES:
        if re.search(pattern, observation, re.IGNORECASE):
            return family
    return "other"


def evidence_ids(raw) -> list:
    items = raw if isinstance(raw, list) else re.split(r"[;,\s]+", str(raw))
    return [re.sub(r"^D:?(\d+):0*(\d+)$", r"D\1:\2", i.strip()) for i in items if i.strip()]


def load(path: str):
    """(turns {(conv, dia_id): (speaker, text)}, observations [(conv, speaker, text, [dia_ids])])."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    turns, observations = {}, []
    for conv in data:
        if conv["sample_id"] not in DEV:
            continue
        cid = conv["sample_id"]
        for key, value in conv["conversation"].items():
            if re.fullmatch(r"session_\d+", key):
                for turn in value:
                    turns[(cid, turn["dia_id"])] = (turn["speaker"], turn["text"])
        for session in conv["observation"].values():
            for speaker, items in session.items():
                for text, evidence in items:
                    ids = [i for i in evidence_ids(evidence) if (cid, i) in turns]
                    observations.append((cid, speaker, text, ids))
    return turns, observations


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args(argv)
    turns, observations = load(args.data)

    facts = []   # (conv, dia_id, speaker, fact)
    for (cid, dia), (speaker, text) in turns.items():
        facts += [(cid, dia, speaker, f) for f in extract_facts(text, "en-us")]
    by_turn = defaultdict(list)
    for item in facts:
        by_turn[(item[0], item[1])].append(item)

    gold = Counter()
    covered = Counter()
    supported = set()
    hits, misses = [], []
    for cid, speaker, text, ids in observations:
        family = family_of(text)
        gold[family] += 1
        found = [item for i in ids for item in by_turn[(cid, i)]
                 if item[2] == speaker and covers(item[3].value, text)]
        if found:
            covered[family] += 1
            supported.update(id(item) for item in found)
            hits.append((found[0][3], text))
        elif family != "other":
            misses.append((family, text, " / ".join(turns[(cid, i)][1] for i in ids)))

    extracted, grounded, gold_ok = Counter(), Counter(), Counter()
    unsupported = []
    for item in facts:
        cid, dia, speaker, fact = item
        extracted[fact.family] += 1
        grounded[fact.family] += norm(fact.value) in norm(turns[(cid, dia)][1])
        if id(item) in supported:
            gold_ok[fact.family] += 1
        else:
            unsupported.append((fact, turns[(cid, dia)][1]))

    print(f"LoCoMo development split ({', '.join(DEV)}): {len(turns)} turns, "
          f"{len(observations)} gold observations, {len(facts)} extracted facts\n")
    print(f"{'family':<10} {'extracted':>9} {'grounded':>9} {'gold-supp':>9} | "
          f"{'gold obs':>8} {'covered':>7} {'recall':>7}")
    fact_families = ["name", "residence", "likes", "family", "pets", "work", "birthday", "health", "skills"]
    for family in fact_families + ["other"]:
        n = extracted[family]
        print(f"{family:<10} {n:>9} {_ratio(grounded[family], n):>9} {_ratio(gold_ok[family], n):>9} | "
              f"{gold[family]:>8} {covered[family]:>7} {_ratio(covered[family], gold[family]):>7}")
    n = sum(extracted.values())
    in_scope = sum(gold[f] for f in fact_families)
    print(f"{'overall':<10} {n:>9} {_ratio(sum(grounded.values()), n):>9} "
          f"{_ratio(sum(gold_ok.values()), n):>9} | {sum(gold.values()):>8} {sum(covered.values()):>7} "
          f"{_ratio(sum(covered.values()), sum(gold.values())):>7}")
    print(f"{'in scope':<10} {'':>9} {'':>9} {'':>9} | {in_scope:>8} "
          f"{sum(covered[f] for f in fact_families):>7} "
          f"{_ratio(sum(covered[f] for f in fact_families), in_scope):>7}   (all families but 'other')")

    k = args.examples
    print("\nHits (fact -> gold observation):")
    for fact, text in hits[:k]:
        print(f"  {fact.slot}={fact.value!r} ({fact.text}) -> {text}")
    print("\nMisses (gold observation in a fact family; its evidence turn):")
    for family, text, turn in misses[:: max(1, len(misses) // k)][:k]:
        print(f"  [{family}] {text}\n      turn: {turn[:160]}")
    print("\nExtracted facts no observation supports (fact; its turn):")
    for fact, turn in unsupported[:: max(1, len(unsupported) // k)][:k]:
        print(f"  {fact.slot}={fact.value!r}; {turn[:160]}")


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


if __name__ == "__main__":
    main()
