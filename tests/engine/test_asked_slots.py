"""A question about one's work, home, birthday or a relative finds the fact that
was learnt about it, in words the fact does not share: the fact model knows
what "Works as plumber" is about (its slot), and the question's words say which
slot it asks for (locale/<lang>/facts/asked.list; a relative by the words of
family.facts)."""
import pytest

from tests.helpers import exchange, scope

CASES = [
    ("en-us", "i'm a welder at the shipyard", "what's my trade", "occupation"),
    ("pt-pt", "sou canalizador em braga", "qual é o meu ganha-pão", "occupation"),
    ("es-es", "soy fontanero en teruel", "a qué me dedico", "occupation"),
    ("de-de", "ich bin klempner in kassel", "womit verdiene ich mein geld", "occupation"),
]


@pytest.mark.parametrize("lang,said,asked,slot", CASES)
def test_a_question_finds_the_fact_of_the_slot_it_asks_for(make_engine, lang, said, asked, slot):
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    exchange(engine, sc, said, "Ok.")
    for small_talk in ("what time is it", "tell me a joke", "how far is the moon"):
        exchange(engine, sc, small_talk, "Sure.")
    engine.wait_idle()
    found = engine.recall(sc, asked, 5, 0.0)
    fact = next(m for m in found if m.slot == slot)
    # the fact is the most relevant memory; its statement may come first beside it
    assert fact.score == max(m.score for m in found), [(m.content, m.score) for m in found]
    assert found[0] is fact or found[0].content == said, [(m.content, m.score) for m in found]


def test_a_question_about_a_relative_does_not_take_ones_own_fact(make_engine):
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "i'm a welder at the shipyard", "Ok.")
    exchange(engine, sc, "what time is it", "Ten past nine.")
    engine.wait_idle()
    found = engine.recall(sc, "what does my sister do for work", 5, engine.config["recall_relevance_threshold"])
    assert not [m for m in found if m.slot == "occupation"]
