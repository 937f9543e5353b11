"""The order in which ovos-persona's updates leave for the daemon.

ovos-persona 0.9.0a25 records every ``recognizer_loop:utterance`` and every
``speak`` from its bus handlers, and ovos-bus-client runs each handler in a
thread of a pool (pyee's ExecutorEventEmitter): three spoken lines emitted in
order reach ``update_history`` in whatever order those threads get there
(2, 3, 1 was seen on a device). The bus itself has one order, which every
client hears alike, so the plugin's own connection numbers those messages as
they arrive, on its one receiving thread; ``update_history`` looks up the
number of the message it is handling, and the updates are sent by number. An
update waits for an earlier message of its session that the persona has not
recorded yet (or whose update is not queued yet), at most ``wait_s`` after
that message arrived (a line the persona never records, such as another
persona's, holds nothing longer).
"""
import threading
import time
from typing import List, Optional, Tuple

# what ovos-persona 0.9.0a25 records, one turn each
RECORDED = ("recognizer_loop:utterance", "speak")
FORGET_AFTER_S = 60  # an arrival nobody recorded is dropped after this long

Fingerprint = Tuple[str, str, str]  # (type, session_id, text)


def fingerprint(msg_type: str, data, context) -> Optional[Fingerprint]:
    """What identifies a recorded message across two bus connections."""
    if msg_type not in RECORDED or not isinstance(data, dict) or not isinstance(context, dict):
        return None
    if msg_type == "speak":
        text = data.get("utterance")
    else:
        utterances = data.get("utterances")
        text = utterances[0] if isinstance(utterances, list) and utterances else None
    session = context.get("session")
    session_id = session.get("session_id") if isinstance(session, dict) else None
    if not isinstance(text, str):
        return None
    return msg_type, session_id if isinstance(session_id, str) else "default", text


class ArrivalOrder:
    def __init__(self, wait_s: float = 1.0):
        self.wait_s = wait_s
        self._changed = threading.Condition()
        self._count = 0
        self._arrived: List[list] = []  # [number, fingerprint, monotonic time], not recorded yet
        self._placed = {}  # number -> [number, fingerprint, time placed]: its update is not queued yet
        # the persona records single turns as they are heard (0.9.0a25); until one
        # is seen, nothing waits (0.9.0a35 records whole exchanges, from other messages)
        self.single_turns = False

    def heard(self, raw: dict):
        """On the receiving thread, for every message, in bus order."""
        found = fingerprint(raw.get("type"), raw.get("data"), raw.get("context"))
        if found is None:
            return
        now = time.monotonic()
        with self._changed:
            self._arrived = [a for a in self._arrived if now - a[2] < FORGET_AFTER_S]
            self._arrived.append([self._count, found, now])
            self._count += 1
            self._changed.notify_all()

    def place(self, message, timeout: float) -> float:
        """The number of the bus message being handled (waiting up to
        ``timeout`` for this connection to hear it); an update made outside a
        recorded message, or one never heard, goes after everything heard so far."""
        found = fingerprint(message.msg_type, message.data, message.context) if message is not None else None
        with self._changed:
            if found is not None:
                taken = []
                self._changed.wait_for(lambda: self._take(found, taken), timeout)
                if taken:
                    self.single_turns = True
                    return taken[0]
            return self._count - 0.5

    def _take(self, found: Fingerprint, taken: list) -> bool:
        for arrival in self._arrived:
            if arrival[1] == found:
                self._arrived.remove(arrival)
                self._placed[arrival[0]] = [arrival[0], found, time.monotonic()]
                taken.append(arrival[0])
                return True
        return False

    def release(self, number: float):
        """The update placed at ``number`` is queued (or was not made)."""
        with self._changed:
            self._placed.pop(number, None)

    def hold_until(self, number: float, session_id: str) -> Optional[float]:
        """Until when (monotonic) an update placed at ``number`` waits for
        earlier messages of its session not recorded yet; None: it may go."""
        if not self.single_turns:
            return None
        now = time.monotonic()
        with self._changed:
            earlier = [*self._arrived, *self._placed.values()]
            waits = [a[2] + self.wait_s for a in earlier
                     if a[0] < number and a[1][1] == session_id and a[2] + self.wait_s > now]
        return max(waits) if waits else None
