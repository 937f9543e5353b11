"""Forgetting and recalling by query take only what is about the query, over a
real messagebus and the real daemon, in English and Portuguese."""
import pytest

from tests.helpers import eventually

pytestmark = pytest.mark.stack
EXCHANGES = {
    "en-us": [("My old locker code hint is qx7781 near the gym.", "Understood."),
              ("I live in Porto", "Nice."),
              ("I like jazz music a lot", "Great taste."),
              ("My brother is called Tiago", "Lovely name."),
              ("The weather is nice today", "Enjoy it.")],
    "pt-pt": [("A pista do código do cacifo é qx7781 perto do ginásio.", "Entendido."),
              ("Eu moro em Braga", "Que bom."),
              ("Gosto muito de fado", "Boa escolha."),
              ("A minha irmã chama-se Joana", "Bonito nome."),
              ("Hoje está um dia lindo", "Aproveite.")],
}
# per language: a query, and every content that may be forgotten with it (the
# statement, the fact learnt from it, and the reply that answered it)
ABOUT = {
    "en-us": ("porto", {"I live in Porto", "Lives in Porto", "Nice."}),
    "pt-pt": ("joana", {"A minha irmã chama-se Joana", "Irmã chama-se Joana", "Bonito nome."}),
}


def fill(stack, user, lang):
    ids = []
    for said, reply in EXCHANGES[lang]:
        ids += stack.ok("memory.history.update", {"user_id": user, "messages": [
            {"role": "user", "content": said}, {"role": "assistant", "content": reply}]},
            session_id=user, session={"lang": lang})["ids"]
    eventually(lambda: stack.ok("memory.stats", {"user_id": user})["pending_jobs"] == 0, what="facts and vectors")
    return ids


def contents(reply):
    return [m["content"] for m in reply["memories"]]


@pytest.mark.parametrize("lang", ["en-us", "pt-pt"])
def test_forget_by_query_takes_only_what_is_about_it(stack, lang):
    user = f"forget-{lang}"
    fill(stack, user, lang)
    query, about = ABOUT[lang]
    preview = stack.ok("memory.forget", {"user_id": user, "query": query, "dry_run": True}, session_id=user)
    assert preview["memories"] and set(contents(preview)) <= about, contents(preview)
    assert preview["forgotten"] == len(preview["memories"]) == len(preview["ids"])
    done = stack.ok("memory.forget", {"user_id": user, "query": query}, session_id=user)
    assert sorted(done["ids"]) == sorted(preview["ids"])
    left = contents(stack.ok("memory.list", {"user_id": user, "limit": 200}, session_id=user))
    replies = [reply for _, reply in EXCHANGES[lang] if reply not in about]
    assert set(replies) <= set(left)  # "Understood.", "Great taste."... stay
    assert not set(left) & about


@pytest.mark.parametrize("lang", ["en-us", "pt-pt"])
def test_the_exact_text_of_a_memory_finds_it_first(stack, lang):
    user = f"exact-{lang}"
    ids = fill(stack, user, lang)
    said = EXCHANGES[lang][0][0]  # the secret hint
    recalled = stack.ok("memory.recall", {"user_id": user, "query": said, "kinds": ["turn"]}, session_id=user)
    assert recalled["memories"][0]["id"] == ids[0] and recalled["memories"][0]["score"] == 1.0
    preview = stack.ok("memory.forget", {"user_id": user, "query": said, "dry_run": True}, session_id=user)
    assert preview["ids"][0] == ids[0]
    assert ids[1] in preview["ids"]  # its reply goes with it
    assert not {m for m in contents(preview)} & {said for said, _ in EXCHANGES[lang][1:]}


def test_a_query_naming_a_facts_value_finds_the_fact_first_with_its_sources(stack):
    user = "value-en"
    ids = fill(stack, user, "en-us")
    found = stack.ok("memory.recall", {"user_id": user, "query": "Porto"}, session_id=user)["memories"]
    assert found[0]["content"] == "Lives in Porto" and found[0]["kind"] == "fact"
    assert found[0]["sources"] == [ids[2]]  # learnt from "I live in Porto"
    assert all("sources" not in m for m in found if m["kind"] == "turn")
    assert all(0 <= m["score"] <= 1 for m in found)


def test_nothing_unrelated_is_recalled_at_the_default_threshold(stack):
    user = "unrelated-en"
    fill(stack, user, "en-us")
    assert stack.ok("memory.recall", {"user_id": user, "query": "my dentist appointment"},
                    session_id=user)["memories"] == []
    assert stack.ok("memory.forget", {"user_id": user, "query": "my dentist appointment", "dry_run": True},
                    session_id=user)["forgotten"] == 0
