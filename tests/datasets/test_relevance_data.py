"""The labelled relevance set (benchmarks/relevance/*.json) is well formed.

Data only: no engine, no model. What benchmarks/relevance.py relies on, and the
minimums benchmarks/relevance/README.md promises."""
import json
import re
import unicodedata
from pathlib import Path

import pytest

from tests.datasets.test_understanding_data import shared_words

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "relevance"
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
CATEGORIES = {"exact", "value", "topic", "paraphrase", "sense", "shared_name", "none",
              "no_shared_word", "topic_word"}
# issue 36's kinds of query, in scenarios of their own: every split of every language has them
ISSUE_36 = {"no_shared_word", "topic_word"}
MIN_SCENARIOS, MIN_PER_SPLIT = 4, 2
MIN_EXCHANGES, MAX_EXCHANGES = 12, 18
MIN_QUERIES_PER_SCENARIO, MIN_QUERIES_PER_LANG = 8, 40
MIN_JUDGEMENTS_PER_LANG = 400
TURN_REF = re.compile(r"^[ua](0|[1-9]\d*)$")

# Function words per language: what a paraphrase query may share with the turn that answers it.
FUNCTION_WORDS = {
    "en-us": """a about am an and any are as at be been but by can can't could did do does doing
        for from had has have he her him his how i i'm in is it it's its me my of on or our she so
        that the their them there they this to up was we were what when where which who whom why
        will with would you your don't not""",
    "pt-pt": """a ao aos as com como da das de do dos e é em era eu foi há isso me meu meus minha
        minhas mim na nas no nos o os ou para pela pelo por qual quando que quem se sobre sou
        te tem tenho um uma vou à""",
    "es-es": """a al como con cuál cuándo de del dónde el en es está la las le lo los me mi mis
        no o para por qué quién se sobre soy su te tengo un una y yo""",
    "de-de": """am an auf bei bin das dem den der des die du ein eine einem einen einer es für
        hat habe ich im in ist mein meine meinem meinen meiner mich mir mit nicht über und
        von was wann welche welchem welcher welches wer wie wo wohin zu zum zur""",
}


def load(lang):
    with open(DATA / f"{lang}.json", encoding="utf-8") as f:
        return json.load(f)


def turns_of(scenario):
    return [f"{side}{i}" for i in range(len(scenario["exchanges"])) for side in "ua"]


def fold(text):
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c))


def content_words(text, lang):
    stops = {fold(w) for w in FUNCTION_WORDS[lang].split()}
    return {w for w in re.findall(r"[\w']+", fold(text)) if len(w) >= 3 and w not in stops}


def shares_word(query_words, turn_words):
    """The same word, or the same stem (the first five letters of words of five or more)."""
    for q in query_words:
        for t in turn_words:
            if q == t or (len(q) >= 5 and len(t) >= 5 and q[:5] == t[:5]):
                return f"{q}/{t}"
    return None


@pytest.mark.parametrize("lang", LANGS)
def test_schema(lang):
    data = load(lang)
    assert set(data) == {"lang", "scenarios"}
    assert data["lang"] == lang
    ids = set()
    for scenario in data["scenarios"]:
        assert set(scenario) == {"id", "split", "exchanges", "queries"}, scenario.get("id")
        assert scenario["id"] not in ids, f"duplicate id {scenario['id']}"
        ids.add(scenario["id"])
        assert scenario["split"] in ("dev", "test")
        assert MIN_EXCHANGES <= len(scenario["exchanges"]) <= MAX_EXCHANGES, scenario["id"]
        for exchange in scenario["exchanges"]:
            assert isinstance(exchange, list) and len(exchange) == 2, scenario["id"]
            assert all(isinstance(t, str) and t.strip() == t and t for t in exchange), exchange
        assert len(scenario["queries"]) >= MIN_QUERIES_PER_SCENARIO, scenario["id"]
        for q in scenario["queries"]:
            assert set(q) <= {"query", "relevant", "context", "category", "note"}, q
            assert {"query", "relevant", "category"} <= set(q), q
            assert isinstance(q["query"], str) and q["query"].strip() == q["query"] and q["query"], q
            assert q["category"] in CATEGORIES, q
            assert isinstance(q["relevant"], list), q
            assert isinstance(q.get("context", []), list), q
            assert q.get("context", True) != [], f"{q}: an empty context is left out"
            assert isinstance(q.get("note", ""), str), q


@pytest.mark.parametrize("lang", LANGS)
def test_refs_valid(lang):
    for scenario in load(lang)["scenarios"]:
        turns = set(turns_of(scenario))
        for q in scenario["queries"]:
            assert all(TURN_REF.match(r) for r in q["relevant"]), q
            assert len(set(q["relevant"])) == len(q["relevant"]), f"duplicate ref in {q}"
            unknown = set(q["relevant"]) - turns
            assert not unknown, f"{scenario['id']} {q['query']!r}: no such turn {unknown}"


@pytest.mark.parametrize("lang", LANGS)
def test_context_refs_valid(lang):
    """``context``: turns about the query only through the conversation, neither
    relevant nor irrelevant; valid refs, no duplicates, none also relevant."""
    for scenario in load(lang)["scenarios"]:
        turns = set(turns_of(scenario))
        for q in scenario["queries"]:
            where = f"{scenario['id']} {q['query']!r}"
            context = q.get("context", [])
            assert all(isinstance(r, str) and TURN_REF.match(r) for r in context), where
            assert len(set(context)) == len(context), f"{where}: duplicate context ref"
            unknown = set(context) - turns
            assert not unknown, f"{where}: no such turn {unknown}"
            both = set(context) & set(q["relevant"])
            assert not both, f"{where}: {both} both relevant and context"
            if q["category"] == "none":
                assert not context, f"{where}: a query about nothing stored has no context turns"


@pytest.mark.parametrize("lang", LANGS)
def test_queries_unique_per_scenario(lang):
    for scenario in load(lang)["scenarios"]:
        queries = [q["query"] for q in scenario["queries"]]
        assert len(queries) == len(set(queries)), scenario["id"]


@pytest.mark.parametrize("lang", LANGS)
def test_categories_follow_their_definition(lang):
    for scenario in load(lang)["scenarios"]:
        users = [u for u, _ in scenario["exchanges"]]
        for q in scenario["queries"]:
            where = f"{scenario['id']} {q['query']!r}"
            if q["category"] == "none":
                assert q["relevant"] == [], where
            else:
                assert any(r.startswith("u") for r in q["relevant"]), f"{where}: no user turn is relevant"
            if q["category"] == "exact":
                assert q["query"] in users, f"{where}: not the verbatim text of a user turn"
                assert f"u{users.index(q['query'])}" in q["relevant"], where
            else:
                assert q["query"] == q["query"].lower(), f"{where}: queries are lower case, as STT gives them"
            if q["category"] in ("paraphrase", "no_shared_word"):
                words = content_words(q["query"], lang)
                for ref in q["relevant"]:
                    if ref.startswith("u"):
                        shared = shares_word(words, content_words(users[int(ref[1:])], lang))
                        assert shared is None, f"{where} shares {shared} with {ref}"
            if q["category"] == "no_shared_word":
                # also by the project's own stop words and the understanding set's stem rule
                for ref in q["relevant"]:
                    if ref.startswith("u"):
                        shared = shared_words(q["query"], users[int(ref[1:])], lang)
                        assert not shared, f"{where} shares {shared} with {ref}"
            if q["category"] == "topic_word":
                assert re.fullmatch(r"\w+", q["query"]), f"{where}: a topic_word query is one word"
            if q["category"] in ("sense", "shared_name"):
                assert set(q["relevant"]) != set(turns_of(scenario)), where


@pytest.mark.parametrize("lang", LANGS)
def test_coverage_and_counts(lang):
    scenarios = load(lang)["scenarios"]
    assert len(scenarios) >= MIN_SCENARIOS
    splits = [s["split"] for s in scenarios]
    assert splits.count("dev") >= MIN_PER_SPLIT and splits.count("test") >= MIN_PER_SPLIT
    assert all(a != b for a, b in zip(splits, splits[1:])), "splits alternate dev/test"
    for split in ("dev", "test"):
        queries = [q for s in scenarios if s["split"] == split for q in s["queries"]]
        assert {q["category"] for q in queries} >= {"exact", "value", "topic", "paraphrase", "none"} | ISSUE_36, split
    categories = {q["category"] for s in scenarios for q in s["queries"]}
    assert categories == CATEGORIES, f"missing {CATEGORIES - categories}"
    queries = sum(len(s["queries"]) for s in scenarios)
    judgements = sum(2 * len(s["exchanges"]) - len(q.get("context", [])) for s in scenarios for q in s["queries"])
    assert queries >= MIN_QUERIES_PER_LANG
    assert judgements >= MIN_JUDGEMENTS_PER_LANG


def test_scenario_ids_unique_across_languages():
    ids = [s["id"] for lang in LANGS for s in load(lang)["scenarios"]]
    assert len(ids) == len(set(ids))
