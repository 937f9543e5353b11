"""What backends may read from the store: the live window, keyword recall,
semantic recall and the evidence of relevance, as MemoryItems. The store
locks its own reads, so composite members run side by side."""
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from ovos_utils.log import LOG

from ovos_memory_service.learning import summaries
from ovos_memory_service.learning.facts.extract import is_question
from ovos_memory_service.learning.facts.asked import (AGE, COMPANY, KIN, SELF, about_another, answers, asked_slots,
                                                      asks_ages, asks_amount, asks_medicine, asks_unheld,
                                                      names_a_person, names_of, names_someone, of_another, owner,
                                                      says_attribute, says_me, says_number, says_slot,
                                                      tells_medicine, tells_of)
from ovos_memory_service.common.errors import Unavailable
from ovos_memory_service.backends.window import live_conversation, live_window
from ovos_memory_service.common.items import KINDS, USER_FACT_KINDS, MemoryItem, normalized
from ovos_memory_service.backends.relevance import Evidence, scores, standout
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Exclude, ModelChanged, Store, Visible
from ovos_memory_service.common.wire import ChatMessage, iso_time
from ovos_memory_service.common.words import (another_form, any_languages_stop_words, keywords, says_nothing,
                                              topic_words)


# threads that composite members run on, side by side (nested composites' members too)
MEMBER_THREADS = 8
# enough of a turn to rank it beside a recalled one (composite.py); the
# few that make the cut are read whole
BRIEF = ("id", "seq", "kind", "role", "name", "created_at", "session_id", "persona_id")
# how many of a user's newest facts are looked through for the slots a question asks for
ASKED_FACTS = 500
# cosine similarity that unrelated sentences reach with all-MiniLM-L6-v2 (about 0.1-0.2)
UNRELATED_SIMILARITY = 0.2


def cosine_relevance(similarity: float) -> float:
    """Cosine similarity on a 0..1 scale, 0 for unrelated and 1 for the same: the
    semantic member's own evidence (fusion, its ``min_score``), not ``score``."""
    return min(1.0, max(0.0, (similarity - UNRELATED_SIMILARITY) / (1 - UNRELATED_SIMILARITY)))


class MemberMisses:
    """Composite members skipped for passing their deadline or failing: counted
    per member for memory.stats, and logged at most once a minute each, so a
    recall is never silently missing a member."""
    LOG_EVERY_S = 60

    def __init__(self):
        self._lock = threading.Lock()
        self._counts = {}   # member -> {"missed", "last_at", "last"}
        self._logged = {}   # member -> when it was last logged

    def record(self, member: str, what: str, why: str):
        now = time.time()
        with self._lock:
            entry = self._counts.setdefault(member, {"missed": 0, "last_at": None, "last": None})
            entry.update(missed=entry["missed"] + 1, last_at=now, last=f"{what} {why}")
            log = now - self._logged.get(member, 0.0) >= self.LOG_EVERY_S
            if log:
                self._logged[member] = now
        if log:
            LOG.warning(f"composite: {member} {what} {why}; skipped ({entry['missed']} times so far)")

    def snapshot(self) -> dict:
        with self._lock:
            return {member: {**entry, "last_at": iso_time(entry["last_at"])}
                    for member, entry in self._counts.items()}


def _says_more(turn: str, facts: Sequence[MemoryItem], lang: str, asked: Sequence[str] = ()) -> bool:
    """``turn`` has a word that none of the facts learnt from it has (nor a form of it),
    nor says their slot ("vive" where the fact writes "mora"), nor the question
    (``asked``, its keywords) has: a word shared with the question is why the turn
    was compared ("wo bin ich zur schule gegangen": "ich spiele seit der schule
    querflöte"), not something its facts leave out."""
    known = {w for fact in facts for w in keywords(fact.content, lang)} | set(asked)
    return any(not any(another_form(w, k) or another_form(k, w) for k in known)
               and not any(says_slot(w, fact.slot, lang) for fact in facts) for w in keywords(turn, lang))


def _names(query_words: Sequence[str], items: Sequence[MemoryItem], lang: str):
    """The names the user gave people and animals, in ``items``' facts and in their own
    turns; only those that say a word of the query (its keywords) are read (a name asked
    must be in both)."""
    words = [owner(w) for w in query_words]

    def says(text: str) -> bool:
        low = text.lower()
        return any(w in low for w in words)
    return names_of([(i.slot, i.value) for i in items if i.slot and says(f"{i.slot} {i.value or ''}")], lang,
                    [i.content for i in items if i.kind == "turn" and i.role == "user" and says(i.content)])


def _unnamed(related: Dict[str, Tuple[str, ...]], items: Sequence[MemoryItem], lang: str):
    """A topic's words (``topic_words``) without the names the user gave in
    ``items``' facts: a cat called Fado is no music, a dog called Pepper no food."""
    names = {w for w, _ in names_of([(i.slot, i.value) for i in items if i.slot], lang)}
    if not names:
        return related

    def a_name(word: str) -> bool:  # or a form of one, as the search stems it ("fados")
        return any(another_form(word, name) for name in names)
    if not any(a_name(w) for members in related.values() for w in members):
        return related
    return {word: tuple(w for w in members if not a_name(w)) for word, members in related.items()}


def _off_topic(text: str, words: Sequence[str], related: Dict[str, Tuple[str, ...]], lang: str) -> bool:
    """``text``, which says no word of the topics ``related`` holds (its
    coverage found none), shares a word of a question (its keywords: ``words``)
    but not a topic word the question names: "peach cobbler's my favorite
    dessert" tells no "favorite band", "our youngest lucy just turned seven" no
    school of Lucy's."""
    said = keywords(text, lang)

    def says(word: str) -> bool:
        return any(another_form(w, word) or another_form(word, w) for w in said)
    unsaid = [word for word, members in related.items() if members and not says(word)]
    return any(says(other) for word in unsaid for other in words
               if other != word and other not in any_languages_stop_words())


def _item(row: dict, score: float = 0.0, rank_score: float = 0.0) -> MemoryItem:
    return MemoryItem.from_row(row, score=score, rank_score=rank_score)


def _by_confidence(row: dict) -> MemoryItem:
    return _item(row, row["confidence"] or 1.0, row["confidence"] or 1.0)


def names_a_topic(query: str, lang: str) -> bool:
    """Whether ``query`` names a topic by itself ("music", "my sister"), not a
    question about it ("onde vivo")."""
    return len(keywords(query, lang)) == 1 and len(query.split()) <= 2 and not is_question(query, lang)


class CoverageCache:
    """Keyword coverage of items for recent queries: a build's keyword member
    and its final scoring ask for the same items, and pay for it once. Entries
    live ``KEEP_S`` (a new memory hardly moves a word's idf meanwhile)."""
    KEEP_S = 5.0
    QUERIES = 16

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._queries = {}  # (words, related) -> (made_at, {memory id: (direct, topical)})

    def __call__(self, words: Sequence[str], related: dict, items: Sequence[MemoryItem]) -> dict:
        key = (tuple(words), tuple(sorted(related.items())))
        now = time.monotonic()
        with self._lock:
            made_at, known = self._queries.get(key, (now, {}))
            if now - made_at > self.KEEP_S:
                made_at, known = now, {}
        missing = [i for i in items if i.id not in known]
        if missing:
            direct, topical = self.store.coverage(words, [i.seq for i in missing], related)
            known = {**known, **{i.id: (direct.get(i.seq, 0.0), topical.get(i.seq, 0.0)) for i in missing}}
        with self._lock:
            self._queries[key] = (made_at, known)
            while len(self._queries) > self.QUERIES:
                self._queries.pop(next(iter(self._queries)))
        return known


class StoreReader:
    def __init__(self, store: Store, config: dict):
        self.store = store
        self.config = config
        self.coverage = CoverageCache(store)
        self.misses = MemberMisses()
        self.queries = None  # vectors.QueryVectors once the model and the vectors are loaded
        self.next_queries = None  # the next model's, while it embeds the store again
        self.semantic_error: Optional[str] = "semantic recall is starting"
        # where the members of every composite run (backends/composite.py)
        self.member_pool = ThreadPoolExecutor(MEMBER_THREADS, thread_name_prefix="memory-member")
        self.ahead_pool = ThreadPoolExecutor(1, thread_name_prefix="memory-query")  # embed_ahead
        self._ahead_slots = threading.BoundedSemaphore(2)

    def close(self):
        """Let the members' threads end (after the last build: the engine closes its reader last)."""
        self.member_pool.shutdown(wait=True)
        self.ahead_pool.shutdown(wait=True, cancel_futures=True)

    @property
    def timeout_s(self) -> float:
        return self.config["session_timeout_minutes"] * 60

    def window(self, scope: Scope, now: float, limit: int = 0,
               max_age: Optional[float] = None) -> List[ChatMessage]:
        """The newest ``limit`` turns (0: all) of the live conversation, oldest
        first, without turns older than ``max_age`` seconds."""
        turns = live_window(self.store, scope, now, self.timeout_s, limit)
        if max_age is not None:
            turns = [t for t in turns if now - t.created_at <= max_age]
        return turns

    def summarized_window(self, scope: Scope, now: float):
        """The session's rolling summary (or None) and the live conversation's
        turns (rows) that it has not folded yet."""
        conv = live_conversation(self.store, scope, now, self.timeout_s)
        current = summaries.state(self.store, conv["id"]) if conv else None
        summary = summaries.latest(self.store, scope) if current is None or current.memory_id is None else current
        rows = self.store.conversation_turns(conv["id"], after_seq=current.covered_seq) if conv else []
        found = self.store.get_memories([summary.memory_id]) if summary is not None else []
        return (_by_confidence(found[0]) if found else None), rows

    def embed_ahead(self, scope: Scope, query: str) -> Optional[Future]:
        """Start embedding ``query`` as the members will ask for it: a build's
        members reach it only after their own work, and it is the longest step.
        On a thread of its own, never one a member waits for; whoever asks
        first embeds it, the others share that vector (models/queries.py).
        Cancel the future returned once the build is over: if it has not
        started by then, it never will."""
        queries = self.queries
        if queries is None or not self._ahead_slots.acquire(blocking=False):
            return None  # one running and one waiting: enough, even while one hangs
        started = self.ahead_pool.submit(queries.ahead, query, not names_a_topic(query, scope.lang))
        started.add_done_callback(lambda _: self._ahead_slots.release())  # done or cancelled
        return started

    def score(self, scope: Scope, query: str, items: List[MemoryItem], lead: bool = True,
              asked: bool = True) -> List[MemoryItem]:
        """Set every item's ``score`` to its calibrated relevance to ``query``
        (relevance.py; ``lead`` False: from its own evidence alone; ``asked``
        False: ``query`` is a memory's text, see ``evidence``); returns the items."""
        model, evidence = self.evidence(scope, query, items, asked)
        answers = [item.sources[0] if item.sources else item.id for item in items]  # a turn and its facts: one
        for item, score in zip(items, scores(evidence, model, answers, lead=lead)):
            item.score = score
        return items

    def evidence(self, scope: Scope, query: str, items: List[MemoryItem],
                 asked: bool = True) -> Tuple[Optional[str], List[Evidence]]:
        """What each item's own words and meaning say about ``query``, and the
        model that compared the meanings (None: none did). What a person asks
        is compared by its vector moved by the model's query map, not a topic
        named by one word, nor a memory's own text (``asked`` False) compared
        with what restates it (models/queries.py)."""
        if not items:
            return None, []
        words = keywords(query, scope.lang)
        related = _unnamed(topic_words(words, scope.lang), items, scope.lang)
        coverage = self.coverage(words, related, items)
        one_word = names_a_topic(query, scope.lang)
        try:
            model, (similarity, spread) = self._compared(lambda queries: self._similarities(
                scope.user_id, queries(query, asked and not one_word), [i.id for i in items],
                queries.embedder.name))
        except Unavailable:  # by words alone
            model, similarity, spread = None, {}, None
        said = normalized(query)
        unrelated = {item.id for item in items if item.kind == "turn" and item.role == "user"
                     and not coverage[item.id][1] and _off_topic(item.content, words, related, scope.lang)} \
            if is_question(query, scope.lang) else set()
        names = _names(words, items, scope.lang)
        asked = asked_slots(query, scope.lang, names)
        wanted, elsewhere = self._answers(query, words, items, scope.lang, names, asked, one_word, similarity,
                                          unrelated)
        if asks_amount(query, scope.lang):  # "how many miles do i run": only a number tells it
            wanted.update({item.id: False for item in items
                           if not says_number(f"{item.content} {item.value or ''}", scope.lang)})
        if asks_medicine(query, asked, scope.lang):  # "what pills am i on": a medicine named tells it, a
            for item in items:  # condition does not, nor a relative's; what was set aside otherwise stays so
                tells = tells_medicine(f"{item.content} {item.value or ''}", asked, scope.lang)
                if tells and about_another(item.content, asked, scope.lang):  # "my grandmother takes pills
                    tells = None if says_me(item.content, scope.lang) else False  # for her heart" ("... gives me")
                if tells is False or (tells and wanted.get(item.id) is not False):
                    wanted[item.id] = tells
        found = []
        for item in items:
            cosine, (direct, topical) = similarity.get(item.id), coverage[item.id]
            if topical and item.kind == "turn" and item.role == "user" and is_question(item.content, scope.lang):
                topical = 0.0  # "tell me a dad joke" names a word of the family in passing, and tells nothing of it
            if one_word and wanted.get(item.id) is True:
                topical = 1.0  # "trabalho" names the slot of "Dá aulas numa escola": its topic, in other words
            found.append(Evidence(
                cosine, direct,
                normalized(item.content) == said or (item.value is not None and normalized(item.value) == said),
                topical, 0.0 if cosine is None else standout(cosine, spread, model),
                item.kind == "turn" and says_nothing(item.content, scope.lang), one_word,
                item.kind != "turn" or item.role == "user", wanted.get(item.id), item.id in elsewhere))
        return model, found

    @staticmethod
    def _answers(query: str, words: Sequence[str], items: List[MemoryItem], lang: str,
                 names: Tuple[Tuple[str, str], ...], asked: FrozenSet[str], topic: bool = False,
                 similarity: Optional[Dict[str, float]] = None, unrelated: Set[str] = frozenset()
                 ) -> Tuple[Dict[str, Optional[bool]], Set[str]]:
        """Item id -> whether it is what ``query`` (its keywords: ``words``) asks for
        (``asked``, the slots it asks with the user's ``names``: learning/facts/asked.py),
        and the turns that get no lead (below),
        for the facts with a slot and the turns they were learnt from. A turn says
        what its facts say: one of them answers, or all are about someone else; when
        all are of other slots, it still may answer if it says a word of what is asked
        of the relative ("my son eli works at the bakery": only his name was learnt; an
        age in a number), and
        gets no lead (the set returned) if it says more than they and the question do.
        When the question asks what no slot holds ("what car does my sister
        drive"), a turn is no answer only if it says nothing but its facts ("my
        sister ana lives in porto"): "our dog is a golden retriever named biscuit"
        tells the breed its fact leaves out. What the user asked of the assistant is no
        answer to a question, nor a statement of theirs among ``unrelated`` (those a
        question names a topic of and they say nothing of: ``_off_topic``)."""
        # what the user asked of the assistant ("tell me a joke") answers no question about
        # them; a query that names a thing ("black pepper") may be after what they asked of it
        theirs = [item for item in items if item.kind == "turn" and item.role == "user"]
        no_answer = {item.id: False for item in theirs if is_question(item.content, lang)} \
            if is_question(query, lang) else {}
        # a topic of one's own ("sport", not "golf" or "berlin", values a relative's statement may
        # be found by) is not what the user told of a relative ("my sister plays golf")
        if topic and (asked or topic_words(words, lang)) and not names_a_person(query, lang):
            no_answer.update({item.id: False for item in theirs if about_another(item.content, asked, lang)})
        # a question that names a topic is not told by a statement that shares only its other
        # words (``unrelated``), whatever that statement's facts say of other slots: left in, it
        # would lead once the others were set aside
        if not asked:
            return {**no_answer, **dict.fromkeys(unrelated, False)}, set()
        facts = {item.id: item for item in items if item.slot}
        found = {**no_answer, **{i: answers(item.slot, asked, topic) for i, item in facts.items()}}
        told = {}
        for i, item in facts.items():
            if item.sources:
                told.setdefault(item.sources[0], []).append(i)
        if COMPANY in asked:  # who: of the statements that name someone, the closest to what is asked
            naming = [i for i in theirs if names_someone(i.content, lang)]
            closest = max(naming, key=lambda i: (similarity or {}).get(i.id) or 0.0, default=None)
            return {**found, **({closest.id: True} if closest else {})}, set()
        turns, elsewhere = {}, set()
        ages = asks_ages(asked)  # told in a number: "unser kater felix jagt gern mäuse" tells no age of felix
        if ages:
            turns = {item.id: False for item in theirs
                     if item.id not in told and not says_attribute(item.content, AGE, lang)}
        # what a slot holds of someone asked by the name the user gave them ("how old is trueno") is
        # not told by a statement that names neither them nor what they are ("llevo tres años con
        # lucía"); a name with words no slot holds of them ("the kiwi fruit", a parrot's name too)
        # may not be theirs at all
        owners = {owner(w) for w in words}
        named = {w for w, _ in names if w in owners}
        if named and SELF not in asked and any(".*." in a and not asks_unheld({a}) for a in asked):
            turns.update({item.id: False for item in theirs if item.id not in told
                          and not tells_of(item.content, asked, named, lang)})
        for turn, content in ((item.id, item.content) for item in items if item.id in told):
            said = told[turn]
            flags = [found[i] for i in said]
            if any(flag is True for flag in flags) or not all(flag is False for flag in flags):
                turns[turn] = True if True in flags else None
            elif asks_unheld(asked):  # what no slot holds: the turn may tell it beside its facts, unless
                # it names no one, by a word or the name asked, and its facts are the user's own
                # ("conduzco un dacia": not Iván's car; "conduzco el coche de iván" may be)
                mine = not names_someone(content, lang) and not tells_of(content, asked, named, lang) and not any(
                    facts[i].slot.startswith(("family.", "pet.")) for i in said)
                turns[turn] = None if not mine and _says_more(content, [facts[i] for i in said], lang) else False
            elif any(of_another(facts[i].slot, asked) for i in said) or \
                    (topic and all(facts[i].slot.startswith("family.") for i in said)):
                turns[turn] = False  # about someone else than the one asked about
            elif any(".*." in a and says_attribute(content, a, lang) for a in asked):
                turns[turn] = None  # it says what is asked of them, beside its facts ("my son eli works at...")
            elif KIN in asked and names_someone(content, lang):
                turns[turn] = None  # the user's own, told with a relative ("moro com a minha avó")
            elif topic or (ages and not says_attribute(content, AGE, lang)) \
                    or not _says_more(content, [facts[i] for i in said], lang, words):
                # a topic has no lead to lose: it is about something else; and an age asked of
                # someone is not told where other things are said of them with no number ("how
                # old is rufus": "our dog rufus sleeps on the couch all day")
                turns[turn] = False
            else:
                turns[turn] = None  # judged by its own evidence, without the lead
                elsewhere.add(turn)
        judged = {**found, **turns}
        judged.update({i: False for i in unrelated if judged.get(i) is not True})
        return judged, elsewhere - unrelated

    def _similarities(self, user_id: str, vector, ids: List[str], model: str):
        """The cosines of ``ids`` to ``vector``, and their spread over the
        user's newest ``recall_embeddings_limit`` memories."""
        newest = self.config["recall_embeddings_limit"]
        return (self.store.similarities(user_id, vector, ids, model),
                self.store.similarity_spread(user_id, vector, newest, model))

    def _compared(self, compare):
        """(model, ``compare(queries)``) with the queries of the model whose
        vectors the store searches: a model change may end between the two."""
        queries = self.queries
        if queries is None:
            raise Unavailable(self.semantic_error or "semantic recall is not available")
        try:
            return queries.embedder.name, compare(queries)
        except ModelChanged as e:
            queries = next((q for q in (self.queries, self.next_queries)
                            if q is not None and q.embedder.name == e.model), None)
            if queries is None:
                raise Unavailable(self.semantic_error or f"the vectors are {e.model}'s, not this daemon's model's")
            return queries.embedder.name, compare(queries)

    def visible(self, scope: Scope, kinds: Sequence[str], where: str = "user", history: bool = False,
                **narrowed) -> Visible:
        """What ``scope`` may see of ``kinds``; ``narrowed``: Visible's
        ``persona``, ``session``, ``since`` and ``until``."""
        return Visible(scope, tuple(kinds), where, share_turns=self.config["share_turns_across_personas"],
                       share_facts=self.config["share_facts_across_personas"], history=history, **narrowed)

    def keyword_search(self, scope: Scope, text: str, limit: int, kinds: Sequence[str],
                       where: str = "user", exclude_ids: Sequence[str] = (),
                       exclude_content: str = "") -> List[MemoryItem]:
        """Memories matching any keyword of ``text`` (or a word of the topic
        it names), best first."""
        words = keywords(text, scope.lang)
        related = topic_words(words, scope.lang)
        searched = list(dict.fromkeys([*words, *(m for members in related.values() for m in members)]))
        rows = self.store.keyword_search(self.visible(scope, kinds, where), searched, limit,
                                         Exclude(exclude_ids, exclude_content))
        items = [_item(r, rank_score=r["rank"]) for r in rows]
        found = self.coverage(words, related, items)
        for item in items:
            item.score = found[item.id][0]
        return items

    def with_asked_facts(self, scope: Scope, query: str, items: List[MemoryItem], kinds: Sequence[str],
                         where: str = "user") -> List[MemoryItem]:
        """``items`` and, after them, the user's facts of the slots ``query``
        asks for (learning/facts/asked.py) with the turns they were learnt
        from, those not among ``items`` already: "qual é a minha profissão"
        shares neither a word nor much meaning with "dou aulas numa escola",
        so no search brings the fact learnt from it, yet it is the answer. Someone
        asked about by name is known by the names in ``items``' facts."""
        asked = asked_slots(query, scope.lang, _names(keywords(query, scope.lang), items, scope.lang))
        fact_kinds = [k for k in kinds or KINDS if k in USER_FACT_KINDS]
        if not asked or not fact_kinds:
            return items
        rows = self.store.list_visible(self.visible(scope, fact_kinds, where), ASKED_FACTS, order="updated")
        have = {item.id for item in items}
        judged = [(r, answers(r["slot"], asked)) for r in rows if r["id"] not in have]
        facts = [_item(r) for r, answer in judged if answer]
        sources = [s for f in facts for s in f.sources[:1] if s not in have]
        turns = self.store.select_visible(self.visible(scope, ["turn"], where), sources) \
            if sources and "turn" in (kinds or KINDS) else []
        # the facts learnt from a compared turn that are no answer: they tell that the
        # turn is about something else ("sou taxista em faro" for "what car do I drive")
        others = [_item(r) for r, answer in judged if answer is False]
        beside = [f for f in others if f.sources[:1] and f.sources[0] in have]
        return items + facts + [_item(r) for r in turns] + beside

    def current_facts(self, scope: Scope, kinds: Sequence[str], limit: int) -> List[MemoryItem]:
        """The user's current facts (and the persona's attributes), newest first;
        their score is their confidence."""
        return [_by_confidence(r) for r in self.store.list_visible(self.visible(scope, kinds), limit,
                                                                   order="updated")]

    def adjacent_turns(self, scope: Scope, ids: Sequence[str], kinds: Sequence[str],
                       where: str = "user", exclude_ids: Sequence[str] = (),
                       exclude_content: str = "", brief: bool = False) -> dict:
        """For each turn id, the turns just before and after it in its
        conversation that the scope may see: {id: [MemoryItem, ...]};
        ``brief``: only their BRIEF columns are read, content "" (see ``whole``)."""
        found = self.store.adjacent_turns(self.visible(scope, kinds, where), ids,
                                          Exclude(exclude_ids, exclude_content), BRIEF if brief else ())
        return {source: [_item({"content": "", **r}) for r in rows] for source, rows in found.items()}

    def whole(self, items: List[MemoryItem], brief: Set[str]) -> List[MemoryItem]:
        """``items``, those of ids in ``brief`` read whole (their scores kept);
        one forgotten meanwhile is left out."""
        wanted = [item.id for item in items if item.id in brief]
        if not wanted:
            return items
        rows = {row["id"]: row for row in self.store.get_memories(wanted)}
        return [_item(rows[i.id], i.score, i.rank_score) if i.id in brief else i
                for i in items if i.id not in brief or i.id in rows]

    def semantic_search(self, scope: Scope, text: str, limit: int, kinds: Sequence[str],
                        where: str = "user", exclude_ids: Sequence[str] = (),
                        exclude_content: str = "") -> List[MemoryItem]:
        """Nearest memories by meaning; compares at most ``recall_embeddings_limit``
        of the newest memories the scope may see (Memori's setting)."""
        _, rows = self._compared(lambda queries: self.store.nearest(
            self.visible(scope, kinds, where), queries(text, not names_a_topic(text, scope.lang)), limit,
            self.config["recall_embeddings_limit"],
            Exclude(exclude_ids, exclude_content), queries.embedder.name))
        return [_item(r, cosine_relevance(r["similarity"]), r["similarity"]) for r in rows]
