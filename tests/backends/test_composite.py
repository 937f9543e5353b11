"""The composite backend: members, primary, fusion, deadlines, nesting, boosts."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ovos_memory_service.common.items import KINDS

from tests.helpers import exchange, roles_contents, scope, store, user, assistant
from tests.plugin_fixture import PLUGIN_NAME, install_plugin

COMPOSITE = "ovos-memory-plugin-composite"
LEXICAL = {"module": "ovos-memory-plugin-lexical"}
RAG = {"module": "ovos-memory-plugin-local-rag"}


def composite(make_engine, semantic=False, **block):
    config = {"memory_module": COMPOSITE, COMPOSITE: block}
    if not semantic:
        config["embeddings"] = {"enabled": False}
    return make_engine(**config)


def fill(engine, sc):
    exchange(engine, sc, "My dog is called Rex and he loves the beach", "Rex sounds lovely")
    exchange(engine, sc, "I work as a nurse at the hospital", "That is demanding work")
    exchange(engine, sc, "My favourite band is Radiohead", "Great taste")


def watch_embeddings(engine, monkeypatch, first=lambda text: None):
    """The texts the engine's model embeds from now on, in order; ``first(text)``
    runs before each (to make it slow)."""
    embedder, embedded = engine.reader.queries.embedder, []
    embed_query = embedder.embed_query

    def watched(text):
        embedded.append(text)
        first(text)
        return embed_query(text)
    monkeypatch.setattr(embedder, "embed_query", watched)
    return embedded


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site")))


def test_hybrid_default_recalls_by_keywords_and_by_meaning(make_engine):
    engine = make_engine()  # the default configuration
    fill(engine, scope(session="old"))
    engine.wait_idle()
    sc = scope(session="new")
    by_meaning = engine.build_context(sc, "what is the name of my pet?")
    turns = [m.content for m in by_meaning.memories if m.kind == "turn"]
    assert "My dog is called Rex and he loves the beach" in turns[:2]
    by_keyword = engine.build_context(sc, "Radiohead")
    assert [m.content for m in by_keyword.memories if m.kind == "turn"][0] == "My favourite band is Radiohead"
    # and what was learnt about the user, as the seed's entity block
    facts_block = by_keyword.messages[0].content
    assert facts_block.startswith("Known facts about the user:\n- ")
    assert "- Has a dog called Rex" in facts_block and "- Likes Radiohead" in facts_block
    assert engine.stats(sc)["memory_module"] == "composite"



@pytest.mark.parametrize("utterance", ["what is the name of my pet?", "music"])
def test_a_build_embeds_its_utterance_once(make_engine, monkeypatch, utterance):
    """One embedding a build: the one started ahead (reader.embed_ahead), the
    members' and the scoring's are one vector."""
    engine = make_engine()
    fill(engine, scope(session="old"))
    engine.wait_idle()
    embedded = watch_embeddings(engine, monkeypatch)
    found = engine.build_context(scope(session="new"), utterance)
    assert embedded == [utterance]
    assert found.memories


@pytest.mark.parametrize("members, filled", [([{"module": "recency"}], True), ([LEXICAL], False)])
def test_a_composite_that_searches_no_meaning_embeds_nothing_ahead(make_engine, monkeypatch, members, filled):
    engine = composite(make_engine, semantic=True, members=members)
    if filled:
        fill(engine, scope(session="old"))
    engine.wait_idle()
    embedded = watch_embeddings(engine, monkeypatch)
    for utterance in ("what is the name of my pet?", "where do I work?", "music"):
        engine.build_context(scope(session="new"), utterance)
    engine.close()  # its threads done: an embedding started ahead has finished
    assert embedded == []


def test_builds_behind_a_slow_embedding_embed_each_utterance_once(make_engine, monkeypatch):
    """While one utterance takes long to embed, quick builds go on; the
    embeddings started ahead for them must not be made again once they are
    over (a queue of them would outlive the 32 queries kept), nor hold up close()."""
    engine = make_engine()
    fill(engine, scope(session="old"))
    engine.wait_idle()
    utterances = ["tell me everything about my dog, slowly"] + [f"what is the name of pet {i}?" for i in range(40)]
    embedded = watch_embeddings(engine, monkeypatch,
                                lambda text: time.sleep(1.5 if text == utterances[0] else 0.01))
    slow = threading.Thread(target=engine.build_context, args=(scope(session="new"), utterances[0]))
    slow.start()
    time.sleep(0.1)
    for utterance in utterances[1:]:
        engine.build_context(scope(session="new"), utterance)
    slow.join()
    started = time.monotonic()
    engine.close()
    assert time.monotonic() - started < 1.0
    assert sorted(embedded) == sorted(utterances)


def test_an_embedding_that_hangs_keeps_no_queue_of_embeddings_ahead(make_engine, monkeypatch):
    """While one utterance never finishes embedding, builds go on; at most one
    more embedding waits to be started ahead, not one per build."""
    engine = make_engine()
    fill(engine, scope(session="old"))
    engine.wait_idle()
    release = threading.Event()

    def hangs(text):
        if text == "stuck":
            assert release.wait(30), "the test never let the embedding finish"
    watch_embeddings(engine, monkeypatch, hangs)
    try:
        assert engine.reader.embed_ahead(scope(), "stuck") is not None
        started = [engine.reader.embed_ahead(scope(), f"where does friend {i} live") for i in range(10)]
        assert sum(future is not None for future in started) == 1
    finally:
        release.set()


def test_a_member_that_asks_with_the_history_gets_no_embedding_ahead(make_engine, monkeypatch):
    """A local-rag member with ``query_mode: history`` embeds the earlier turns
    with the utterance: the utterance alone is embedded only if scoring needs it."""
    history = {"module": "ovos-memory-plugin-local-rag",
               "config": {"retrieval": {"query_mode": "history", "query_history_turns": 3}}}
    engine = composite(make_engine, semantic=True, members=[LEXICAL, history])
    now = scope(session="now")
    exchange(engine, now, "hello there", "hi")  # the live conversation: never recalled
    engine.wait_idle()
    embedded = watch_embeddings(engine, monkeypatch)
    engine.build_context(now, "what is the name of my pet?")
    engine.close()
    assert embedded == ["hello there what is the name of my pet?"]


def test_a_slow_embedding_keeps_no_member_waiting_for_a_thread(make_engine, monkeypatch):
    """Many builds at once leave few free threads for the members: the embedding
    started ahead must not take one of them (a member kept waiting past its
    deadline is skipped, and its memories with it)."""
    engine = composite(make_engine, semantic=True, member_timeout=0.5,
                       members=[LEXICAL, RAG, {"module": "ovos-memory-plugin-entity"}])
    fill(engine, scope(session="old"))
    engine.wait_idle()
    release = threading.Event()
    watch_embeddings(engine, monkeypatch, lambda text: release.wait(2))
    two_threads = ThreadPoolExecutor(2, thread_name_prefix="memory-member")
    monkeypatch.setattr(engine.reader, "member_pool", two_threads)
    try:
        found = engine.build_context(scope(session="new"), "Radiohead")
    finally:
        release.set()
        two_threads.shutdown(wait=True)
    assert "My favourite band is Radiohead" in [m.content for m in found.memories]


def test_primary_member_provides_the_window(make_engine):
    engine = composite(make_engine, members=[
        {"module": "ovos-memory-plugin-lexical", "config": {"max_history": 2}},
        {"module": "ovos-memory-plugin-recency", "config": {"max_history": 4}}],
        primary="recency")
    sc = scope()
    fill(engine, sc)
    messages = engine.build_context(sc, "quantum physics").messages
    assert [m.content for m in messages[:-1]] == [
        "I work as a nurse at the hospital", "That is demanding work",
        "My favourite band is Radiohead", "Great taste"]
    with pytest.raises(ValueError, match="primary"):
        engine.configure_persona("p", COMPOSITE, {"members": [LEXICAL], "primary": "entity"})


def test_fusion_priority_puts_the_first_member_first(make_engine):
    engine = composite(make_engine, semantic=True, members=[RAG, LEXICAL], fusion="priority",
                       max_num_results=3)
    fill(engine, scope(session="old"))
    engine.wait_idle()
    # of every kind a build recalls: the fact "Has a dog called Rex" may come first
    semantic_first = engine.reader.semantic_search(scope(session="new"), "dog", 1, KINDS)[0]
    assert engine.build_context(scope(session="new"), "dog").memories[0].id == semantic_first.id


@pytest.mark.parametrize("fusion", ["rrf", "weighted", "merge", "priority", "interleave"])
def test_every_fusion_mode_builds(make_engine, fusion):
    engine = composite(make_engine, semantic=True, members=[LEXICAL, RAG], fusion=fusion, rrf_k=5,
                       member_fetch_k=4, max_num_results=2)
    fill(engine, scope(session="old"))
    engine.wait_idle()
    context = engine.build_context(scope(session="new"), "Rex the dog at the beach")
    assert 1 <= len(context.memories) <= 2
    assert context.memories[0].content.startswith("My dog is called Rex")
    assert len({m.content for m in context.memories}) == len(context.memories)  # dedup


def test_composite_min_score_applies(make_engine):
    engine = composite(make_engine, members=[LEXICAL], min_score=0.9)
    fill(engine, scope(session="old"))
    assert [m.content for m in engine.build_context(scope(session="new"), "dog hospital").memories] == []
    assert engine.build_context(scope(session="new"), "dog beach").memories


def test_a_member_that_fails_or_hangs_is_skipped(make_engine, plugin_path):
    engine = composite(make_engine, members=[
        LEXICAL,
        {"module": PLUGIN_NAME, "config": {"fail": True}},
        {"module": PLUGIN_NAME, "config": {"sleep": 5}},
        {"module": "no-such-plugin"}], member_timeout=0.5)
    fill(engine, scope(session="old"))
    started = time.monotonic()
    context = engine.build_context(scope(session="new"), "dog beach")
    assert time.monotonic() - started < 2
    assert context.memories[0].content.startswith("My dog is called Rex")
    assert [m.role for m in context.messages] == ["system", "user"]


def test_plain_members_contribute_their_system_blocks(make_engine, plugin_path):
    engine = composite(make_engine, members=[LEXICAL, {"module": PLUGIN_NAME, "config": {
        "system_prompt": "Known things:"}}], system_prompt="You are kind.")
    sc = scope()
    exchange(engine, sc, "hello", "hi")
    engine.wait_idle()
    messages = engine.build_context(sc, "how are you").messages
    assert roles_contents(messages) == [("system", "You are kind."), ("system", "Known things: seen=2"),
                                        ("user", "hello"), ("assistant", "hi"), ("user", "how are you")]


def test_a_composite_can_contain_a_composite(make_engine):
    engine = composite(make_engine, members=[
        {"module": COMPOSITE, "config": {"members": [LEXICAL]}}, {"module": "recency"}])
    fill(engine, scope(session="old"))
    context = engine.build_context(scope(session="new"), "Radiohead")
    assert "Radiohead" in context.memories[0].content


def test_composite_inject_mode(make_engine):
    engine = composite(make_engine, members=[LEXICAL], inject_mode="user")
    fill(engine, scope(session="old"))
    messages = engine.build_context(scope(session="new"), "Radiohead").messages
    assert [m.role for m in messages] == ["user"]
    assert messages[0].content.endswith("\n\nQuestion: Radiohead")


def test_neighbor_weight_brings_the_answer_with_the_question(make_engine):
    lifted = composite(make_engine, members=[LEXICAL], neighbor_weight=0.5, max_num_results=2)
    sc = scope(session="old")
    exchange(lifted, sc, "Which city should I visit in spring?", "Kyoto, for the cherry blossoms")
    exchange(lifted, sc, "I visited my aunt", "How nice")
    assert [m.content for m in lifted.build_context(scope(session="new"), "city spring").memories] == [
        "Which city should I visit in spring?", "Kyoto, for the cherry blossoms"]


def test_speaker_named_in_the_question_ranks_first(make_engine):
    engine = composite(make_engine, members=[LEXICAL], speaker_boost=1.0)
    sc = scope(session="old")
    store(engine, sc, user("I went hiking in the mountains", name="Ana"),
          assistant("I went hiking in the mountains too", name="Rui"))
    assert engine.build_context(scope(session="new"), "Where did Rui go hiking?").memories[0].name == "Rui"
    assert engine.build_context(scope(session="new"), "Where did Ana go hiking?").memories[0].name == "Ana"


def test_date_mentioned_in_the_question_ranks_near_memories_first(make_engine):
    engine = composite(make_engine, members=[LEXICAL], time_boost=4.0)
    sc = scope(session="old")
    store(engine, sc, user("We baked a lemon cake", created_at="2024-03-02T10:00:00Z"),
          assistant("yum", created_at="2024-03-02T10:00:05Z"))
    store(engine, sc, user("We baked a lemon cake again", created_at="2025-06-20T10:00:00Z"),
          assistant("yum", created_at="2025-06-20T10:00:05Z"))
    first = engine.build_context(scope(session="new"), "What did we bake on 2 March 2024?").memories[0]
    assert first.content == "We baked a lemon cake"
    first = engine.build_context(scope(session="new"), "What did we bake on 20 June 2025?").memories[0]
    assert first.content == "We baked a lemon cake again"


@pytest.mark.parametrize("block", [
    {"members": "lexical"}, {"members": [{"config": {}}]}, {"members": [LEXICAL], "fusion": "vote"},
    {"members": [LEXICAL], "rrf_k": 0}, {"members": [{"module": "lexical", "weight": -1}]},
    {"members": [LEXICAL], "min_score": 2}, {"members": [LEXICAL], "inject_mode": "loud"}])
def test_bad_composite_config_is_rejected(engine, block):
    with pytest.raises(ValueError):
        engine.configure_persona("p", COMPOSITE, block)


def test_a_skipped_member_is_counted_in_stats(make_engine, plugin_path):
    engine = composite(make_engine, members=[
        LEXICAL,
        {"module": PLUGIN_NAME, "config": {"fail": True}},
        {"module": PLUGIN_NAME, "config": {"sleep": 5}}], member_timeout=0.5)
    fill(engine, scope(session="old"))
    assert engine.stats(scope())["member_misses"] == {}
    engine.build_context(scope(session="new"), "dog beach")
    engine.build_context(scope(session="new"), "dog beach")
    missed = engine.stats(scope())["member_misses"][PLUGIN_NAME]
    assert missed["missed"] == 4  # one failing and one late member, in two builds
    assert missed["last_at"].endswith("Z") and ("failed" in missed["last"] or "passed 0.5 s" in missed["last"])
    assert LEXICAL["module"] not in engine.stats(scope())["member_misses"]
