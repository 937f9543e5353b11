"""Which search words the keyword index holds at all.

A question that names a topic searches its lexicon's words ("job": 299 words)
while a user's memories hold few of them (31 at 1,000 LoCoMo exchanges). In an
FTS5 MATCH each word the index lacks still costs about 30 us, so the search
took 9.4 ms, and 1.4 ms with only the words held (23 and 6 ms at 10,000).
Asking the index's vocabulary (``memories_terms``, an fts5vocab table made on
every connection) costs about 14 us a word, so what it answers is kept: a word
held stays held (deleting its memories makes it match nothing, as any absent
word), a word missing is asked again once the store has been written to.
A word is held when every index term it makes is (a phrase needs them all);
its terms come from the index's own tokenizer, in a scratch index.
"""
import json
import threading
from typing import Callable, Dict, List, Sequence, Tuple

from ovos_memory_service.store.tokens import Fts5Tokenizer

STEMS_KEPT = 20_000  # words whose terms are kept (the lexicons hold about 10,000)


class IndexedTerms:
    def __init__(self, writes: Callable[[], int]):
        self._writes = writes  # the store's count of changes: a change outdates what was missing
        self._lock = threading.Lock()
        self._terms: Dict[str, Tuple[str, ...]] = {}  # word -> the index terms it makes
        self._held = set()
        self._missing = set()
        self._missing_at = None  # the store's write count when _missing was asked
        self._tokenizer = Fts5Tokenizer()

    def held(self, db, words: Sequence[str]) -> List[str]:
        """``words`` (in order) that ``db``'s keyword index holds."""
        writes = self._writes()
        with self._lock:
            terms = self._terms_of(words)
            if writes != self._missing_at:
                self._missing, self._missing_at = set(), writes
            unknown = {t for ts in terms.values() for t in ts} - self._held - self._missing
        if unknown:
            found = {term for (term,) in db.execute(
                "SELECT term FROM temp.memories_terms WHERE term IN (SELECT value FROM json_each(?))",
                [json.dumps(sorted(unknown))])}
            with self._lock:
                self._held |= found
                if writes == self._missing_at:
                    self._missing |= unknown - found
        with self._lock:
            return [w for w in words if terms[w] and all(t in self._held for t in terms[w])]

    def _terms_of(self, words: Sequence[str]) -> Dict[str, Tuple[str, ...]]:
        new = [w for w in dict.fromkeys(words) if w not in self._terms]
        if new:
            if len(self._terms) + len(new) > STEMS_KEPT:
                self._terms.clear()
                new = list(dict.fromkeys(words))
            for word, made in zip(new, self._tokenizer.positions(new)):
                self._terms[word] = tuple(sorted(made, key=lambda term: made[term][0]))
        return {w: self._terms[w] for w in words}

