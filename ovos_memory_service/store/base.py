"""What every store offers: the one owner of the memories, their keyword and
vector indexes, the job queues and the service's own tables.

Callers never see a connection, a lock or SQL. Each method is atomic on its
own; ``transaction()`` groups several into one (the turns of an update with
their jobs, a fact with the history row it supersedes), and everything a
transaction does is visible to others only once it ends. Rows are plain dicts
with the columns of a memory record (store/records.py FIELDS, plus ``seq``).

Anything that leaves the store leaves through ``delete()``: the row, its
keyword entry, its vector and its queued jobs together.
"""
import abc
import json
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from ovos_memory_service.common.items import KINDS, USER_FACT_KINDS
from ovos_memory_service.common.scope import Scope

# the background queues; a job's subject is a memory id, or a conversation id for summaries
# ("reembed": the next model's vectors, Store.begin_reembedding)
QUEUES = ("embed", "reembed", "facts", "llm_facts", "llm_summary")


@dataclass(frozen=True)
class Visible:
    """Which memories a scope may see (docs/protocol.md, "Scope: whose memory").

    Everything belongs to the user. Turns and summaries are per persona unless
    ``share_turns``; facts about the user are shared unless not ``share_facts``;
    attributes are always per persona. ``where`` "session" keeps one session,
    "all" is everything of the user in every persona (the voice commands).
    Superseded and retracted facts are history, seen only with ``history``.
    Tool results and tool-call stubs are never memories of the user.
    ``persona`` (a persona's key, "" for the default namespace), ``session``,
    ``since`` and ``until`` (epoch seconds, ``until`` excluded) narrow it
    further: what a person browsing their memories picks."""
    scope: Scope
    kinds: Tuple[str, ...] = KINDS
    where: str = "user"
    share_turns: bool = False
    share_facts: bool = True
    history: bool = False
    persona: Optional[str] = None
    session: Optional[str] = None
    since: Optional[float] = None
    until: Optional[float] = None

    def per_persona(self, kind: str) -> bool:
        """Whether memories of ``kind`` are seen only by the scope's own persona."""
        return self.where != "all" and (kind == "attribute"
                                        or (kind in ("turn", "summary") and not self.share_turns)
                                        or (kind in USER_FACT_KINDS and not self.share_facts))


@dataclass
class Job:
    id: int            # never reused: finishing job 7 can never finish another job
    queue: str
    subject: str
    persona_id: str
    lang: str
    attempts: int


@dataclass
class Exclude:
    """What a build leaves out of its candidates: the items already in the
    window (ids) and the stored copy of the utterance being answered."""
    ids: Sequence[str] = ()
    utterance: str = ""


def vectors_of_another_model(stored_dim: Optional[int], dim: int, recorded: Optional[str],
                             model: Optional[str]) -> bool:
    """Do stored vectors (``stored_dim`` dimensions, None: none, made by
    ``recorded``) need embedding again for ``model``? Vectors of no recorded
    model count as its own when their dimension fits (Store.open_vectors)."""
    return stored_dim is not None and (stored_dim != dim or (recorded or model) != model)


class ModelChanged(RuntimeError):
    """The stored vectors became ``model``'s while a query was made with
    another model's (a re-embedding just ended): compare with that model."""

    def __init__(self, model: Optional[str]):
        super().__init__(f"the vectors are {model}'s now")
        self.model = model


class Store(abc.ABC):
    def source_level(self, sources: Optional[str]) -> Optional[int]:
        """The authentication level of a memory learnt from ``sources`` (JSON
        ids): the lowest of theirs; None when one is not known, or none."""
        ids = json.loads(sources) if sources else []
        levels = [row.get("auth_level") for row in self.get_memories(ids)] if ids else []
        return None if not levels or None in levels else min(levels)

    def with_source_level(self, row: dict) -> dict:
        """``row`` with the level of its sources, if it has sources and no level."""
        if row.get("auth_level") is None and row.get("sources"):
            row = {**row, "auth_level": self.source_level(row["sources"])}
        return row

    # -------------------------------------------------------------- life
    @abc.abstractmethod
    def close(self):
        """Flush and close; the store cannot be used afterwards."""

    def listen(self, callback):
        """Call ``callback(event, data)`` for what other processes sharing this
        store commit: "forgotten" ``{"user_id", "ids"}``, "personas"
        ``{"persona_id"}``, "vectors" ``{"model"}`` (re-embedded by another
        model), "resync" ``{}`` (drop what is cached). A store only
        one process opens (SQLite) has nothing to tell."""

    @abc.abstractmethod
    @contextmanager
    def transaction(self, user_id: Optional[str] = None, durable: bool = True) -> Iterator["Store"]:
        """Group the calls made inside into one atomic write (re-entrant).
        ``user_id``: a write about that user; where several processes share the
        store, it waits for that user's other writers from the start, so work
        that touches a job before the user's memories (the fact worker) takes
        its locks in the order a forget does. ``durable=False``: background
        work its queue redoes if lost (a job's results and its end, claims);
        the commit does not wait for the disk, so a power cut may undo it,
        but never a durable commit made after it. Nested: the outer one's."""

    # ----------------------------------------------------- memory rows
    @abc.abstractmethod
    def insert_memory(self, row: dict) -> str:
        """Add a memory (every column optional but id, kind, user_id,
        session_id, content, created_at); queues its embedding. Returns its id."""

    @abc.abstractmethod
    def update_memory(self, memory_id: str, **columns):
        """Change columns of a memory; new text (or a fact made current again)
        is embedded again."""

    @abc.abstractmethod
    def get_memories(self, ids: Sequence[str]) -> List[dict]:
        """The rows of those ``ids`` that exist, in storage order."""

    @abc.abstractmethod
    def existing(self, ids: Sequence[str]) -> Set[str]:
        """Which of ``ids`` are still stored."""

    @abc.abstractmethod
    def delete(self, ids: Sequence[str]) -> int:
        """The one way out of the store: rows, keyword entries, vectors and
        queued jobs, for real (nothing recoverable from the files)."""

    # -------------------------------------------------- visible memories
    @abc.abstractmethod
    def count_visible(self, visible: Visible) -> int:
        ...

    @abc.abstractmethod
    def list_visible(self, visible: Visible, limit: int, offset: int = 0,
                     order: str = "created") -> List[dict]:
        """Newest first, by ``created_at`` ("created") or ``updated_at`` ("updated")."""

    @abc.abstractmethod
    def select_visible(self, visible: Visible, ids: Sequence[str]) -> List[dict]:
        """Those of ``ids`` that ``visible`` allows, newest first."""

    @abc.abstractmethod
    def in_slot(self, visible: Visible, slot: str) -> List[dict]:
        """The visible facts of a slot, most recently updated first."""

    @abc.abstractmethod
    def derived(self, user_id: str) -> List[dict]:
        """Every memory of the user learnt from turns (extracted facts and
        summaries): rows with id, kind, extractor and sources."""

    @abc.abstractmethod
    def count_by_kind(self, user_id: str) -> Dict[str, int]:
        ...

    # ------------------------------------------------------------ turns
    @abc.abstractmethod
    def latest_conversation(self, scope: Scope) -> Optional[dict]:
        ...

    @abc.abstractmethod
    def get_conversation(self, conversation_id: str) -> Optional[dict]:
        ...

    @abc.abstractmethod
    def start_conversation(self, scope: Scope, now: float) -> str:
        ...

    @abc.abstractmethod
    def touch_conversation(self, conversation_id: str, updated_at: float):
        ...

    @abc.abstractmethod
    def conversation_turns(self, conversation_id: str, limit: int = 0, after_seq: int = 0) -> List[dict]:
        """Turns oldest first: the newest ``limit`` (0: all) after ``after_seq``."""

    @abc.abstractmethod
    def exchange(self, user_turn_id: str) -> List[dict]:
        """A user turn and every turn after it in its conversation, in order."""

    @abc.abstractmethod
    def last_exchange(self, scope: Scope) -> List[dict]:
        """The turns of the conversation holding the session's newest user
        turn, whichever persona stored them."""

    @abc.abstractmethod
    def recent_turns(self, scope: Scope, role: str, since: float) -> List[dict]:
        """The session's turns of ``role`` created after ``since``."""

    # -------------------------------------------------------- summaries
    @abc.abstractmethod
    def summary_state(self, conversation_id: str) -> Optional[Tuple[str, str, int]]:
        """(memory_id, text, covered_seq) of the conversation's summary."""

    @abc.abstractmethod
    def latest_summary(self, scope: Scope) -> Optional[Tuple[str, str, int]]:
        """The newest summary of the scope's session, as ``summary_state``."""

    @abc.abstractmethod
    def set_summary_state(self, conversation_id: str, memory_id: str, covered_seq: int):
        ...

    # ------------------------------------------------------------ recall
    @abc.abstractmethod
    def keyword_search(self, visible: Visible, words: Sequence[str], limit: int,
                       exclude: Exclude = Exclude()) -> List[dict]:
        """Rows matching any of ``words``, best first, each with ``rank`` (a
        keyword rank, higher is better)."""

    @abc.abstractmethod
    def coverage(self, words: Sequence[str], seqs: Sequence[int], related: Dict[str, Sequence[str]]):
        """Two maps seq -> idf-weighted share (0..1) of ``words``: those the
        memory's own text contains, and those it talks about only through the
        words of their topic (``related``: keyword -> topic words)."""

    @abc.abstractmethod
    def adjacent_turns(self, visible: Visible, ids: Sequence[str], exclude: Exclude = Exclude(),
                       columns: Sequence[str] = ()) -> Dict[str, List[dict]]:
        """For each turn id, the visible turns just before and after it, as
        rows of ``columns`` alone (of FIELDS and seq; empty: whole rows)."""

    @abc.abstractmethod
    def nearest(self, visible: Visible, vector, limit: int, newest: int,
                exclude: Exclude = Exclude(), model: Optional[str] = None) -> List[dict]:
        """The visible rows nearest to ``vector`` among the ``newest`` visible
        memories, best first, each with ``similarity`` (cosine, within 0.005).
        ``model``: the one that made ``vector``; raises ModelChanged if the
        vectors searched are another's."""

    @abc.abstractmethod
    def similarities(self, user_id: str, vector, ids: Sequence[str],
                     model: Optional[str] = None) -> Dict[str, float]:
        """id -> cosine similarity, for those of ``ids`` that have a vector
        (``model`` as in nearest)."""

    @abc.abstractmethod
    def similarity_spread(self, user_id: str, vector, newest: int,
                          model: Optional[str] = None) -> Optional[Tuple[float, float, int]]:
        """The mean and standard deviation of the cosine similarities of
        ``vector`` to the user's ``newest`` newest vectors, and how many there
        were (None: none); ``model`` as in nearest."""

    # -------------------------------------------------------------- jobs
    @abc.abstractmethod
    def enqueue(self, queue: str, subjects: Iterable[str], persona_id: str = "", lang: str = "",
                due: float = 0.0, again: bool = False):
        """Queue work on ``subjects``; a subject already queued keeps its job,
        unless ``again`` (its text changed): then it gets a new job."""

    @abc.abstractmethod
    def claim(self, queues: Sequence[str], limit: int, now: float, newest_first: bool = False,
              lease_s: float = 300) -> List[Job]:
        """Due jobs of ``queues``, oldest due first (or newest queued first), each held for ``lease_s`` (a claim a crash left behind
        lapses then); they stay queued until finished."""

    @abc.abstractmethod
    def finish(self, job_ids: Sequence[int]) -> Set[int]:
        """Remove finished jobs; returns which were still queued (a job whose
        subject was forgotten or rewritten meanwhile is gone)."""

    @abc.abstractmethod
    def postpone(self, job_id: int, delay_s: float, error: str):
        """A failed job: one more attempt counted, tried again after ``delay_s``."""

    @abc.abstractmethod
    def requeue(self, job_id: int):
        """Due again at once, as if new (a job with more to do)."""

    @abc.abstractmethod
    def release_claims(self):
        """Claims this process made before it stopped lapse now."""

    @abc.abstractmethod
    def due_again(self, queue: str, now: float, conversation_id: Optional[str] = None,
                  failed_only: bool = False):
        """Make waiting jobs due now: the untried exchanges of a conversation
        (new turns complete them), or every failed job of the queue."""

    @abc.abstractmethod
    def pending(self, queues: Sequence[str]) -> int:
        """Jobs queued in ``queues``, due or not."""

    # ----------------------------------------------------------- vectors
    @abc.abstractmethod
    def open_vectors(self, model: Optional[str], dim: int) -> int:
        """Start keeping the vectors ``model`` makes (``dim`` dimensions). If
        the stored ones were made by another model, they are dropped and every
        memory is queued to be embedded again; returns how many were queued
        (0: the vectors are this model's). Vectors from before the model was
        recorded count as this model's if their dimension is its; ``model`` None:
        not known (vectors moved from a store that never recorded it)."""

    @abc.abstractmethod
    def vector_model(self) -> Optional[str]:
        """The model that made the stored vectors (None: not recorded yet)."""

    @abc.abstractmethod
    def save_vectors(self, jobs: Dict[int, Tuple[dict, object]], model: Optional[str] = None) -> int:
        """Store the vectors of embedding jobs ({job id: (row, vector)}) whose
        jobs are still queued, and finish them; returns how many were stored.
        ``model`` (None: the searched vectors' model) made them: they join the
        vectors searched, or the next model's (begin_reembedding); another
        model's raise ModelChanged and their jobs stay queued."""

    # Changing the model: the vectors searched stay the old model's, kept up
    # to date by it, while the new model embeds every memory into a second set
    # (queue "reembed", which every memory written meanwhile joins too); once
    # that queue is empty the second set replaces the first in one commit.

    @abc.abstractmethod
    def begin_reembedding(self, model: str, dim: int) -> int:
        """Start (or, for the same model, go on) filling the second set with
        the vectors of ``model`` (``dim`` dimensions); returns how many
        memories it still lacks."""

    @abc.abstractmethod
    def reembedding(self) -> Optional[str]:
        """The model filling the second set (None: none)."""

    @abc.abstractmethod
    def end_reembedding(self, model: str) -> bool:
        """If the second set, ``model``'s, is complete, make it the vectors
        searched and its model the recorded one. True once the recorded model
        is ``model`` (also when another daemon sharing the store made it so)."""

    @abc.abstractmethod
    def cancel_reembedding(self):
        """Drop the second set and its jobs (the model went back, or cannot be kept)."""

    @abc.abstractmethod
    def rebuild_vectors(self) -> int:
        """Drop every vector and queue every memory again; returns the queue length."""

    @abc.abstractmethod
    def maintain_vectors(self, force: bool = False):
        """Merge vector files when due (or now); never blocks searches."""

    def warm_vectors(self):
        """Read ahead what searches of the users heard from last will need (a
        store whose server searches needs nothing)."""

    @abc.abstractmethod
    def vector_count(self) -> int:
        ...

    # ------------------------------------------------- the service's own
    @abc.abstractmethod
    def is_paused(self, scope: Scope, at: Optional[float] = None) -> bool:
        """Whether remembering is paused for the scope (by a pause set by ``at``,
        a time.time(); None: now). A second pause keeps the first one's time."""

    @abc.abstractmethod
    def set_paused(self, scope: Scope, where: str, paused: bool):
        ...

    @abc.abstractmethod
    def pauses(self, user_id: Optional[str] = None) -> List[dict]:
        """Every pause (of ``user_id``): {"user_id", "session_id"}, session_id None
        for every session of the user; by user, then session."""

    @abc.abstractmethod
    def find_request(self, scope: Scope, request_id: str) -> Optional[List[str]]:
        """The ids stored by an acknowledged update with this request id."""

    @abc.abstractmethod
    def save_request(self, scope: Scope, request_id: str, ids: List[str], now: float):
        ...

    @abc.abstractmethod
    def purge_requests(self, before: float):
        ...

    @abc.abstractmethod
    def persona(self, persona_id: str) -> Optional[Tuple[str, dict]]:
        """(memory_module, its config) registered for a persona."""

    @abc.abstractmethod
    def save_persona(self, persona_id: str, module: str, config: dict, now: float):
        ...

    # ------------------------------------------------------------ upkeep
    @abc.abstractmethod
    def count(self, **scope) -> int:
        """Memories, optionally of one user_id, persona_id or session_id."""

    @abc.abstractmethod
    def export(self, offset: int, limit: int, **scope) -> List[dict]:
        """A page of rows in storage order."""

    @abc.abstractmethod
    def import_rows(self, rows: List[dict]) -> List[dict]:
        """Add checked records (records.check_record) not stored yet, creating
        their conversations; returns the rows added."""

    @abc.abstractmethod
    def users_overview(self, user_id: Optional[str] = None) -> List[Tuple[str, str, int, float]]:
        """(user_id, kind, count, newest created_at) rows."""

    @abc.abstractmethod
    def user_facets(self, user_id: str) -> Dict[str, Dict[str, int]]:
        """The user's current memories counted by ``persona_id`` ("" for the
        default namespace) and by ``session_id``: {"personas": {...}, "sessions": {...}}."""

    @abc.abstractmethod
    def disk_used(self) -> int:
        """Bytes the store takes on its disk (files, or the server's tables)."""

    @abc.abstractmethod
    def rebuild_keywords(self):
        ...

    @abc.abstractmethod
    def refresh_statistics(self):
        """Bring the query planner's statistics up to date after many rows
        arrived at once (a migration, a large import)."""

    @abc.abstractmethod
    def compact(self):
        """Shrink the files and drop what deleted rows left in them."""
