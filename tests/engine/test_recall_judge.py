"""The judge (``judge`` in the configuration): where the device's owner sets an
OpenAI-compatible endpoint, it reads the best candidates of a recall or of a
forgetting by topic with the question, and says which answer it. What it finds
is returned and forgotten although said in other words; a near miss it rejects
is not. Without an answer from it, everything is as without a judge.

The model is a stand-in here (tests/openai_stub.py) that judges by a word per
query (``VERDICTS``); tests/learning/test_llm_real.py asks a real one."""
import re

import pytest

from ovos_memory_service.common.config import build_config
from ovos_memory_service.common.items import KINDS
from ovos_memory_service.engine.judge import JudgeUnavailable, verdict
from ovos_memory_service.learning.llm_client import ChatClient, LLMUnavailable
from tests.helpers import exchange, scope
from tests.openai_stub import OpenAIStub

# query -> a word of the memories that answer it, as the stand-in judges (None: none does)
VERDICTS = {
    "travel": "alps",
    "vacaciones": "pirineos",
    "viagens": "açores",
    "reisen": "dolomiten",
    "wie heißt finns mutter": None,
    "what is eli's teacher called": None,
    "my son eli is eight": None,
}


def stand_in(messages) -> str:
    prompt = messages[-1]["content"]
    query = next(q for q in VERDICTS if q in prompt)
    word = VERDICTS[query]
    found = [n for n, text in re.findall(r"^(\d+)\. (.*)$", prompt, re.M) if word and word in text.lower()]
    return ", ".join(found) if found else "none"


@pytest.fixture
def judge():
    server = OpenAIStub(answer=stand_in).start()
    yield server
    server.stop()


def judged_engine(make_engine, url, lang="en-us", **block):
    return make_engine(lang=lang, judge={"api_url": url, "model": "m", "request_timeout": 2, **block})


def contents(items):
    return [m.content for m in items]


TRIPS = [
    ("en-us", "travel", "we went hiking in the alps last summer", "Lovely.", "my sister ana lives in porto"),
    ("es-es", "vacaciones", "el verano pasado fuimos de senderismo a los pirineos", "Qué bien.",
     "mi hermana vive en sevilla"),
    ("pt-pt", "viagens", "no ano passado fomos aos açores de barco", "Que giro.", "a minha irmã mora em coimbra"),
    ("de-de", "reisen", "letzten sommer waren wir in den dolomiten wandern", "Schön.",
     "meine schwester wohnt in köln"),
]


@pytest.mark.parametrize("lang,topic,trip,reply,other", TRIPS)
def test_a_topic_said_in_other_words_is_recalled_and_forgotten_when_the_judge_finds_it(
        make_engine, judge, lang, topic, trip, reply, other):
    engine = judged_engine(make_engine, judge.url, lang)
    sc = scope(lang=lang)
    said = exchange(engine, sc, trip, reply)["ids"]
    kept = exchange(engine, sc, other, "Okay.")["ids"]
    engine.wait_idle()
    assert contents(engine.recall(sc, topic))[:1] == [trip]
    listed = {m.id for m in engine.forget(sc, query=topic, dry_run=True, limit=20)}
    assert set(said) <= listed and not listed & set(kept)  # the trip and the reply that answered it
    engine.forget(sc, ids=sorted(listed))  # what was read back, as the voice, the CLI and the page confirm
    left = contents(engine.list(sc, KINDS, 200, 0)[0])
    assert trip not in left and reply not in left and other in left


@pytest.mark.parametrize("lang,said,question", [
    ("de-de", ["finn ist acht und geht in die zweite klasse", "ich arbeite bei der post"], "wie heißt finns mutter"),
    ("en-us", ["my son eli is eight", "my sister ana lives in porto"], "what is eli's teacher called"),
])
def test_a_near_miss_the_judge_rejects_is_not_returned(make_engine, judge, lang, said, question):
    """Without the judge, each question gets the statement about the one it names."""
    engine = judged_engine(make_engine, judge.url, lang)
    sc = scope(lang=lang)
    for line in said:
        exchange(engine, sc, line, "Okay.")
    engine.wait_idle()
    assert engine.recall(sc, question) == []
    assert engine.forget(sc, query=question, dry_run=True, limit=20) == []


def test_an_exact_match_is_found_whatever_the_judge_says(make_engine, judge):
    engine = judged_engine(make_engine, judge.url)
    sc = scope()
    exchange(engine, sc, "my son eli is eight", "Nice.")
    engine.wait_idle()
    found = engine.recall(sc, "my son eli is eight")
    assert found and found[0].content == "my son eli is eight" and found[0].score == 1.0


def test_the_judge_reads_only_the_best_candidates_of_the_one_who_asks(make_engine, judge):
    engine = judged_engine(make_engine, judge.url, candidates=3)
    sc, bob = scope(), scope(user="bob")
    for i, place in enumerate(["the alps", "lisbon", "madrid", "rome", "oslo"]):
        exchange(engine, sc, f"in {2010 + i} we went to {place}", "Nice.")
    exchange(engine, bob, "bob went hiking in the alps too", "Nice.")
    engine.wait_idle()
    engine.recall(sc, "travel")
    asked = judge.chats("travel")
    assert len(asked) == 1
    prompt = asked[0]["messages"][-1]["content"]
    assert len(re.findall(r"^\d+\. ", prompt, re.M)) == 3
    assert "bob" not in prompt


def test_a_forget_by_query_without_a_dry_run_takes_nothing_more_for_the_judge(make_engine, tmp_path, judge):
    """Only what is read back is confirmed: a judge that names every memory it is
    given must not make a forget that lists nothing first delete them."""
    sc = scope()
    plain = make_engine(data_dir=str(tmp_path / "plain"))
    engine = judged_engine(make_engine, judge.url)
    judge.answer = lambda messages: ", ".join(re.findall(r"^(\d+)\. ", messages[-1]["content"], re.M))
    for e in (plain, engine):
        exchange(e, sc, "my dog is called rex", "Nice.")
        exchange(e, sc, "i play tennis on sundays", "Fun.")
        e.wait_idle()
    expected = contents(plain.forget(sc, query="hobbies", limit=20))
    assert sorted(contents(engine.forget(sc, query="hobbies", limit=20))) == sorted(expected)
    assert judge.requests
    assert "my dog is called rex" in contents(engine.list(sc, KINDS, 200, 0)[0])


def chat(content):
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


@pytest.mark.parametrize("body", [{"choices": ["1"]}, {"choices": [{"message": "1"}]}, {"choices": {"0": 1}},
                                  {"error": "x"}, chat("²"), chat("1.5"), chat("[1, 2]")])
def test_a_reply_of_any_shape_leaves_recall_and_forgetting_as_without_a_judge(make_engine, tmp_path, judge,
                                                                              body):
    judge.raw = body
    sc = scope()
    plain = make_engine(data_dir=str(tmp_path / "plain"))
    engine = judged_engine(make_engine, judge.url)
    for e in (plain, engine):
        exchange(e, sc, "we went hiking in the alps last summer", "Lovely.")
        exchange(e, sc, "i work at the post office", "Okay.")
        e.wait_idle()
    for query in ("travel", "where do i work"):
        assert [(m.content, m.score) for m in engine.recall(sc, query, threshold=0.0)] == \
            [(m.content, m.score) for m in plain.recall(sc, query, threshold=0.0)]
        assert contents(engine.forget(sc, query=query, dry_run=True, limit=20)) == \
            contents(plain.forget(sc, query=query, dry_run=True, limit=20))


@pytest.mark.parametrize("models", [{"data": {"id": "m"}}, {"data": 5}, {"data": [{"id": 7}]}, {}])
def test_a_model_list_of_any_shape_leaves_recall_and_forgetting_as_without_a_judge(make_engine, tmp_path, judge,
                                                                                   models):
    """With no judge.model set, the server's /models names the model to ask."""
    judge.raw, judge.models = chat("1"), models
    sc = scope()
    plain = make_engine(data_dir=str(tmp_path / "plain"))
    engine = make_engine(judge={"api_url": judge.url, "request_timeout": 2})
    for e in (plain, engine):
        exchange(e, sc, "we went hiking in the alps last summer", "Lovely.")
        e.wait_idle()
    assert [(m.content, m.score) for m in engine.recall(sc, "travel", threshold=0.0)] == \
        [(m.content, m.score) for m in plain.recall(sc, "travel", threshold=0.0)]
    assert contents(engine.forget(sc, query="travel", dry_run=True)) == \
        contents(plain.forget(sc, query="travel", dry_run=True))


def test_a_slow_judge_does_not_shut_the_background_out_of_the_same_endpoint(make_engine, judge):
    """The entity and longterm backends may name the endpoint the judge does: a
    model slower than the judge's deadline fails recalls, not their work."""
    judge.answer = lambda messages: "1"
    engine = judged_engine(make_engine, judge.url, request_timeout=0.5)
    sc = scope()
    exchange(engine, sc, "we went hiking in the alps last summer", "Lovely.")
    engine.wait_idle()
    judge.mode, judge.delay = "slow", 1.0
    for _ in range(4):
        engine.recall(sc, "travel")
    try:
        assert ChatClient(judge.url, "m", "", 10).complete([{"role": "user", "content": "sum up"}], 16) == "1"
    except LLMUnavailable as e:
        pytest.fail(f"the background's call was refused: {e}")


@pytest.mark.parametrize("rerank", [True, False])
def test_at_a_low_threshold_what_the_judge_found_comes_first(make_engine, judge, rerank):
    """Recall's order (and in English the cross-encoder's, when installed) goes
    within the judge's verdict, never across it (the page lists down to threshold 0)."""
    judge.answer = lambda messages: ", ".join(
        n for n, text in re.findall(r"^(\d+)\. (.*)$", messages[-1]["content"], re.M) if "paris" in text) or "none"
    engine = judged_engine(make_engine, judge.url)
    engine.config["rerank"]["enabled"] = rerank
    sc = scope()
    for line in ["my sister ana lives in porto", "i visited paris in 2019",
                 "last year we drove to the beach in the algarve", "my car is a blue fiat"]:
        exchange(engine, sc, line, "Okay.")
    engine.wait_idle()
    found = engine.recall(sc, "where did we travel last year", 10, 0.0)
    assert found[0].content == "i visited paris in 2019" and found[0].score == 0.9


@pytest.mark.parametrize("mode", ["error", "garbage", "hung", "unsure"])
def test_without_an_answer_from_the_judge_recall_and_forgetting_are_as_without_it(
        make_engine, tmp_path, judge, mode):
    sc = scope()
    plain = make_engine(data_dir=str(tmp_path / "plain"))
    engine = judged_engine(make_engine, judge.url, request_timeout=1)
    for e in (plain, engine):
        exchange(e, sc, "finn is eight and in second grade", "Okay.")
        exchange(e, sc, "we went hiking in the alps last summer", "Lovely.")
        e.wait_idle()
    if mode == "unsure":  # an answer that is neither numbers nor "none"
        judge.answer = lambda messages: "It is hard to say which of these memories is meant."
    else:
        judge.mode = mode
    for query in ("what is finn's mother called", "travel", "where did we go hiking"):
        expected = [(m.content, round(m.score, 6)) for m in plain.recall(sc, query)]
        assert [(m.content, round(m.score, 6)) for m in engine.recall(sc, query)] == expected
        assert contents(engine.forget(sc, query=query, dry_run=True, limit=20)) == \
            contents(plain.forget(sc, query=query, dry_run=True, limit=20))
    assert judge.requests or judge.held  # it was asked


def test_a_context_build_never_waits_for_the_judge(make_engine, judge):
    engine = judged_engine(make_engine, judge.url)
    sc = scope()
    exchange(engine, sc, "we went hiking in the alps last summer", "Lovely.")
    engine.wait_idle()
    assert engine.build_context(sc, "travel").memories is not None
    assert judge.requests == []


@pytest.mark.parametrize("block,key", [
    ({"api_url": "ftp://judge"}, "api_url"),
    ({"api_url": "http://"}, "api_url"),
    ({"api_url": "http://[localhost]/v1"}, "api_url"),
    ({"api_url": "http://127.0.0.1:1/v1", "candidates": 0}, "candidates"),
    ({"api_url": "http://127.0.0.1:1/v1", "candidates": 26}, "candidates"),
    ({"api_url": "http://127.0.0.1:1/v1", "request_timeout": -1}, "request_timeout"),
    ({"api_url": "http://127.0.0.1:1/v1", "request_timeout": float("nan")}, "request_timeout"),
    ({"api_url": "http://127.0.0.1:1/v1", "request_timeout": 60}, "request_timeout"),
    ({"api_url": "", "request_timeout": "x"}, "request_timeout"),
    ({"api_url": "", "model": 5}, "model"),
    ({"api_url": "", "candidates": "8"}, "candidates"),
    ("http://127.0.0.1:1/v1", "judge"),
])
def test_a_judge_set_wrong_is_refused_by_name(tmp_path, block, key):
    with pytest.raises(ValueError, match=key):
        build_config({"data_dir": str(tmp_path), "judge": block})


@pytest.mark.parametrize("reply,places", [
    ("1, 3", {0, 2}), ("1 and 3", {0, 2}), ("2.", {1}), ("3,1,3", {0, 2}), ("None.", set()),
    ("none of them", set()), ("1.5", None), ("²", None), ("[1, 2]", None), ("Memory 1", None), ("0", None),
    ("4", None), ("", None), ("1. (I said) we went hiking", None),
])
def test_the_judges_answer_is_read_as_numbers_or_none_or_not_at_all(reply, places):
    if places is None:
        with pytest.raises(JudgeUnavailable):
            verdict(reply, 3)
    else:
        assert verdict(reply, 3) == places
