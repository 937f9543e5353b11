"""Hostile frames: does any local bus client's frame make the daemon deaf?

Starts a real ``python -m ovos_messagebus`` and the real service in a temporary
sandbox (``tests.sandbox.Stack``). While one raw websocket client sends
``--requests`` ``memory.stats`` requests (one every 0.25 s), another sends a
hostile frame every ``--every`` seconds: a binary frame of invalid UTF-8, a
9.5 MB text frame, a context nested 600 deep, a lone surrogate in an id, in
turn. Prints how many requests went unanswered (within 10 s) and the slowest
reply.

    python benchmarks/hostile_frames.py                 # 80 requests, a frame every 4 s
"""
import os
import sys
import tempfile

# Sandbox before any OVOS import: ovos_config fixes its paths when imported.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.isolation import isolate  # noqa: E402

isolate(tempfile.mkdtemp(prefix="ovos-memory-frames-"))

import argparse  # noqa: E402
import json  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import websocket  # noqa: E402

from tests.sandbox import Stack  # noqa: E402
from tests.edge.test_validation import RawBus  # noqa: E402


def nested(depth: int):
    value = "bottom"
    for _ in range(depth):
        value = {"n": value}
    return value


HOSTILE = {
    "binary frame, invalid UTF-8": (b"\xff\xfe\x80garbage", websocket.ABNF.OPCODE_BINARY),
    "9.5 MB text frame": (json.dumps({"type": "memory.recall", "data": {"query": "x" * 9_500_000}}),
                          websocket.ABNF.OPCODE_TEXT),
    "context nested 600 deep": (json.dumps({"type": "memory.list", "data": {}, "context": nested(600)}),
                                websocket.ABNF.OPCODE_TEXT),
    "lone surrogate in user_id": (json.dumps({"type": "memory.forget", "data": {"all": True, "user_id": "\ud800"}}),
                                  websocket.ABNF.OPCODE_TEXT),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=80)
    parser.add_argument("--every", type=float, default=4.0)
    args = parser.parse_args()
    stack = Stack(Path(tempfile.mkdtemp(prefix="frames-stack-")))
    try:
        stack.start_service()
        attacker, victim = RawBus(stack.port), RawBus(stack.port)
        stop, sent = threading.Event(), Counter()

        def attack():
            kinds = list(HOSTILE)
            while not stop.wait(args.every):
                kind = kinds[sum(sent.values()) % len(kinds)]
                attacker.send_frame(*HOSTILE[kind])
                sent[kind] += 1
        threading.Thread(target=attack, daemon=True).start()
        waits, unanswered = [], 0
        for _ in range(args.requests):
            started = time.monotonic()
            request_id = victim.send("memory.stats", {}, {"session": {"session_id": "frames"}})
            try:
                victim.wait_reply("memory.stats", request_id, timeout=10)
                waits.append(time.monotonic() - started)
            except TimeoutError:
                unanswered += 1
            time.sleep(0.25)
        stop.set()
        alive = stack.service.poll() is None
        print(f"{args.requests} requests while hostile frames arrived every {args.every} s: "
              f"{unanswered} unanswered; slowest reply {max(waits, default=0) * 1000:.0f} ms; "
              f"daemon {'still running' if alive else 'DIED'}")
        print("hostile frames sent: " + ", ".join(f"{kind} x{n}" for kind, n in sent.items()))
    finally:
        stack.close()


if __name__ == "__main__":
    main()
