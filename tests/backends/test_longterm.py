"""longterm: the seed's rolling summary, made after the reply, and a verbatim
window that stays bounded while the endpoint is down."""
import pytest

from tests.helpers import eventually, exchange, roles_contents, scope
from tests.openai_stub import OpenAIStub

SAGE = scope(persona="sage")


@pytest.fixture
def stub():
    server = OpenAIStub().start()
    yield server
    server.stop()


def longterm_engine(make_engine, url, **block):
    block = {"api_url": url, "model": "m", "summarize_every": 2, "recent_window": 1,
             "request_timeout": 5, **block}
    return make_engine(personas={"sage": {"memory_module": "ovos-memory-plugin-longterm",
                                          "ovos-memory-plugin-longterm": block}})


def talk(engine, n, sc=SAGE, start=1):
    for i in range(start, start + n):
        exchange(engine, sc, f"question {i}", f"answer {i}")


def summary_of(engine, sc=SAGE):
    items, _ = engine.list(sc, kinds=["summary"])
    return items[0].content if items else None


def test_before_any_summary_it_is_a_window(make_engine, stub):
    engine = longterm_engine(make_engine, stub.url, system_prompt="You are Sage.")
    talk(engine, 1)
    messages = engine.build_context(SAGE, "and now?").messages
    assert roles_contents(messages) == [("system", "You are Sage."), ("user", "question 1"),
                                        ("assistant", "answer 1"), ("user", "and now?")]


def test_the_summary_comes_after_the_reply_in_the_seeds_shape(make_engine, stub):
    engine = longterm_engine(make_engine, stub.url, system_prompt="You are Sage.")
    talk(engine, 2)  # summarize_every 2: fold all but the newest (recent_window 1)
    summary = eventually(lambda: summary_of(engine))
    assert summary == "Summary of 2 lines, from 'user: question 1' to 'assistant: answer 1'."
    context = engine.build_context(SAGE, "and now?")
    assert roles_contents(context.messages) == [
        ("system", f"You are Sage.\n\n[Conversation summary so far]\n{summary}"),
        ("user", "question 2"), ("assistant", "answer 2"), ("user", "and now?")]
    assert [m.kind for m in context.memories] == ["summary"]
    # two more exchanges: the previous summary and the next two exchanges are folded
    talk(engine, 2, start=3)
    assert eventually(lambda: "answer 3" in (summary_of(engine) or ""))
    request = stub.requests[-1]["messages"][-1]["content"]
    assert request.startswith(f"Summary so far:\n{summary}")
    assert "user: question 2" in request and "question 4" not in request
    assert [m.content for m in engine.build_context(SAGE, "x").messages[1:-1]] == ["question 4", "answer 4"]
    assert len(engine.list(SAGE, kinds=["summary"])[0]) == 1  # one summary, updated in place


def test_the_summary_is_asked_in_the_conversation_language(make_engine, stub):
    engine = longterm_engine(make_engine, stub.url)
    talk(engine, 2, sc=scope(persona="sage", lang="pt-pt"))
    eventually(lambda: stub.requests)
    assert "Write the summary in Portuguese (Portugal)." in stub.requests[0]["messages"][0]["content"]


def test_while_down_the_window_stays_bounded_and_the_backlog_is_folded_later(make_engine, quick_retries):
    down = OpenAIStub()
    engine = longterm_engine(make_engine, down.url)
    talk(engine, 10)
    eventually(lambda: engine.health()["last_background_error"])
    window = engine.build_context(SAGE, "x").messages[:-1]
    # summarize_every + recent_window exchanges at most, the newest ones
    assert [m.content for m in window] == ["question 8", "answer 8", "question 9", "answer 9",
                                           "question 10", "answer 10"]
    down.start()
    try:
        # folded in calls of at most 3 x summarize_every exchanges: 1-6, then 7-9
        assert eventually(lambda: "answer 9" in (summary_of(engine) or ""))
        assert [m.content for m in engine.build_context(SAGE, "x").messages[1:-1]] == ["question 10", "answer 10"]
        assert len(down.requests) == 2
    finally:
        down.stop()


def test_forgetting_a_turn_forgets_the_summary_that_retells_it(make_engine, stub):
    engine = longterm_engine(make_engine, stub.url)
    talk(engine, 2)
    eventually(lambda: summary_of(engine))
    first = engine.get_history(SAGE, 10)[0]
    forgotten = engine.forget(SAGE, ids=[first.id])
    assert sorted(m.kind for m in forgotten) == ["summary", "turn"]
    assert summary_of(engine) is None
    # the remaining turns are summarized again at the next exchange
    talk(engine, 1, start=3)
    assert "question 1" not in eventually(lambda: summary_of(engine))


def test_a_composite_carries_the_summary_block(make_engine, stub):
    block = {"members": [{"module": "ovos-memory-plugin-longterm",
                          "config": {"api_url": stub.url, "model": "m", "summarize_every": 2,
                                     "recent_window": 1}},
                         {"module": "ovos-memory-plugin-lexical"}]}
    engine = make_engine(personas={"sage": {"memory_module": "ovos-memory-plugin-composite",
                                            "ovos-memory-plugin-composite": block}})
    talk(engine, 2)
    summary = eventually(lambda: summary_of(engine))
    messages = engine.build_context(SAGE, "question 1 again?").messages
    assert messages[0].content == f"[Conversation summary so far]\n{summary}"


@pytest.mark.parametrize("bad", [{"summarize_every": 0}, {"recent_window": -1},
                                 {"api_url": "localhost:8000"}, {"request_timeout": "soon"}])
def test_bad_keys_are_refused(engine, bad):
    with pytest.raises(ValueError):
        engine.configure_persona("sage", "ovos-memory-plugin-longterm", bad)


def test_the_seeds_persona_block_is_accepted(engine):
    engine.configure_persona("sage", "ovos-memory-plugin-longterm", {
        "api_url": "http://localhost:8000/v1", "summarize_every": 8, "recent_window": 4,
        "backend": "sqlite", "db_path": "~/.local/share/ovos/longterm_memory.db"})
    assert engine.backend("sage").llm_tasks().keys() == {"summary"}


def test_an_exported_summary_carries_on_after_import(make_engine, stub, tmp_path):
    engine = longterm_engine(make_engine, stub.url)
    talk(engine, 2)
    summary = eventually(lambda: summary_of(engine))
    records = engine.export(limit=1000)["records"]
    copy = make_engine(data_dir=str(tmp_path / "copy"), personas=engine.config["personas"])
    assert copy.import_records(records)["imported"] == len(records)
    messages = copy.build_context(SAGE, "and now?").messages
    assert messages[0].content == f"[Conversation summary so far]\n{summary}"
    assert [m.content for m in messages[1:-1]] == ["question 2", "answer 2"]
