"""The persona plugin's own bookkeeping (issue 37), without a bus: the order
updates leave in, and the pauses it knows of (kept across a restart)."""
import time

from ovos_bus_client import Message

from ovos_memory_service.plugins.persona_order import ArrivalOrder
from ovos_memory_service.plugins.persona_window import LocalWindows, PauseState


def speak(text, session_id="s1"):
    return Message("speak", {"utterance": text}, {"session": {"session_id": session_id}})


def heard(order, *messages):
    for message in messages:
        order.heard({"type": message.msg_type, "data": message.data, "context": message.context})


def test_an_update_waits_for_the_earlier_lines_of_its_session():
    order = ArrivalOrder(wait_s=30)
    lines = [speak("one"), speak("two"), speak("three"), speak("elsewhere", "s2")]
    heard(order, *lines)
    third = order.place(lines[2], timeout=1)   # its handler thread got there first
    order.release(third)
    assert third == 2 and order.hold_until(third, "s1") is not None
    first = order.place(lines[0], timeout=1)
    assert order.hold_until(first, "s1") is None  # nothing before it
    order.release(first)
    assert order.hold_until(third, "s1") is not None  # "two" is still on its way
    second = order.place(lines[1], timeout=1)
    assert order.hold_until(third, "s1") is not None  # placed, its update not queued yet
    order.release(second)
    assert order.hold_until(third, "s1") is None
    assert order.place(lines[3], timeout=1) == 3 and order.hold_until(3, "s2") is None  # another session


def test_a_line_never_recorded_holds_the_next_for_wait_s_only():
    order = ArrivalOrder(wait_s=0.2)
    lines = [speak("said by another persona"), speak("ours")]
    heard(order, *lines)
    ours = order.place(lines[1], timeout=1)
    order.release(ours)
    until = order.hold_until(ours, "s1")
    assert until is not None and until - time.monotonic() <= 0.2


def test_exchanges_recorded_from_other_messages_never_wait():
    """ovos-persona 0.9.0a35 records [user, assistant] from its own handler."""
    order = ArrivalOrder(wait_s=30)
    heard(order, speak("a line nobody records"))
    number = order.place(Message("persona:query", {"utterance": "hi"}, {}), timeout=1)
    assert order.hold_until(number, "s1") is None


def test_pauses_are_known_per_speaker_and_kept_across_a_restart(tmp_path):
    path = tmp_path / "pauses.json"
    pauses = PauseState(path)
    pauses.announced("ana", None, True)            # every session of Ana
    pauses.replied("rui", "kitchen", True)         # the daemon did not store Rui's update
    assert pauses.paused("ana", "kitchen") and pauses.paused("ana", "car")
    assert pauses.paused("rui", "kitchen") and not pauses.paused("rui", "car")
    assert not pauses.paused("eva", "kitchen")
    again = PauseState(path)                       # the persona restarted, the daemon away
    assert again.paused("ana", "car") and again.paused("rui", "kitchen")
    again.announced("ana", None, False)
    again.replied("rui", "kitchen", False)
    assert not again.paused("ana", "car") and not again.paused("rui", "kitchen")
    assert "eva" not in path.read_text() and "ana" not in path.read_text()


def test_windows_are_per_speaker_and_drop_what_the_daemon_did_not_keep():
    windows = LocalWindows(10)
    ana, rui = ("butler", "default", "ana"), ("butler", "default", "rui")
    windows.add(ana, [{"role": "user", "content": "I am Ana"}])
    kept = windows.add(rui, [{"role": "user", "content": "I am Rui"}])
    secret = windows.add(rui, [{"role": "assistant", "content": "Hello Rui"}])
    windows.drop(secret)
    assert windows.messages(ana) == [{"role": "user", "content": "I am Ana"}]
    assert windows.messages(rui) == [{"role": "user", "content": "I am Rui"}] and kept
