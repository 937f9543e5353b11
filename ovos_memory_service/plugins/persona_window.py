"""What the persona plugin keeps for when the daemon is away: a window of
recent turns per persona, session and speaker, and what it knows of the
daemon's pauses, so that nothing said while a speaker's memory is paused
reaches the chat engine from here (issue 37).

While the speaker is known to be paused nothing enters the window; a turn
that entered it and that the daemon then did not store (paused) leaves it.
The pauses the plugin learns (the daemon's ``memory.paused`` announcements and
its replies) are kept in a small file, so a persona restarted while the daemon
is away still knows them. A pause made while this process was not running
and the daemon has been away ever since is learnt from the daemon's first reply.
"""
import json
import os
import threading
from collections import deque
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from ovos_utils.log import LOG

WindowKey = Tuple[str, str, str]  # (persona_id, session_id, user_id)


def pauses_file() -> Path:
    """Where the plugin keeps the pauses it learnt (read at call time: tests move XDG_STATE_HOME)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "ovos-memory-service" / "persona-plugin-pauses.json"


class PauseState:
    """user_id -> paused session ids ("" for every session of the user), as the store keeps pauses."""

    def __init__(self, path: Optional[Path] = None):
        self.path = path or pauses_file()
        self._lock = threading.Lock()
        self._paused: Dict[str, Set[str]] = self._load()

    def paused(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            sessions = self._paused.get(user_id, ())
            return "" in sessions or session_id in sessions

    def announced(self, user_id: str, session_id: Optional[str], paused: bool):
        """``memory.paused``: ``session_id`` None is every session of the user."""
        with self._lock:
            sessions = self._paused.setdefault(user_id, set())
            if paused:
                sessions.add(session_id or "")
            elif session_id is None:  # resuming the user resumes each session too
                sessions.clear()
            else:
                sessions.discard(session_id)
            self._save()

    def replied(self, user_id: str, session_id: str, paused: bool):
        """The daemon's reply to an update of that speaker and session."""
        with self._lock:
            sessions = self._paused.setdefault(user_id, set())
            before = set(sessions)
            if paused:
                sessions.add(session_id)
            else:
                sessions -= {session_id, ""}
            if sessions != before:
                self._save()

    def _load(self) -> Dict[str, Set[str]]:
        try:
            saved = json.loads(self.path.read_text())
            return {user: set(sessions) for user, sessions in saved.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, AttributeError, TypeError):
            LOG.warning(f"could not read {self.path}; the pauses are learnt from the daemon again")
            return {}

    def _save(self):
        """Only users with a pause are written (their ids, nothing they said)."""
        saved = {user: sorted(sessions) for user, sessions in self._paused.items() if sessions}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(saved))
            os.replace(temporary, self.path)
        except OSError:
            LOG.exception(f"could not keep the pauses in {self.path}")


_shared: Optional[PauseState] = None
_shared_lock = threading.Lock()


def shared_pauses() -> PauseState:
    """The process's one PauseState (every persona's plugin hears the same daemon)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = PauseState()
        return _shared


class LocalWindows:
    """Wire messages per WindowKey; each entry also holds the ``ids`` the
    daemon stored it under."""

    def __init__(self, size: int):
        self.size = size
        self._lock = threading.Lock()
        self._windows: Dict[WindowKey, deque] = {}

    def add(self, key: WindowKey, wire: List[dict]) -> List[dict]:
        """Add to the window; returns the entry each message went into (in order)."""
        entries = []
        with self._lock:
            window = self._windows.setdefault(key, deque(maxlen=self.size))
            for msg in wire:
                last = window[-1] if window else None
                if last and msg["role"] == "assistant" and last["role"] == "assistant":
                    last["content"] += "\n" + msg["content"]
                else:
                    if last and msg["role"] == "user" and last["role"] == "user":
                        window.pop()
                    window.append({**msg, "ids": set()})
                entries.append(window[-1])
        return entries

    def drop(self, entries: List[dict]):
        """The daemon did not store the update these entries came from (paused)."""
        with self._lock:
            gone = {id(entry) for entry in entries}
            for window in self._windows.values():
                kept_entries = [entry for entry in window if id(entry) not in gone]
                if len(kept_entries) != len(window):
                    window.clear()
                    window.extend(kept_entries)

    def note_ids(self, entries: List[dict], ids: List[str]):
        """The daemon's ids for a delivered update: one per message when it kept
        each, else all of them for every entry (a forget of any then drops them all)."""
        with self._lock:
            if len(ids) == len(entries):
                for entry, memory_id in zip(entries, ids):
                    entry["ids"].add(memory_id)
            else:
                for entry in entries:
                    entry["ids"].update(ids)

    def forget(self, ids: Set[str]):
        """``memory.forgotten``: forgotten is forgotten here too."""
        with self._lock:
            for window in self._windows.values():
                kept = [entry for entry in window if not entry["ids"] & ids]
                if len(kept) != len(window):
                    window.clear()
                    window.extend(kept)

    def drop_last_user_turn(self, key: WindowKey):
        """The voice skill speaks: the user turn just recorded is its command."""
        with self._lock:
            window = self._windows.get(key)
            if window and window[-1]["role"] == "user":
                window.pop()

    def messages(self, key: WindowKey) -> List[dict]:
        """The window's messages, as wire dicts."""
        with self._lock:
            return [{k: v for k, v in m.items() if k != "ids"} for m in self._windows.get(key, [])]

    def last_contents(self, session_id: str) -> List[str]:
        """The newest entry's text of every window of the session (tests wait on it)."""
        with self._lock:
            return [window[-1]["content"] for key, window in self._windows.items()
                    if key[1] == session_id and window]
