"""Who and when a question is about: the speaker and the time are part of a memory.

A memory spoken by someone the question names ("what did Ana say about...")
and a memory from around a date the question mentions ("...on 1 May",
"yesterday", in any language ovos-date-parser knows) rank higher.
"""
import re
from datetime import datetime, timezone
from typing import List, Optional

from ovos_date_parser import extract_datetime
from ovos_utils.log import LOG

from ovos_memory_service.common.items import MemoryItem

DAY_S = 86400


def mentioned_time(text: str, lang: str, now: float) -> Optional[float]:
    """Epoch seconds of the date the text mentions, if any; a date that would
    lie in the future (a month named without a year) is taken a year earlier."""
    try:
        anchor = datetime.fromtimestamp(now, timezone.utc).replace(tzinfo=None)
        found = extract_datetime(text, (lang or "en-us").split("-")[0], anchor)
    except Exception:  # an unknown language, or a phrase the parser trips on
        LOG.debug("no date understood in a query", exc_info=True)
        return None
    if not found:
        return None
    when = found[0].replace(tzinfo=None)
    if when > anchor:
        try:
            when = when.replace(year=when.year - 1)
        except ValueError:  # 29 February
            when = when.replace(year=when.year - 1, day=28)
    return when.replace(tzinfo=timezone.utc).timestamp()


def names(text: str):
    """A test: is this speaker's name a word of ``text``?"""
    folded = text.casefold()
    return lambda name: bool(name) and re.search(
        r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)", folded) is not None


def focus(hits: List[MemoryItem], text: str, target: Optional[float], speaker_boost: float = 0.0,
          time_boost: float = 0.0, time_scale_days: float = 7.0) -> List[MemoryItem]:
    """Re-rank in place: x(1 + speaker_boost) for a named speaker, x(1 +
    time_boost / (1 + days away / time_scale_days)) near ``target``, the
    date ``text`` mentions (``mentioned_time``; None: none)."""
    if not hits or not (speaker_boost or time_boost):
        return hits
    named = names(text) if speaker_boost else (lambda name: False)
    for hit in hits:
        if speaker_boost and named(hit.name):
            hit.rank_score *= 1.0 + speaker_boost
        if time_boost and target is not None:
            hit.rank_score *= 1.0 + time_boost / (1.0 + abs(hit.created_at - target) / (time_scale_days * DAY_S))
    return sorted(hits, key=lambda item: item.rank_score, reverse=True)
