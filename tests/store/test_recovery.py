"""Recovery after kill -9: the real bus, the real daemon, the real model and
LanceDB files. Acknowledged turns are found by meaning soon after a restart,
and the vector table's versions stay bounded across crashes."""
import signal
import threading
import time

import pytest

from ovos_memory_service.store.sqlite.lance_index import COMPACT_WRITES, TABLE
from tests.helpers import eventually

pytestmark = pytest.mark.stack
PERSONA = "rag-only"
SESSION = "recovery"
FILLER = ["the weather was {} today", "we talked about the {} for a while", "remind me about the {} later",
          "I watched a film about a {}", "the {} needs cleaning this week"]
THINGS = ["garden", "kitchen", "lighthouse", "violin", "bakery", "harbour", "tractor", "library"]


def start(stack):
    stack.start_service()
    # recall by meaning only: local-rag without keyword fusion
    stack.ok("memory.persona.configure", {"persona_id": PERSONA,
                                          "memory_module": "ovos-memory-plugin-local-rag", "config": {}})


def update(stack, *messages):
    return stack.ok("memory.history.update", {"messages": list(messages), "persona_id": PERSONA},
                    session_id=SESSION, timeout=30)


def exchange(question, answer="ok"):
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


def filler(n, offset=0):
    return [m for i in range(offset, offset + n)
            for m in exchange(FILLER[i % len(FILLER)].format(THINGS[i // len(FILLER) % len(THINGS)]) + f" ({i})")]


def found(stack, query, content):
    hits = stack.ok("memory.recall", {"query": query, "persona_id": PERSONA, "threshold": 0, "limit": 3},
                    session_id=SESSION)["memories"]
    return any(h["content"] == content for h in hits)


def pending(stack):
    stats = stack.ok("memory.stats", {"persona_id": PERSONA}, session_id=SESSION)
    return stats["pending_jobs"] - stats["llm_jobs"]


def versions(stack):
    return len(list((stack.data_dir / "vectors" / f"{TABLE}.lance" / "_versions").glob("*.manifest")))


def keep_writing(stack, stop, acked, offset):
    """An exchange at a time, as people talk, until told to stop."""
    i = 0
    while not stop.is_set():
        acked[0] += update(stack, *filler(1, offset + i))["stored"]
        i += 1
        time.sleep(0.05)


def test_turns_acknowledged_before_a_kill_are_found_by_meaning_soon_after_the_restart(fresh_stack):
    stack = fresh_stack
    start(stack)
    targets = [("I parked the car on level four of the airport garage", "where did I leave my vehicle?"),
               ("My sister Ana is allergic to peanuts", "which food must my sibling avoid?")]
    acked = [0]
    for round_, (said, paraphrase) in enumerate(targets):
        # a backlog of embeddings, as continuous writes leave it, then the turn
        for part in range(50):
            acked[0] += update(stack, *filler(50, 10_000 * round_ + 50 * part))["stored"]
        acked[0] += update(stack, *exchange(said, "noted"))["stored"]
        stack.stop_service(signal.SIGKILL)  # right after the acknowledgement
        start(stack)
        writing = threading.Event()
        writer = threading.Thread(target=keep_writing, args=(stack, writing, acked, 10_000 * round_ + 5000))
        writer.start()  # the writes go on after the restart
        try:
            eventually(lambda: found(stack, paraphrase, said), 60, what=f"semantic recall of {said!r} after the restart")
        finally:
            writing.set()
            writer.join()
    total = stack.ok("memory.list", {"kinds": ["turn"], "persona_id": PERSONA, "limit": 1},
                     session_id=SESSION)["total"]
    assert total == acked[0]  # nothing acknowledged was lost


def test_vector_versions_stay_bounded_under_writes_and_kills(fresh_stack):
    stack = fresh_stack
    start(stack)
    for round_ in range(3):
        for i in range(70):  # one exchange per request: many small vector writes
            update(stack, *filler(1, 100 * round_ + i))
        stack.stop_service(signal.SIGKILL)
        start(stack)
    eventually(lambda: pending(stack) == 0, 300, what="the embedding queue to drain")
    assert versions(stack) <= COMPACT_WRITES + 1
    assert stack.ok("memory.stats", {}, session_id=SESSION)["vectors"] == 3 * 70 * 2
