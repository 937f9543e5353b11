"""Who is speaking (issue 37, OVOS-USER-ID-1): memories keyed by the speaker
the session names, gated by the session's authentication level. A real bus and
the real daemon; every request carries its session as ovos-core forwards one.
"""
import json
import time
import uuid

import pytest

from tests.helpers import eventually
from tests.sandbox import Stack

pytestmark = pytest.mark.stack

LOCKER = "My locker code at the gym is Zulu 4471"
TWINS = "I'm pregnant with twins, but nobody knows yet."
GUEST_LINE = "The plumber comes on Tuesday at nine"


def new_id(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def speaker(user_id=None, level=None, session_id="default", authenticated=True, **more):
    """The ``session`` of a request: OVOS-USER-ID-1's fields as a recognition plugin writes them."""
    session = {"session_id": session_id, **more}
    if user_id is not None:
        session["user_id"] = user_id
    if level is not None:
        session["auth_level"] = level
    if authenticated:
        session["authenticated_at"] = time.time()
    return {"session": session}


def ask(stack, msg_type, data, session):
    reply = stack.client.request(msg_type, data, session, timeout=15)
    assert reply.get("ok") is True, reply
    return reply


def say(stack, session, question, answer):
    return ask(stack, "memory.history.update", {"messages": [
        {"role": "user", "content": question}, {"role": "assistant", "content": answer}]}, session)


def everything_seen(stack, session, query):
    """What every read of the protocol gives the speaker of ``session``."""
    return json.dumps([ask(stack, "memory.recall", {"query": query}, session),
                       ask(stack, "memory.list", {"limit": 200}, session),
                       ask(stack, "memory.history.get", {}, session),
                       ask(stack, "memory.context.build", {"utterance": query}, session)])


# ------------------------------------------------- two speakers and a guest
def test_two_speakers_and_a_guest_on_the_device_session_never_see_each_other(stack):
    alice, bob = new_id("alice"), new_id("bob")
    as_alice, as_bob, as_guest = speaker(alice, 1), speaker(bob, 1), speaker()
    ask(stack, "memory.remember", {"content": LOCKER}, as_alice)
    say(stack, as_alice, TWINS, "Congratulations, I will keep it to myself.")
    say(stack, as_guest, GUEST_LINE, "Noted.")
    for query in ("what is my locker code", "am I expecting a baby", "when does the plumber come"):
        seen_by_bob = everything_seen(stack, as_bob, query)
        assert "Zulu" not in seen_by_bob and "twins" not in seen_by_bob and "Tuesday" not in seen_by_bob
        seen_by_guest = everything_seen(stack, as_guest, query)
        assert "Zulu" not in seen_by_guest and "twins" not in seen_by_guest
    # the guest keeps the household's memory (user "default", as before identities)
    assert "Tuesday" in json.dumps(ask(stack, "memory.recall", {"query": "when does the plumber come"}, as_guest))
    assert [m["content"] for m in ask(stack, "memory.history.get", {}, as_guest)["messages"]][-2:] == [
        GUEST_LINE, "Noted."]
    # the verbatim window of the shared session is the speaker's own
    assert [m["content"] for m in ask(stack, "memory.history.get", {}, as_alice)["messages"]] == [
        TWINS, "Congratulations, I will keep it to myself."]
    assert ask(stack, "memory.history.get", {}, as_bob)["messages"] == []
    # Alice finds her own
    assert ask(stack, "memory.recall", {"query": "locker code"}, as_alice)["memories"][0]["content"] == LOCKER
    # Bob forgetting everything leaves Alice's and the household's memories alone
    ask(stack, "memory.forget", {"all": True}, as_bob)
    assert ask(stack, "memory.list", {}, as_alice)["total"] == 3
    assert "Tuesday" in json.dumps(ask(stack, "memory.list", {"limit": 200}, as_guest))
    # and a forget by Alice's ids in Bob's name touches nothing
    ids = [m["id"] for m in ask(stack, "memory.list", {}, as_alice)["memories"]]
    assert ask(stack, "memory.forget", {"ids": ids}, as_bob)["forgotten"] == 0
    assert ask(stack, "memory.list", {}, as_alice)["total"] == 3


def test_the_speaker_comes_from_data_then_session_then_context(stack):
    session_id = new_id("s")
    ana, rui, eva = new_id("ana"), new_id("rui"), new_id("eva")
    base = speaker(rui, 3, session_id)
    ask(stack, "memory.remember", {"content": "I collect stamps", "user_id": ana}, {**base, "user_id": eva})
    ask(stack, "memory.remember", {"content": "I collect coins"}, {**base, "user_id": eva})
    ask(stack, "memory.remember", {"content": "I collect shells"}, {"session": {"session_id": session_id},
                                                                    "user_id": eva})
    listed = {who: [m["content"] for m in ask(stack, "memory.list", {"user_id": who}, speaker())["memories"]]
              for who in (ana, rui, eva)}
    assert listed == {ana: ["I collect stamps"], rui: ["I collect coins"], eva: ["I collect shells"]}


@pytest.mark.parametrize("level,stamp", [(7, True), (-1, True), ("3", True), (True, True), (3.5, True),
                                         (3, "yesterday"), (3, [1])])
def test_a_malformed_level_is_an_invalid_request(stack, level, stamp):
    session = speaker(new_id("u"), level, new_id("s"), authenticated=False)
    session["session"]["authenticated_at"] = time.time() if stamp is True else stamp
    reply = stack.client.request("memory.list", {}, session, timeout=15)
    assert reply["ok"] is False and reply["error"]["code"] == "invalid_request", reply


# ------------------------------------------------------- levels and builds
def test_each_memory_keeps_the_level_it_was_said_at(stack):
    user, session_id = new_id("lia"), new_id("satellite")
    say(stack, speaker(user, 4, session_id), "My sister is called Joana", "A lovely name")
    fact_id = ask(stack, "memory.remember", {"content": "I am allergic to cats"}, speaker(user, 2, session_id))["id"]
    say(stack, speaker(user, 5, "default"), "I parked on level two", "Good to know")  # capped at 1
    say(stack, speaker(user, 3, session_id, authenticated=False), "I like green tea", "Noted")  # expired: 0
    as_owner = speaker(user, 4, session_id)
    turns = {m["content"]: m["auth_level"] for m in ask(
        stack, "memory.list", {"limit": 50, "scope": "all", "kinds": ["turn"]}, as_owner)["memories"]}
    assert turns == {"My sister is called Joana": 4, "A lovely name": 4, "I parked on level two": 1,
                     "Good to know": 1, "I like green tea": 0, "Noted": 0}
    facts = ask(stack, "memory.list", {"limit": 50, "scope": "all", "kinds": ["fact"]}, as_owner)["memories"]
    assert [m["auth_level"] for m in facts if m["id"] == fact_id] == [2]
    # a fact learnt from a turn keeps the lowest level of the turns it came from
    learnt = eventually(lambda: [m for m in ask(stack, "memory.list", {"limit": 50, "scope": "all", "kinds": [
        "fact"]}, as_owner)["memories"] if "Joana" in m["content"]], what="the fact about Joana")
    assert [m["auth_level"] for m in learnt] == [4]
    exported = ask(stack, "memory.admin.export", {"filter": {"user_id": user}, "limit": 50}, speaker())
    assert {r["content"]: r["auth_level"] for r in exported["records"] if r["kind"] == "turn"} == turns


def build_sees(stack, session, utterance="what is my locker code"):
    built = ask(stack, "memory.context.build", {"utterance": utterance}, session)
    return "Zulu" in json.dumps(built["messages"]), [m["content"] for m in built["memories"]]


# (level, authenticated, session) -> whether the speaker's memories enter the build at the
# default level 3; "default" is capped at 1, and 3 or more without authenticated_at is expired
BOUNDARIES = [(0, True, "satellite", False), (1, True, "satellite", False), (2, True, "satellite", False),
              (3, True, "satellite", True), (4, True, "satellite", True), (5, True, "satellite", True),
              (3, False, "satellite", False), (5, False, "satellite", False),
              (5, True, "default", False), (None, True, "satellite", False)]


@pytest.mark.parametrize("level,authenticated,where,enters", BOUNDARIES)
def test_a_speakers_memories_enter_a_build_from_level_3(stack, level, authenticated, where, enters):
    user = new_id("kim")
    ask(stack, "memory.remember", {"content": LOCKER}, speaker(user, 5, new_id("phone")))
    session_id = new_id("satellite") if where == "satellite" else "default"
    in_messages, memories = build_sees(stack, speaker(user, level, session_id, authenticated))
    assert in_messages is enters and (memories == [LOCKER] if enters else memories == [])


def test_below_the_level_a_build_keeps_the_speakers_own_window_and_nothing_of_others(stack):
    alice, bob = new_id("alice"), new_id("bob")
    ask(stack, "memory.remember", {"content": LOCKER}, speaker(alice, 5, new_id("phone")))
    ask(stack, "memory.remember", {"content": "My locker code is Yankee 9090"}, speaker(bob, 5, new_id("phone")))
    as_bob = speaker(bob, 1)  # on the device's session: level 1
    say(stack, as_bob, "I am at the gym now", "Have a good workout")
    built = ask(stack, "memory.context.build", {"utterance": "what is my locker code"}, as_bob)
    assert [(m["role"], m["content"]) for m in built["messages"] if m["role"] != "system"] == [
        ("user", "I am at the gym now"), ("assistant", "Have a good workout"),
        ("user", "what is my locker code")]
    assert built["memories"] == [] and "Zulu" not in json.dumps(built) and "Yankee" not in json.dumps(built)


def test_the_levels_are_configurable(tmp_path):
    stack = Stack(tmp_path, {"access_levels": {"context": 1}})
    try:
        stack.start_service()
        user = new_id("noa")
        ask(stack, "memory.remember", {"content": LOCKER}, speaker(user, 5, new_id("phone")))
        assert build_sees(stack, speaker(user, 1))[1] == [LOCKER]       # level 1 on "default"
        assert build_sees(stack, speaker(user, 0))[1] == []             # anonymous
        assert build_sees(stack, speaker(user, 4, authenticated=False))[1] == []  # expired
    finally:
        stack.close()


# ------------------------------------------------------------ never stored
def test_per_signal_ids_are_never_stored_and_user_ids_never_logged(tmp_path):
    stack = Stack(tmp_path)
    try:
        stack.start_service()
        user = new_id("sigrid")
        signals = {key: new_id(key) for key in ("speaker_id", "voice_id", "face_id", "name_id", "passphrase_id")}
        session = speaker(user, 4, new_id("satellite"), **signals)
        say(stack, session, "I water the ferns on Sundays", "I will remember")
        ask(stack, "memory.remember", {"content": "My favourite fern is the maidenhair"}, session)
        ask(stack, "memory.context.build", {"utterance": "when do I water the ferns"}, session)
        ask(stack, "memory.pause", {}, session)
        ask(stack, "memory.resume", {}, session)
        ask(stack, "memory.forget", {"query": "favourite fern"}, session)
        exported = json.dumps(ask(stack, "memory.admin.export", {"limit": 500}, speaker()))
        assert user in exported and not any(value in exported for value in signals.values())
        stack.stop_service()
        stack.service = None
        stored = b"".join(p.read_bytes() for p in stack.data_dir.rglob("*") if p.is_file())
        assert not any(value.encode() in stored for value in signals.values())
        log = stack.log.read_text()
        assert user not in log and "ferns" not in log
    finally:
        stack.close()
