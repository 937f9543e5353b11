"""The multilingual retrieval set (benchmarks/multilingual/*.json) and the
personal facts (benchmarks/personal_facts/*.json) are well formed.

Data only: no engine, no model. What benchmarks/multilingual.py relies on, and
the minimums benchmarks/multilingual/README.md promises."""
import json
import re
import unicodedata
from datetime import datetime
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
KINDS = {"paraphrase", "lexical", "temporal"}
MIN_CONVERSATIONS, MIN_TURNS_PER_CONVERSATION = 2, 100
MIN_TURNS_PER_LANG, MIN_QUESTIONS_PER_LANG = 200, 60
FACTS_PER_LANG = 10

# Function words per language: what a personal fact's question may share with the fact.
FUNCTION_WORDS = {
    "en-us": """a about am an and any are as at be been but by can can't could did do does doing
        for from had has have he her him his how i i'm in is it it's its me my of on or our she so
        that the their them there they this to up was we were what when where which who whom why
        will with would you your don't not""",
    "pt-pt": """a ao aos as com como da das de do dos e é em era eu foi há isso me meu meus minha
        minhas mim na nas no nos o os ou para pela pelo por qual quais quando que quem se sobre sou
        te tem tenho um uma vou à está estou""",
    "es-es": """a al como con cuál cuáles cuándo de del dónde el en es está estoy la las le lo los me mi
        mis no o para por qué quién se sobre soy su te tengo un una y yo""",
    "de-de": """am an auf bei bin das dem den der des die du ein eine einem einen einer es für
        hat habe ich im in ist mein meine meinem meinen meiner mich mir mit nicht über und
        von was wann welche welchem welcher welches wer wie wo wohin zu zum zur""",
}


def load(folder, lang):
    with open(BENCH / folder / f"{lang}.json", encoding="utf-8") as f:
        return json.load(f)


def fold(text):
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c))


def content_words(text, lang):
    stops = {fold(w) for w in FUNCTION_WORDS[lang].split()}
    return {w for w in re.findall(r"[\w']+", fold(text)) if len(w) >= 3 and w not in stops}


def shared(question, answer, lang):
    """Words (or five-letter stems) the two share."""
    return sorted({f"{q}/{t}" for q in content_words(question, lang) for t in content_words(answer, lang)
                   if q == t or (len(q) >= 5 and len(t) >= 5 and q[:5] == t[:5])})


def clean(text):
    return isinstance(text, str) and text and text.strip() == text


@pytest.mark.parametrize("lang", LANGS)
def test_conversations_schema(lang):
    data = load("multilingual", lang)
    assert set(data) == {"lang", "conversations"}
    assert data["lang"] == lang
    assert len(data["conversations"]) >= MIN_CONVERSATIONS
    ids = [c["id"] for c in data["conversations"]]
    assert len(set(ids)) == len(ids)
    for conversation in data["conversations"]:
        assert set(conversation) == {"id", "sessions", "questions"}, conversation["id"]
        dates = []
        for session in conversation["sessions"]:
            assert set(session) == {"date", "turns"}
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", session["date"]), session["date"]
            dates.append(datetime.fromisoformat(session["date"].replace("Z", "+00:00")))
            assert session["turns"], conversation["id"]
            for turn in session["turns"]:
                assert isinstance(turn, list) and len(turn) == 2, turn
                assert turn[0] in ("user", "assistant") and clean(turn[1]), turn
            assert session["turns"][0][0] == "user", f"{conversation['id']}: a session starts with the user"
        assert dates == sorted(dates) and len(set(d.date() for d in dates)) == len(dates), \
            f"{conversation['id']}: sessions on distinct days, in order"
        assert len(conversation["sessions"]) >= 4, conversation["id"]
        assert sum(len(s["turns"]) for s in conversation["sessions"]) >= MIN_TURNS_PER_CONVERSATION


@pytest.mark.parametrize("lang", LANGS)
def test_questions_and_evidence(lang):
    data = load("multilingual", lang)
    kinds = set()
    for conversation in data["conversations"]:
        sessions = conversation["sessions"]
        questions = [q["question"] for q in conversation["questions"]]
        assert len(questions) == len(set(questions)), f"{conversation['id']}: duplicate question"
        for q in conversation["questions"]:
            assert set(q) == {"question", "evidence", "kind"}, q
            assert clean(q["question"]) and q["kind"] in KINDS, q
            kinds.add(q["kind"])
            assert q["evidence"], q
            refs = [tuple(ref) for ref in q["evidence"]]
            assert len(set(refs)) == len(refs), f"duplicate evidence in {q}"
            for s, t in refs:
                assert isinstance(s, int) and isinstance(t, int), q
                assert 0 <= s < len(sessions) and 0 <= t < len(sessions[s]["turns"]), f"no such turn in {q}"
            assert any(sessions[s]["turns"][t][0] == "user" for s, t in refs), f"no user turn answers {q}"
    assert kinds == KINDS, lang


@pytest.mark.parametrize("lang", LANGS)
def test_minimums(lang):
    data = load("multilingual", lang)
    turns = sum(len(s["turns"]) for c in data["conversations"] for s in c["sessions"])
    questions = [q for c in data["conversations"] for q in c["questions"]]
    assert turns >= MIN_TURNS_PER_LANG
    assert len(questions) >= MIN_QUESTIONS_PER_LANG
    assert sum(q["kind"] == "paraphrase" for q in questions) > len(questions) / 2, "most are paraphrases"


@pytest.mark.parametrize("lang", LANGS)
def test_paraphrases_share_few_words(lang):
    """A paraphrase question shares at most one content word (or stem) with its user evidence turns."""
    for conversation in load("multilingual", lang)["conversations"]:
        sessions = conversation["sessions"]
        for q in conversation["questions"]:
            if q["kind"] != "paraphrase":
                continue
            answer = " ".join(sessions[s]["turns"][t][1] for s, t in q["evidence"]
                              if sessions[s]["turns"][t][0] == "user")
            common = shared(q["question"], answer, lang)
            assert len(common) <= 1, f"{conversation['id']} {q['question']!r} shares {common}"


@pytest.mark.parametrize("lang", LANGS)
def test_personal_facts(lang):
    data = load("personal_facts", lang)
    assert set(data) == {"lang", "facts"} and data["lang"] == lang
    assert len(data["facts"]) == FACTS_PER_LANG
    for field in ("fact", "question"):
        values = [f[field] for f in data["facts"]]
        assert len(set(values)) == len(values), f"duplicate {field}"
    for fact in data["facts"]:
        assert set(fact) == {"fact", "reply", "question"}, fact
        assert all(clean(fact[k]) for k in fact), fact
        assert not content_words(fact["reply"], lang) or len(fact["reply"].split()) <= 3, \
            f"{fact['reply']!r}: a reply that says nothing on its own"
        common = shared(fact["question"], fact["fact"], lang)
        assert not common, f"{fact['question']!r} shares {common} with {fact['fact']!r}"
