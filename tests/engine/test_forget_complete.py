"""Forgetting by a query takes the replies that answered what it forgets, and
the other memories that repeat it, and nothing about anything else; the
window a persona receives afterwards still alternates."""
from ovos_memory_service.common.items import KINDS, normalized
from tests.helpers import exchange, scope


def _told(engine, sc):
    said = [("what's the weather like", "Sunny and 18 degrees."),
            ("my sister lives in berlin", "Berlin is a lovely city for your sister to live in."),
            ("my brother lives in berlin too", "So both of them are in Berlin, how nice."),
            ("can you remind me where my sister lives", "Your sister lives in Berlin."),
            ("tell me a joke", "Why did the bicycle fall over? It was two tired.")]
    ids = [exchange(engine, sc, u, a)["ids"] for u, a in said]
    engine.wait_idle()
    return ids


def test_forgetting_a_topic_takes_the_replies_and_the_repeats(make_engine):
    engine = make_engine()
    sc = scope()
    weather, sister, brother, reminder, joke = _told(engine, sc)
    listed = {m.id for m in engine.forget(sc, query="my sister", dry_run=True, limit=20)}
    assert set(sister) | set(reminder) <= listed  # the statements, their replies, the repeat
    assert not listed & set(weather + brother + joke)
    engine.forget(sc, ids=sorted(listed))
    left = {m.content for m in engine.list(sc, KINDS, 200, 0)[0]}
    assert not any("sister" in text.lower() for text in left)
    assert "my brother lives in berlin too" in left


def test_the_window_still_alternates_after_forgetting_a_statement(make_engine):
    engine = make_engine()
    sc = scope()
    _told(engine, sc)
    engine.forget(sc, query="my sister", limit=20)
    messages = engine.build_context(sc, "what do you know about my family").messages
    roles = [m.role for m in messages if m.role in ("user", "assistant")]
    assert all(a != b for a, b in zip(roles, roles[1:])), roles
    assert not any("sister" in m.content.lower() for m in messages)


def test_forgetting_a_fact_takes_the_turn_it_was_learnt_from(make_engine):
    engine = make_engine()
    sc = scope()
    home = exchange(engine, sc, "I live in Porto", "Nice.")["ids"]
    exchange(engine, sc, "I work as a nurse", "Okay.")
    engine.wait_idle()
    facts = {m.content: m for m in engine.list(sc, ("fact",), 20, 0)[0]}
    gone = {m.id for m in engine.forget(sc, ids=[facts["Works as nurse"].id])}
    assert gone == {facts["Works as nurse"].id}  # by id: exactly what was named
    porto = facts["Lives in Porto"]
    listed = {m.id for m in engine.forget(sc, query=porto.content, dry_run=True, threshold=0.99)}
    assert listed == {porto.id, *home}  # the fact, the turn it was learnt from, and its reply


def test_a_turn_about_the_query_goes_with_what_else_it_told_and_the_dry_run_lists_it(make_engine):
    engine = make_engine()
    sc = scope()
    told = exchange(engine, sc, "my dog is called Rex and I work as a nurse", "Okay.")["ids"]
    engine.wait_idle()
    listed = {m.content for m in engine.forget(sc, query="my dog Rex", dry_run=True)}
    assert "my dog is called Rex and I work as a nurse" in listed
    assert "Works as nurse" in listed  # learnt only from that turn: heard in the confirmation
    assert {m.content for m in engine.forget(sc, query="my dog Rex")} == listed
    assert engine.list(sc, ("turn", "fact"), 20, 0)[1] == 0 and told


def test_a_forgotten_text_is_left_in_no_cache(make_engine):
    """Builds keep memories' compared texts (items.normalized) for the next build;
    forgetting empties that cache, so a forgotten text is gone from the process too."""
    engine = make_engine()
    sc = scope()
    told = exchange(engine, sc, "my locker code is 4411", "Noted.")["ids"]
    engine.wait_idle()
    assert engine.build_context(scope(session="s2"), "what is my locker code").memories
    assert normalized.cache_info().currsize > 0
    engine.forget(sc, ids=told)
    assert normalized.cache_info().currsize == 0
