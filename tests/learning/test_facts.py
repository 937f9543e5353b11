"""Facts about the user that stay true: the fact model on a real store, facts
learnt from conversations without an LLM, and a later session that knows them,
in four languages over a real bus."""
import uuid

import pytest

from ovos_memory_service.store import Visible
from tests.helpers import assistant, eventually, exchange, scope, store, user
from tests.sandbox import verified


def facts(engine, sc, kinds=("fact", "preference", "skill")):
    return sorted(m.content for m in engine.list(sc, kinds=list(kinds), limit=200)[0])


def test_a_new_value_supersedes_and_keeps_history(engine):
    sc = scope()
    first = engine.remember(sc, "I live in Lisbon")
    assert engine.remember(sc, "I moved to Porto") == first  # the slot's memory is updated
    assert facts(engine, sc) == ["I moved to Porto"]
    engine.wait_idle()
    recalled = [m.content for m in engine.recall(sc, "Lisbon", kinds=["fact"], threshold=0)]
    assert "I live in Lisbon" not in recalled  # history, not a current fact
    history = sorted((r["created_at"], r["content"], r["status"]) for r in engine.store.in_slot(
        Visible(sc, ("fact",), history=True), "residence"))
    history = [(content, status) for _, content, status in history]
    assert history == [("I live in Lisbon", "superseded"), ("I moved to Porto", "current")]


def test_a_restatement_adds_nothing(engine):
    sc = scope()
    first = engine.remember(sc, "My name is Ana")
    assert engine.remember(sc, "my name is ana.") == first
    assert len(facts(engine, sc)) == 1


def test_multi_valued_slots_accumulate_and_negation_retracts(engine):
    sc = scope()
    exchange(engine, sc, "I love jazz", "Nice")
    exchange(engine, sc, "I also enjoy hiking", "Great")
    engine.wait_idle()
    assert facts(engine, sc) == ["Likes hiking", "Likes jazz"]
    exchange(engine, sc, "I don't like jazz any more", "Oh")
    engine.wait_idle()
    assert facts(engine, sc) == ["Likes hiking"]


def test_a_dislike_retracts_the_opposite_like(engine):
    sc = scope()
    engine.remember(sc, "I like olives")
    engine.remember(sc, "I hate olives")
    assert facts(engine, sc) == ["I hate olives"]


def test_questions_hypotheticals_and_other_people_give_no_facts(engine):
    sc = scope()
    store(engine, sc, user("is my name Ana?"), assistant("I don't know"))
    store(engine, sc, user("if I lived in Paris I would walk more"), assistant("Maybe"))
    store(engine, sc, user("John said he lives in Paris"), assistant("OK"))
    engine.wait_idle()
    assert facts(engine, sc) == []


def test_facts_carry_provenance_and_go_with_their_turn(engine):
    sc = scope()
    ids = exchange(engine, sc, "My dog is called Rex", "Cute")["ids"]
    engine.wait_idle()
    row = engine.store.in_slot(Visible(sc, ("fact",)), "pet.dog.name")[0]
    assert (row["sources"] == f'["{ids[0]}"]' and row["extractor"] == "rules" and 0 < row["confidence"] <= 1
            and row["kind"] == "fact")
    forgotten = engine.forget(sc, ids=[ids[0]])
    assert {m.content for m in forgotten} == {"My dog is called Rex", "Has a dog called Rex"}
    assert facts(engine, sc) == []


def test_list_recall_and_forget_filter_by_kind(engine):
    sc = scope()
    engine.remember(sc, "I am allergic to peanuts")
    engine.remember(sc, "I love peanut butter cookies")
    assert [m.kind for m in engine.list(sc, kinds=["preference"])[0]] == ["preference"]
    assert [m.kind for m in engine.recall(sc, "peanut", kinds=["fact"], threshold=0)] == ["fact"]
    engine.forget(sc, everything=True, kinds=["preference"])
    assert facts(engine, sc) == ["I am allergic to peanuts"]


def test_facts_are_shared_by_personas_and_sessions_of_the_user(engine):
    exchange(engine, scope(persona="chef", session="kitchen"), "I'm vegetarian", "Noted")
    engine.wait_idle()
    later = engine.build_context(scope(persona="butler", session="hall"), "what should I cook tonight?")
    assert later.messages[0].content == "Known facts about the user:\n- Is vegetarian"
    assert engine.build_context(scope(user="bob"), "what should I cook?").messages[0].role == "user"


HEADINGS = {"en-us": "Known facts about the user:", "pt-pt": "Factos conhecidos sobre o utilizador:",
            "es-es": "Datos conocidos sobre el usuario:", "de-de": "Bekannte Fakten über den Benutzer:"}

CONVERSATIONS = {
    "en-us": (["Hi, my name is Ana.", "I live in Lisbon and I love jazz.", "My dog is called Rex.",
               "I work at Siemens.", "I'm allergic to peanuts."],
              "I moved to Porto.", "what do you know about me?",
              ["Name is Ana", "Lives in Porto", "Likes jazz", "Has a dog called Rex", "Works at Siemens",
               "Allergic to peanuts"], "Lives in Lisbon"),
    "pt-pt": (["Olá, chamo-me Ana.", "Moro em Lisboa e adoro jazz.", "O meu cão chama-se Rex.",
               "Trabalho na Siemens.", "Sou alérgica a amendoins."],
              "Mudei-me para o Porto.", "o que sabes sobre mim?",
              ["Chama-se Ana", "Porto", "jazz", "Rex", "Siemens", "amendoins"], "Lisboa"),
    "es-es": (["Hola, me llamo Lucía.", "Vivo en Sevilla y me encanta el flamenco.",
               "Mi perro se llama Toby.", "Trabajo en Telefónica.", "Soy alérgica a los cacahuetes."],
              "Me he mudado a Madrid.", "¿qué sabes de mí?",
              ["Lucía", "Madrid", "flamenco", "Toby", "Telefónica", "cacahuetes"], "Sevilla"),
    "de-de": (["Hallo, ich heiße Jonas.", "Ich wohne in Berlin und ich mag Jazz.", "Mein Hund heißt Bello.",
               "Ich arbeite bei Siemens.", "Ich bin allergisch gegen Erdnüsse."],
              "Ich bin nach Hamburg gezogen.", "was weißt du über mich?",
              ["Jonas", "Hamburg", "Jazz", "Bello", "Siemens", "Erdnüsse"], "Berlin"),
}


@pytest.mark.stack
@pytest.mark.parametrize("lang", sorted(CONVERSATIONS))
def test_a_conversation_leaves_current_facts_a_later_session_knows(stack, lang):
    said, moved, question, expected, old_home = CONVERSATIONS[lang]
    person = f"{lang}-{uuid.uuid4().hex[:6]}"
    first_session = {"session": {"session_id": f"{person}-a", "lang": lang}}
    for line in said + [moved]:
        stack.ok("memory.history.update", {"user_id": person, "messages": [
            {"role": "user", "content": line}, {"role": "assistant", "content": "👍"}]}, **first_session)
    def current_facts():
        learnt = stack.ok("memory.list", {"user_id": person, "kinds": ["fact", "preference"]},
                          **first_session)["memories"]
        return " | ".join(m["content"] for m in learnt)

    # facts are learnt after the replies, the move last: the old home is superseded, not current
    eventually(lambda: all(piece in current_facts() for piece in expected) and old_home not in current_facts(),
               timeout=30, what=f"the facts {expected} without {old_home!r}")
    # a user named in the data has memories in a build at level 3 (access_levels.context)
    built = stack.ok("memory.context.build", {"user_id": person, "utterance": question},
                     session=verified(f"{person}-b", lang=lang))
    block = built["messages"][0]["content"]
    assert block.startswith(HEADINGS[lang] + "\n")  # in the conversation's language
    for piece in expected:
        assert piece in block
    stranger = stack.ok("memory.context.build", {"utterance": question},
                        session={"session_id": f"{person}-stranger", "lang": lang})
    assert HEADINGS[lang] not in str(stranger["messages"])


def test_a_statement_learnt_without_a_slot_gets_one_later(engine):
    """An LLM in the seed's format may say "Lives in Braga" before the rules
    have read the turn: the rules' fact fills that memory, not a second one."""
    from ovos_memory_service.learning.facts.model import Fact, record
    sc = scope()
    first = record(engine.store, sc, Fact(kind="fact", content="Lives in Braga", extractor="llm"))
    second = record(engine.store, sc, Fact(kind="fact", content="Lives in Braga", slot="residence",
                                           value="Braga", extractor="rules"))
    moved = record(engine.store, sc, Fact(kind="fact", content="Lives in Porto", slot="residence",
                                          value="Porto", extractor="rules"))
    assert first == second == moved
    items, total = engine.list(sc, kinds=["fact"])
    assert total == 1 and items[0].content == "Lives in Porto"


@pytest.mark.parametrize("first", ["llm", "rules"])
def test_a_restated_fact_keeps_the_words_of_its_most_trusted_source(engine, first):
    """The rules and an LLM learn the same fact in either order (their workers
    race): one fact, in the rules' words, with both provenances."""
    from ovos_memory_service.learning.facts.model import Fact, record
    sc = scope()
    said = {"llm": Fact(kind="fact", content="User lives in Braga", slot="residence", value="Braga",
                        sources=["turn-a"], extractor="llm"),
            "rules": Fact(kind="fact", content="Lives in Braga", slot="residence", value="Braga",
                          sources=["turn-b"], extractor="rules")}
    for extractor in (first, *(e for e in said if e != first)):
        record(engine.store, sc, said[extractor])
    items, total = engine.list(sc, kinds=["fact"])
    assert total == 1 and items[0].content == "Lives in Braga"
    assert sorted(items[0].sources) == ["turn-a", "turn-b"]


def learnt(engine, sc, *said):
    for line in said:
        exchange(engine, sc, line, "Okay.")
    engine.wait_idle()
    return facts(engine, sc)


def test_people_work_and_home_said_as_speech_to_text_gives_them_are_learnt(engine):
    sc = scope()
    assert learnt(engine, sc, "i work as a nurse at the children's hospital", "my sister lives in berlin",
                  "my dog is called biscuit") == [
        "Has a dog called Biscuit", "Sister lives in Berlin", "Works as nurse at the children's hospital"]
    # a person's fact is one value per slot, as the user's: a move updates it
    assert learnt(engine, sc, "my sister moved to munich", "i'm no longer a nurse") == [
        "Has a dog called Biscuit", "Sister lives in Munich"]


def test_two_named_people_of_one_relation_keep_their_own_facts(engine):
    sc = scope()
    assert learnt(engine, sc, "my brother tom is a chef", "my brother jim is a lawyer",
                  "my brother tom is a baker now") == ["Brother Jim works as lawyer", "Brother Tom works as baker"]


@pytest.mark.parametrize("lang,said,statement", [
    ("pt-pt", "moro em coimbra", "Mora em Coimbra"),
    ("es-es", "mi perro se llama toby", "Su perro se llama Toby"),
    ("de-de", "meine schwester wohnt in köln", "Schwester wohnt in Köln"),
])
def test_facts_are_worded_in_the_conversations_language_with_capitals(engine, lang, said, statement):
    assert learnt(engine, scope(lang=lang), said) == [statement]


@pytest.mark.parametrize("lang", sorted(HEADINGS))
def test_the_facts_block_heading_follows_the_conversations_language(make_engine, lang):
    engine = make_engine(personas={"sage": {"memory_module": "ovos-memory-plugin-entity",
                                            "ovos-memory-plugin-entity": {"api_url": ""}},
                                   "told": {"memory_module": "ovos-memory-plugin-entity",
                                            "ovos-memory-plugin-entity": {"api_url": "",
                                                                          "facts_header": "Facts:"}}})
    engine.remember(scope(persona="sage", lang=lang), "Likes long walks")
    block = engine.build_context(scope(persona="sage", lang=lang), "hi").messages[0]
    assert block.role == "system" and block.content == HEADINGS[lang] + "\n- Likes long walks"
    # a configured heading wins, in every language
    told = engine.build_context(scope(persona="told", lang=lang), "hi").messages[0]
    assert told.content == "Facts:\n- Likes long walks"
