"""How many everyday ways of telling a fact about the people one names, one's
work and one's home the rule-based extractor understands, per language.

The sentences are in ``benchmarks/fact_sentences/<lang>.json``, written fresh
for this benchmark (no translations: each language has its own people and
places), split into ``dev`` (the rules were tuned on it) and ``test`` (written
first, never tuned on). Each item is one utterance::

    {"text": "my brother moved to glasgow last year",
     "slot": "family.brother.residence", "value": "Glasgow"}
    {"text": "tom's sister lives in paris", "none": true}

``value`` may be a list when several values say the same thing ("teacher",
"maths teacher"). Slots: ``residence``, ``occupation``, ``employer`` for the
user; ``family.<relation>.<attribute>`` for a person named by relation only
("my sister"), ``family.<relation>.<name>.<attribute>`` when the person's name
is said too ("my sister Ana"; the name in lowercase, spaces as ``_``).

Per language and split it prints:
- expected: the share of fact sentences that give their fact (slot equal,
  value equal ignoring case, not a negation);
- wrong: facts that fact sentences give besides (or instead of) theirs;
- none->fact: the share of sentences that must give no fact (questions,
  hypotheticals, reported speech, other people, the past) that give one;
- cased: among the expected facts found, the share whose value is written as
  the sentence's expected value is (names and places capitalised, common nouns
  not, German nouns capitalised).

    python benchmarks/fact_coverage.py [--split dev|test|all] [--misses]

``--misses`` lists the dev sentences that fail (never the test split's).

A third table reads the sets written blind (``benchmarks/understanding/blind/``, their README):
per language, the turns whose label says work ("job", "career", "trabajo", "beruf"...) that give
a fact of the user's work (an occupation, now or before, an employer, a business), and how many
of the sets' other user turns give one: on the sets read so far (``read``) and on those never
read (``blind``: only counted).

A second table reads sentences not written for the extractor: the personal
facts of the understanding set (``benchmarks/understanding/``), where users
tell their work, their home, the people they name and their birthday as
they would to the assistant. Per family it prints the share of those turns
that give a fact of that family (any value), and how many of the set's other
user turns (small talk, requests, hobbies...) give a fact about work, home,
people or birthdays.
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ovos_memory_service.learning.facts import extract_facts  # noqa: E402

DATA = os.path.join(ROOT, "benchmarks", "fact_sentences")
UNDERSTANDING = os.path.join(ROOT, "benchmarks", "understanding")
# the understanding set labels each fact by what it is about; these are work, home, people and birthdays
FAMILY_OF_LABEL = {**dict.fromkeys(("job", "career", "shifts"), "work"),
                   **dict.fromkeys(("home", "flat", "dorm"), "home"),
                   **dict.fromkeys(("wife", "husband", "daughter", "son", "parents", "sister", "brother", "partner",
                                    "girlfriend", "boyfriend", "fiance", "mom", "mother", "father", "kids",
                                    "granddaughter", "grandmother", "twins", "daughters", "baby", "ruth", "harper",
                                    "widower", "widowed"), "people"),
                   "birthday": "birthday"}
FAMILIES = ("work", "home", "people", "birthday")
BLIND = os.path.join(UNDERSTANDING, "blind")
# blind/README.md: the sets whose misses were read, and those never read
BLIND_SETS = {"read": ("fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh22", "fresh23", "fresh24",
                       "fresh25"),
              "blind": ("fresh21", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30")}
WORK_LABEL = ("job", "work", "career", "trabajo", "trabalho", "emprego", "oficio", "beruf", "arbeit", "negocio", "business",
              "shop", "profiss", "profesi", "retire", "jubil", "reform")
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
SPLITS = ("dev", "test")


def load(lang):
    with open(os.path.join(DATA, lang + ".json"), encoding="utf-8") as f:
        return json.load(f)


def expected_values(item):
    values = item["value"]
    return [values] if isinstance(values, str) else list(values)


def judge(item, lang):
    """(found, wrong facts, cased, facts) for one sentence."""
    facts = extract_facts(item["text"], lang)
    if item.get("none"):
        return None, len(facts), None, facts
    values = expected_values(item)
    lowered = {v.casefold() for v in values}
    hit = next((f for f in facts if f.slot == item["slot"] and not f.negated
                and f.value.casefold() in lowered), None)
    wrong = len(facts) - (1 if hit else 0)
    cased = hit is not None and hit.value in values
    return hit is not None, wrong, cased, facts


def score(lang, split):
    items = load(lang)[split]
    fact_items = [i for i in items if not i.get("none")]
    none_items = [i for i in items if i.get("none")]
    found = wrong = cased = none_gave = 0
    misses = []
    for item in items:
        hit, bad, good_case, facts = judge(item, lang)
        if item.get("none"):
            none_gave += bad > 0
            if bad:
                misses.append((item, facts))
            continue
        found += hit
        wrong += bad
        cased += bool(good_case)
        if not hit or bad or not good_case:
            misses.append((item, facts))
    return {"n": len(fact_items), "expected": found / max(1, len(fact_items)), "wrong": wrong,
            "n_none": len(none_items), "none_gave": none_gave / max(1, len(none_items)),
            "cased": cased / max(1, found), "misses": misses}


def family_of_slot(slot: str) -> str:
    if slot in ("occupation", "employer"):
        return "work"
    if slot == "residence":
        return "home"
    if slot in ("birthday", "age"):
        return "birthday"
    return "people" if slot.startswith("family.") else slot


def understanding(lang, split):
    """family -> [whether each of its fact turns gave a fact of that family]; and the
    number of other user turns that gave a fact of one of FAMILIES."""
    with open(os.path.join(UNDERSTANDING, lang + ".json"), encoding="utf-8") as f:
        scenarios = [s for s in json.load(f)["scenarios"] if s["split"] == split]
    found, stray = {family: [] for family in FAMILIES}, 0
    for exchange in (x for s in scenarios for x in s["exchanges"]):
        families = {family_of_slot(f.slot) for f in extract_facts(exchange["user"], lang)}
        family = FAMILY_OF_LABEL.get(exchange.get("fact"))
        if family:
            found[family].append(family in families)
        elif not exchange.get("fact"):
            stray += bool(families & set(FAMILIES))
    return found, stray


def blind_work(lang, sets):
    """[whether each turn labelled as work gives a fact of the user's work], and the
    number of the sets' other user turns that give one."""
    found, stray = [], 0
    for name in sets:
        with open(os.path.join(BLIND, name, lang + ".json"), encoding="utf-8") as f:
            exchanges = [x for s in json.load(f)["scenarios"] for x in s["exchanges"]]
        for exchange in exchanges:
            work = any(f.slot.split(".")[0] in ("occupation", "employer", "business")
                       for f in extract_facts(exchange["user"], lang))
            if any(word in (exchange.get("fact") or "").lower() for word in WORK_LABEL):
                found.append(work)
            else:
                stray += work
    return found, stray


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=SPLITS + ("all",), default="all")
    parser.add_argument("--misses", action="store_true", help="list the dev split's failures")
    args = parser.parse_args(argv)
    splits = SPLITS if args.split == "all" else (args.split,)
    print(f"{'lang':7} {'split':5} {'facts':>5} {'expected':>8} {'wrong':>5} {'none':>4} "
          f"{'none->fact':>10} {'cased':>6}")
    for lang in LANGS:
        for split in splits:
            s = score(lang, split)
            print(f"{lang:7} {split:5} {s['n']:5d} {s['expected']:8.2f} {s['wrong']:5d} {s['n_none']:4d} "
                  f"{s['none_gave']:10.2f} {s['cased']:6.2f}")
            if args.misses and split == "dev":
                for item, facts in s["misses"]:
                    want = "none" if item.get("none") else f"{item['slot']}={item['value']}"
                    got = "; ".join(f"{'!' if f.negated else ''}{f.slot}={f.value} [{f.text}]"
                                    for f in facts) or "-"
                    print(f"    {item['text']!r}: want {want}; got {got}")
    print(f"\nsentences not written for the extractor (benchmarks/understanding/): turns of a family that give a fact of it")
    print(f"{'lang':7} {'split':5} " + " ".join(f"{family:>9}" for family in FAMILIES) + f" {'all':>9} {'stray':>5}")
    for lang in LANGS:
        for split in splits:
            found, stray = understanding(lang, split)
            every = [hit for hits in found.values() for hit in hits]
            print(f"{lang:7} {split:5} " + " ".join(f"{sum(hits):4d}/{len(hits):<4d}" for hits in found.values())
                  + f" {sum(every):4d}/{len(every):<4d} {stray:5d}")
    print("\nsets written blind (benchmarks/understanding/blind/): turns about work that give a fact of it")
    print(f"{'lang':7} " + " ".join(f"{kind + ' work':>10} {kind + ' stray':>11}" for kind in BLIND_SETS))
    for lang in LANGS:
        cells = []
        for sets in BLIND_SETS.values():
            found, stray = blind_work(lang, sets)
            cells.append(f"{sum(found):5d}/{len(found):<4d} {stray:11d}")
        print(f"{lang:7} " + " ".join(cells))


if __name__ == "__main__":
    main()
