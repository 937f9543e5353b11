"""A chat model as the judge of what a recall or a forgetting by topic found,
where the device's owner configured one (``judge``: an OpenAI-compatible
endpoint; off by default, and then nothing leaves the device).

The calibrated relevance (backends/relevance.py) reads each memory's own words
and meaning, and a fact said in other words often scores below the recall
threshold ("travel": "we went hiking in the alps", 0.01), while a statement
about the person a question names can score above it for a detail never said
("what is eli's teacher called": "my son eli is eight", 0.72). A chat model
reads the question and the memories together. It is given the
``candidates`` best of them (in recall's order, the one who asks's only), and
says which answer the question or are about the topic: those score
``JUDGED``, the others at most ``REJECTED``. An exact match keeps its 1, a
turn that says nothing or the rules set aside its 0, and the memories past
the candidates keep their own scores. A forget by topic raises what the judge
finds only in a dry run, whose list a person confirms (the voice, the page and
``ovos-memory`` then forget those ids); forgetting outright, the judge may only
take memories out of what their own evidence found.

It costs one request per recall or forgetting (never a context build, which
never waits on a model). An endpoint that fails, is slow past
``request_timeout``, or answers neither numbers nor "none" leaves every score
as it was (``JudgeUnavailable``); its failures open a breaker of the judge's
own, so the background's facts and summaries on the same endpoint go on.
"""
import re
from typing import List, Optional, Set

from ovos_memory_service.common.blocks import Endpoint
from ovos_memory_service.common.items import MemoryItem
from ovos_memory_service.learning.llm_client import ChatClient, LLMUnavailable

JUDGED = 0.9  # above the forget threshold (0.8) and the recall threshold (0.6)
REJECTED = 0.05
MAX_TOKENS = 64
# each memory as the model reads it, cut past this many characters
MAX_CHARS = 400
INSTRUCTIONS = (
    "You judge which of a person's memories answer their question, or are about the topic "
    "they name. The memories are numbered; each is something the person said, something their "
    "assistant said, or something known about the person, in any language. A memory that only "
    "mentions the same person or thing without telling what is asked does not answer. Reply "
    "with the numbers of the memories that do, separated by commas, or with the word none. "
    "Nothing else.")
NONE = re.compile(r"\W*none( of them)?\W*", re.I)
SEPARATORS = re.compile(r"[\s,;&]+|\band\b", re.I)
NUMBER = re.compile(r"[0-9]+\.?")  # "2." as some models write it; not "1.5" nor "²"


class JudgeUnavailable(Exception):
    """No verdict: scores stay as they were."""


def _said_by(item: MemoryItem) -> str:
    if item.kind != "turn":
        return "known about me"
    return "I said" if item.role == "user" else "my assistant said"


def prompt(query: str, items: List[MemoryItem]) -> List[dict]:
    lines = [f"{n}. ({_said_by(item)}) {' '.join(item.content.split())[:MAX_CHARS]}"
             for n, item in enumerate(items, 1)]
    return [{"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": f"Question or topic: {' '.join(query.split())}\n\nMemories:\n"
                                        + "\n".join(lines)}]


def verdict(reply: str, count: int) -> Set[int]:
    """The 0-based places of the memories ``reply`` names; JudgeUnavailable for a
    reply that is neither numbers nor "none", or names a memory not given."""
    if NONE.fullmatch(reply):
        return set()
    words = [w for w in SEPARATORS.split(reply) if w]
    if not words or not all(NUMBER.fullmatch(w) for w in words):
        raise JudgeUnavailable("the judge answered neither numbers nor none")
    places = {int(w.rstrip(".")) - 1 for w in words}
    if not all(0 <= p < count for p in places):
        raise JudgeUnavailable("the judge named memories it was not given")
    return places


class Judge:
    def __init__(self, endpoint: Endpoint, candidates: int):
        self.client = ChatClient(*endpoint, purpose="judge")
        self.candidates = candidates

    def check(self):
        """JudgeUnavailable at once while the endpoint is known to be down."""
        try:
            self.client.check()
        except LLMUnavailable as e:
            raise JudgeUnavailable(str(e)) from e

    def judged(self, query: str, items: List[MemoryItem], raise_found: bool = True) -> List[MemoryItem]:
        """``items`` (in recall's order), the first ``candidates`` of those with
        a score between 0 and 1 scored by the verdict (``raise_found`` False:
        it may only lower them); JudgeUnavailable without one."""
        asked = [item for item in items if 0.0 < item.score < 1.0][:self.candidates]
        if not asked:
            return items
        try:  # an answer that cannot be read counts against the endpoint's breaker
            found = self.client.complete(prompt(query, asked), MAX_TOKENS, lambda reply: verdict(reply, len(asked)))
        except LLMUnavailable as e:
            raise JudgeUnavailable(str(e)) from e
        except Exception as e:  # whatever else the endpoint answered, recall answers without it
            raise JudgeUnavailable(f"the judge's answer could not be read ({type(e).__name__})") from e
        for place, item in enumerate(asked):
            if place not in found:
                item.score = min(item.score, REJECTED)
            elif raise_found:
                item.score = JUDGED
        return items


def judge_of(config: dict) -> Optional[Judge]:
    """The configured judge (the ``judge`` block, checked by common/config.py), or None."""
    block = config["judge"]
    if not block.get("api_url"):
        return None
    return Judge(Endpoint(block["api_url"], block.get("model") or "", block.get("api_key") or "",
                          float(block["request_timeout"])), int(block["candidates"]))
