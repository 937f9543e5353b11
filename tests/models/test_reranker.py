"""memory.recall in English is reordered by a cross-encoder (models/reranker.py):
it reads the question and each memory together, so the memory that answers
comes before one that only shares its words."""
import pytest

from ovos_memory_service.models.reranker import (RERANK_MODEL, CrossEncoder, Reranker, RerankerUnavailable,
                                                 model_folder)
from tests.helpers import assistant, scope, store, user

# "flying" and "Madrid" are shared by the wrong memory as much as by the answer
MADRID = ["The train to Porto was late again today.", "I take the train to work every day.",
          "My brother is afraid of flying, so we drove to Madrid.", "Flying to Madrid takes an hour."]
ANSWER = "My brother is afraid of flying, so we drove to Madrid."


@pytest.fixture(scope="module", autouse=True)
def installed():
    try:
        model_folder()
    except RerankerUnavailable as e:
        pytest.skip(str(e))


def _recalled(engine, sc, query, **kw):
    return [m.content for m in engine.recall(sc, query, threshold=0.0, kinds=["turn"], **kw)]


def _told(engine, sc, texts):
    for text in texts:
        store(engine, sc, user(text))
    engine.wait_idle()


def test_the_memory_that_answers_comes_first(make_engine):
    engine = make_engine()
    sc = scope()
    _told(engine, sc, MADRID)
    assert _recalled(engine, sc, "How did we get to Madrid?", limit=2)[0] == ANSWER
    stats = engine.stats(sc)
    assert stats["reranker"] == RERANK_MODEL and stats["rerank_error"] is None


def test_a_reply_that_says_nothing_never_comes_before_the_answer(make_engine):
    """The cross-encoder finds neither "Understood." nor the fact related to
    the question (both at its floor): recall's own order stands there."""
    engine = make_engine()
    sc = scope()
    for fact in ("I'm a vegetarian.", "Peanuts make my throat swell up."):
        store(engine, sc, user(fact), assistant("Understood."))
    engine.wait_idle()
    assert _recalled(engine, sc, "what am I allergic to")[0] == "Peanuts make my throat swell up."


def test_it_only_reorders_what_recall_finds(make_engine):
    """The same memories above the threshold, whatever their order."""
    on = make_engine()
    sc = scope()
    _told(on, sc, MADRID)
    found = {m.id: m.score for m in on.recall(sc, "train to work", threshold=0.5)}
    on.close()
    off = make_engine(rerank={"enabled": False})
    assert {m.id: m.score for m in off.recall(sc, "train to work", threshold=0.5)} == found


def test_an_exact_match_stays_first(make_engine):
    engine = make_engine()
    sc = scope()
    _told(engine, sc, MADRID + ["how did we get to madrid"])
    assert _recalled(engine, sc, "How did we get to Madrid?")[0] == "how did we get to madrid"


def test_other_languages_are_not_reranked(make_engine):
    """The model is an English one: a Portuguese recall keeps its own order."""
    texts = ["O comboio para o Porto atrasou-se outra vez.", "O meu irmão tem medo de voar, por isso fomos de "
             "carro para Madrid.", "Voar para Madrid demora uma hora.", "Vou de comboio para o trabalho."]
    pt = scope(lang="pt-pt")
    on = make_engine()
    _told(on, pt, texts)
    reranked = _recalled(on, pt, "Como fomos para Madrid?")
    on.close()
    off = make_engine(rerank={"enabled": False})
    assert _recalled(off, pt, "Como fomos para Madrid?") == reranked


def test_a_device_in_another_language_does_not_load_it(make_engine):
    """It reads English only: on a Portuguese device it would hold its memory for nothing."""
    engine = make_engine(lang="pt-pt")
    stats = engine.stats(scope(lang="pt-pt"))
    assert stats["reranker"] is None and "English" in stats["rerank_error"]


def test_turned_off_in_the_configuration(make_engine):
    engine = make_engine(rerank={"enabled": False})
    stats = engine.stats(scope())
    assert stats["reranker"] is None and "disabled" in stats["rerank_error"]


def test_a_reload_can_turn_it_off(make_engine):
    from ovos_memory_service.common.config import build_config
    engine = make_engine()
    sc = scope()
    _told(engine, sc, MADRID)
    engine.reload(build_config({**engine.config, "rerank": {"enabled": False}}))
    plain = make_engine(data_dir=engine.config["data_dir"] + "-plain", rerank={"enabled": False})
    _told(plain, sc, MADRID)
    assert _recalled(engine, sc, "How did we get to Madrid?") == _recalled(plain, sc, "How did we get to Madrid?")


# many memories of one thing, as a year of use leaves them
TRAINS = ["I take the train to work every day.", "The train to Porto was late again today.",
          "We missed the last train home after the concert.", "My son loves model trains.",
          "The night train to Madrid has beds.", "Trains here are cheaper than buses.",
          "I read on the train most mornings.", "The train station is a mile from us."]


@pytest.mark.parametrize("topic", ["train", "trains", "my train"])
def test_a_topic_named_alone_keeps_recalls_order(make_engine, topic):
    """ "what do you know about trains" asks the model nothing to answer, and
    would cost it two runs per memory of the topic: recall's order stands."""
    engine = make_engine()
    sc = scope()
    _told(engine, sc, TRAINS)
    plain = make_engine(data_dir=engine.config["data_dir"] + "-plain", rerank={"enabled": False})
    _told(plain, sc, TRAINS)
    found = _recalled(engine, sc, topic, limit=len(TRAINS))
    assert sorted(found) == sorted(TRAINS)
    assert found == _recalled(plain, sc, topic, limit=len(TRAINS))


def test_a_pair_scores_the_same_whatever_is_scored_beside_it():
    reranker = Reranker()
    try:
        alone = reranker.scores("How did we get to Madrid?", [ANSWER])
        among = reranker.scores("How did we get to Madrid?", MADRID)
    finally:
        reranker.close()
    assert among[MADRID.index(ANSWER)] == alone[0] == max(among)


def test_a_model_file_this_version_does_not_know_is_refused(tmp_path):
    (tmp_path / "model.onnx").write_bytes(b"not the model")
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(RerankerUnavailable, match="not the model this version knows"):
        CrossEncoder(tmp_path)


def test_a_model_file_it_does_not_know_leaves_recall_in_its_own_order(make_engine, tmp_path):
    """Read at the first recall, a model file that is not the one this version
    knows is refused then: recall answers in its own order, memory.stats says why."""
    bad = tmp_path / "reranker"
    bad.mkdir()
    (bad / "model.onnx").write_bytes(b"not the model")
    (bad / "tokenizer.json").write_text("{}")
    sc = scope()
    plain = make_engine(data_dir=str(tmp_path / "plain"), rerank={"enabled": False})
    _told(plain, sc, MADRID)
    engine = make_engine()
    _told(engine, sc, MADRID)
    engine.reranker.folder = bad  # as a damaged install would have it
    assert _recalled(engine, sc, "How did we get to Madrid?") == _recalled(plain, sc, "How did we get to Madrid?")
    stats = engine.stats(sc)
    assert stats["reranker"] is None and "not the model this version knows" in stats["rerank_error"]


@pytest.mark.parametrize("block", [{"enabled": "yes"}, {"candidates": 0}, {"candidates": 51}, "on"])
def test_a_bad_rerank_setting_names_the_key(block):
    from ovos_memory_service.common.config import build_config
    with pytest.raises(ValueError, match="memory_service.rerank"):
        build_config({"rerank": block})


def test_a_reply_is_read_with_the_question_it_answers(make_engine):
    """"Lisbon, with my sister." says where the user went only after the
    question it answers: the cross-encoder reads a turn after the one before it."""
    engine = make_engine()
    sc = scope()
    _told(engine, sc, ["Summer holidays are my favourite time to travel.", "I travel for work most weeks."])
    store(engine, sc, assistant("Where did you go on holiday last summer?"), user("Lisbon, with my sister."))
    _told(engine, sc, ["My sister travels a lot in summer."])
    assert _recalled(engine, sc, "Which city did I visit on my summer holiday?", limit=1) == ["Lisbon, with my sister."]


LAZY = """
import sys
from ovos_memory_service.common.config import build_config
from ovos_memory_service.engine.engine import MemoryEngine
from ovos_memory_service.models import reranker
from tests.helpers import scope, store, user
engine = MemoryEngine(build_config({"data_dir": sys.argv[1]}))
engine.open()
sc = scope()
store(engine, sc, user("My brother is afraid of flying, so we drove to Madrid."))
store(engine, sc, user("Flying to Madrid takes an hour."))  # two to put in order
engine.wait_idle()
engine.build_context(sc, "how did we get to Madrid?")
print("after open and a build:", bool(reranker._models))
engine.recall(sc, "how did we get to Madrid?", threshold=0.0)
print("after a recall:", bool(reranker._models))
engine.close()
"""


@pytest.mark.stack  # a process of its own: nothing else loaded the model before
def test_its_model_is_read_at_the_first_recall(tmp_path):
    """A persona's builds never rerank: until someone recalls in English, the
    model's 75 MB stay free (docs/benchmarks.md, idle RSS)."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", LAZY, str(tmp_path / "memory")], cwd=root,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    said = [line for line in run.stdout.splitlines() if line.startswith("after ")]  # not the log's lines
    assert said == ["after open and a build: False", "after a recall: True"]


def test_one_candidate_is_not_read_by_the_model(make_engine):
    """Nothing to put in order: recall's own answer, without a model run
    (most recalls of a small store)."""
    engine = make_engine()
    sc = scope()
    _told(engine, sc, [ANSWER])
    runs = []
    scores = engine.reranker.scores
    engine.reranker.scores = lambda query, texts: runs.append(len(texts)) or scores(query, texts)
    assert _recalled(engine, sc, "How did we get to Madrid?") == [ANSWER]
    assert runs == []
    _told(engine, sc, MADRID[:2])
    _recalled(engine, sc, "How did we get to Madrid?")
    assert runs  # two or more: read
