"""Keyword recall (real FTS5) and the lexical backend's knobs and inject modes."""
import pytest

from ovos_memory_service.common.words import keywords
from tests.helpers import exchange, scope, store, user

LEXICAL = "ovos-memory-plugin-lexical"
HEADER = ("Use the following recalled context to answer the user's question. "
          "If the answer is not in the context, rely on the conversation instead.")


def lexical_engine(make_engine, **block):
    """Keyword recall alone: these tests are about it, not about fusion."""
    return make_engine(memory_module=LEXICAL, embeddings={"enabled": False}, **{LEXICAL: block})


@pytest.fixture
def engine(make_engine):
    return lexical_engine(make_engine)


def fill(engine, sc):
    exchange(engine, sc, "My dog is called Rex and he loves the beach", "Rex sounds lovely")
    exchange(engine, sc, "I work as a nurse at the Santa Maria hospital", "That is demanding work")
    exchange(engine, sc, "My favourite band is Radiohead", "Great taste")
    exchange(engine, sc, "I booked flights to Tokyo for April", "Enjoy Japan")
    engine.wait_idle()  # facts are learnt from the turns in the background


@pytest.mark.parametrize("text", [
    'dog" OR content:*', "NOT dog", "dog AND NEAR(x)", "(dog", "dog*", "'; DROP TABLE memories; --",
    "\"\"\"", "dog^2 {content}: -x +y"])
def test_user_text_is_never_fts_syntax(make_engine, text):
    engine = lexical_engine(make_engine)
    sc = scope()
    fill(engine, sc)
    engine.recall(sc, text)  # must not raise
    assert any("Rex" in m.content for m in engine.recall(sc, text, threshold=0)) == ("dog" in text)


def test_stop_words_are_not_searched_per_language():
    assert keywords("What is the name of my dog?", "en-us") == ["name", "dog"]
    assert keywords("Qual é o nome do meu cão?", "pt-pt") == ["nome", "cão"]
    assert keywords("¿Cuál es el nombre de mi perro?", "es-es") == ["nombre", "perro"]
    # "heißt" names nothing: it matched every statement of a name ("meine Stute heißt Luna")
    assert keywords("Wie heißt mein Hund?", "de-de") == ["hund"]
    assert keywords("What is the name of my dog?", "en-GB") == ["name", "dog"]  # nearest locale


def test_only_stop_words_recalls_nothing(engine):
    sc = scope()
    fill(engine, sc)
    assert engine.recall(sc, "what is it that you do", threshold=0) == []


def test_scores_are_relevances_and_a_restatement_scores_one(engine):
    sc = scope()
    fill(engine, sc)
    hits = engine.recall(sc, "dog beach", threshold=0)
    assert hits[0].content.startswith("My dog is called Rex")
    assert all(0 <= h.score <= 1 for h in hits)
    partial = engine.recall(sc, "dog hospital", threshold=0)
    assert max(h.score for h in partial) < hits[0].score
    said = engine.recall(sc, "my dog is called rex and he loves the beach.", threshold=0)
    assert said[0].content == "My dog is called Rex and he loves the beach"
    assert said[0].score == 1.0


def test_stemming_matches_word_forms(engine):
    sc = scope()
    fill(engine, sc)
    assert "Tokyo" in engine.recall(sc, "flight booking")[0].content


def test_build_injects_recalled_turns_in_a_system_block(make_engine):
    engine = lexical_engine(make_engine, system_prompt="You are a helpful assistant.")
    fill(engine, scope(session="old"))
    context = engine.build_context(scope(session="new"), "Where does my dog go?")
    roles = [m.role for m in context.messages]
    assert roles == ["system", "system", "user"]
    assert context.messages[0].content == "You are a helpful assistant."
    assert context.messages[1].content.startswith(HEADER + "\n\nContext:\n- ")
    assert "User: My dog is called Rex" in context.messages[1].content
    assert context.messages[-1].content == "Where does my dog go?"
    assert "My dog is called Rex and he loves the beach" in [m.content for m in context.memories]
    assert "Has a dog called Rex" in [m.content for m in context.memories]  # a fact learnt from it


def inject_build(make_engine, mode):
    engine = lexical_engine(make_engine, inject_mode=mode, system_prompt="SYS",
                            retrieval={"max_num_results": 2})
    fill(engine, scope(session="old"))
    sc = scope(session="now")
    exchange(engine, sc, "hi", "hello")
    return engine.build_context(sc, "tell me about my dog Rex")


def test_inject_mode_system(make_engine):
    m = inject_build(make_engine, "system").messages
    assert [(x.role, x.content[:6]) for x in m] == [
        ("system", "SYS"), ("system", HEADER[:6]), ("user", "hi"), ("assistant", "hello"),
        ("user", "tell m")]


def test_inject_mode_developer(make_engine):
    m = inject_build(make_engine, "developer").messages
    assert [x.role for x in m] == ["system", "developer", "user", "assistant", "user"]
    assert m[1].content.startswith(HEADER + "\n\nContext:\n- ")


def test_inject_mode_system_prompt(make_engine):
    m = inject_build(make_engine, "system_prompt").messages
    assert [x.role for x in m] == ["system", "user", "assistant", "user"]
    assert m[0].content.startswith("SYS\n\n" + HEADER + "\n\nContext:\n- ")


def test_inject_mode_user(make_engine):
    m = inject_build(make_engine, "user").messages
    assert [x.role for x in m] == ["system", "user", "assistant", "user"]
    assert m[0].content == "SYS"
    assert m[-1].content.startswith(HEADER + "\n\nContext:\n- ")
    assert m[-1].content.endswith("\n\nQuestion: tell me about my dog Rex")


def test_inject_mode_tool_is_deterministic(make_engine):
    m = inject_build(make_engine, "tool").messages
    assert [x.role for x in m] == ["system", "user", "assistant", "assistant", "tool", "user"]
    call = m[3].tool_calls[0]
    assert m[3].content == "" and call["name"] == "search_memory"
    assert call["arguments"] == {"query": "tell me about my dog Rex"}
    assert m[4].tool_call_id == call["id"] and m[4].name == "search_memory"
    assert m[4].content.startswith("- ")


def test_tool_call_id_is_the_same_for_identical_builds(make_engine):
    engine = lexical_engine(make_engine, inject_mode="tool")
    fill(engine, scope(session="old"))
    first = engine.build_context(scope(session="now"), "my dog Rex")
    second = engine.build_context(scope(session="now"), "my dog Rex")
    assert [m.to_wire() for m in first.messages] == [m.to_wire() for m in second.messages]


def test_no_hits_gives_plain_history_in_every_mode(make_engine):
    for mode in ("system", "developer", "system_prompt", "user", "tool"):
        engine = lexical_engine(make_engine, inject_mode=mode, system_prompt="SYS")
        sc = scope(user=f"u-{mode}")
        exchange(engine, sc, "hi", "hello")
        m = engine.build_context(sc, "quantum chromodynamics").messages
        assert [(x.role, x.content) for x in m] == [
            ("system", "SYS"), ("user", "hi"), ("assistant", "hello"), ("user", "quantum chromodynamics")]
        engine.close()


def test_context_keys_change_the_rendering(make_engine):
    engine = lexical_engine(make_engine, context={
        "header": "Memories:", "chunk_prefix": "* ", "chunk_separator": "\n", "include_sources": True})
    fill(engine, scope(session="old"))
    context = engine.build_context(scope(session="new"), "dog beach Rex")
    block = context.messages[0].content
    assert block.startswith("Memories:\n\nContext:\n* [")
    assert f"* [{context.memories[0].id}] " in block


def test_max_num_results_and_min_score(make_engine):
    engine = lexical_engine(make_engine, retrieval={"max_num_results": 1})
    fill(engine, scope(session="old"))
    assert len(engine.build_context(scope(session="new"), "dog hospital band").memories) == 1
    engine.close()
    strict = lexical_engine(make_engine, retrieval={"min_score": 0.9})
    assert strict.build_context(scope(session="new"), "dog hospital band").memories == []
    assert len(strict.build_context(scope(session="new"), "dog beach").memories) == 1


def test_live_window_and_utterance_are_not_recalled(engine):
    sc = scope()
    fill(engine, sc)
    context = engine.build_context(sc, "Rex dog beach")
    window = {m.id for m in engine.get_history(sc)}
    assert not window & {m.id for m in context.memories}
    # ovos-persona 0.9.0a25 stores the utterance before it builds
    store(engine, sc, user("favourite band"))
    context = engine.build_context(sc, "favourite band")
    assert [m.content for m in context.messages].count("favourite band") == 1
    assert context.messages[-2].role == "assistant"


def test_query_mode_history_folds_earlier_user_turns(make_engine):
    engine = lexical_engine(make_engine, retrieval={"query_mode": "history", "query_history_turns": 1})
    fill(engine, scope(session="old"))
    sc = scope(session="now")
    exchange(engine, sc, "I was thinking about Tokyo", "oh?")
    context = engine.build_context(sc, "when is that happening?")
    assert any("Tokyo" in m.content for m in context.memories)
    engine.close()
    plain = lexical_engine(make_engine)
    assert not any("Tokyo" in m.content for m in plain.build_context(sc, "when is that happening?").memories)


def test_scope_session_recalls_only_this_session(make_engine):
    engine = lexical_engine(make_engine, scope="session", max_history=2)
    fill(engine, scope(session="old"))
    sc = scope(session="now")
    exchange(engine, sc, "my dog loves the park", "fun")
    exchange(engine, sc, "what a day", "indeed")
    memories = engine.build_context(sc, "dog").memories
    assert [m.content for m in memories] == ["my dog loves the park", "fun"]  # the reply by its context


@pytest.mark.parametrize("block", [
    {"inject_mode": "loud"}, {"retrieval": {"max_num_results": 0}}, {"retrieval": {"query_mode": "x"}},
    {"retrieval": {"min_score": "high"}}, {"scope": "planet"}, {"max_history": -1}, {"context": []}])
def test_bad_backend_config_is_rejected(engine, block):
    with pytest.raises(ValueError):
        engine.configure_persona("p", LEXICAL, block)
