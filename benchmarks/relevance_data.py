"""The labelled relevance set (benchmarks/relevance/<lang>.json; its README
gives the format): loading it, storing its scenarios through the engine's
write path, and judging a recalled memory against a query's labels.

A query's ``context`` turns are about it only through the conversation (a
pronoun, an ellipsis, a reply that comments without naming the subject); the
score is computed from a memory's own text, so they are neither relevant nor
irrelevant: ``judged`` gives None for them and they are left out.
"""
import glob
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ovos_memory_service.common.config import build_config
from ovos_memory_service.engine.engine import MemoryEngine
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.common.wire import parse_messages


@dataclass
class StoredScenario:
    id: str
    lang: str
    split: str
    scope: Scope
    queries: List[dict]
    ids: Dict[str, str] = field(default_factory=dict)  # "u3"/"a3" -> memory id
    understanding: bool = False  # from the understanding set (``labelled``)

    def relevant_ids(self, query: dict) -> set:
        return {self.ids[ref] for ref in query["relevant"] if ref in self.ids}

    def context_ids(self, query: dict) -> set:
        return {self.ids[ref] for ref in query.get("context", ()) if ref in self.ids}


def load_sets(folder: str) -> List[dict]:
    """The labelled sets of a folder: the relevance set's, or the
    understanding set's (benchmarks/understanding/) as labelled scenarios."""
    sets = [json.load(open(path, encoding="utf-8")) for path in sorted(glob.glob(os.path.join(folder, "*.json")))]
    return [labelled(s) if any("questions" in sc for sc in s["scenarios"]) else s for s in sets]


def labelled(understanding: dict) -> dict:
    """An understanding set (personal facts asked back in other words, topics
    named by one word, questions about what was never said) as relevance-set
    scenarios: a question is about its fact's turn, a topic about its facts'
    turns, a question never answered about nothing; every other turn is not
    about them (a fact's reply says nothing, small talk is off every topic)."""
    scenarios = []
    for scenario in understanding["scenarios"]:
        turn = {e["fact"]: f"u{i}" for i, e in enumerate(scenario["exchanges"]) if e.get("fact")}
        queries = ([{"query": q["question"], "relevant": [turn[q["fact"]]], "category": "no_shared_word"}
                    for q in scenario["questions"]]
                   + [{"query": t["topic"], "relevant": [turn[f] for f in t["facts"]], "category": "topic_word"}
                      for t in scenario["topics"]]
                   + [{"query": q, "relevant": [], "category": "never_said"} for q in scenario["never_said"]])
        scenarios.append({"id": scenario["id"], "split": scenario["split"], "queries": queries,
                          "exchanges": [[e["user"], e["assistant"]] for e in scenario["exchanges"]]})
    return {"lang": understanding["lang"], "scenarios": scenarios, "understanding": True}


def open_engine(data_dir: str, **config) -> MemoryEngine:
    engine = MemoryEngine(build_config({"data_dir": data_dir, **config}))
    engine.open()
    return engine


def store_scenarios(engine: MemoryEngine, sets: List[dict]) -> List[StoredScenario]:
    """Each scenario as one conversation of a user of its own; returns once
    every turn is embedded and its facts are learnt."""
    stored = []
    for labelled in sets:
        for scenario in labelled["scenarios"]:
            scope = Scope(user_id=scenario["id"], session_id=scenario["id"], lang=labelled["lang"])
            item = StoredScenario(scenario["id"], labelled["lang"], scenario["split"], scope, scenario["queries"],
                                  understanding=labelled.get("understanding", False))
            for i, (said, reply) in enumerate(scenario["exchanges"]):
                ids = engine.update_history(scope, parse_messages([{"role": "user", "content": said},
                                                                   {"role": "assistant", "content": reply}]))["ids"]
                item.ids.update({f"u{i}": ids[0], f"a{i}": ids[1]})
            stored.append(item)
    engine.wait_idle(600)
    return stored


def judged(item, relevant_ids: set, context_ids: set = frozenset()) -> Optional[bool]:
    """A turn as labelled; a derived memory through the turns it was learnt from:
    relevant when one of them is, unjudged (None) when it is a context turn or
    every turn it was learnt from is one, otherwise not relevant."""
    sources = list(getattr(item, "sources", None) or ())
    if item.id in relevant_ids or any(source in relevant_ids for source in sources):
        return True
    if item.id in context_ids or (sources and all(source in context_ids for source in sources)):
        return None
    return False
