"""The labelled relevance set (benchmarks/relevance/<lang>.json; its README
gives the format): loading it, storing its scenarios through the engine's
write path, and judging a recalled memory against a query's labels.
"""
import glob
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List

from ovos_memory_service.config import build_config
from ovos_memory_service.engine import MemoryEngine
from ovos_memory_service.scope import Scope
from ovos_memory_service.wire import parse_messages


@dataclass
class StoredScenario:
    id: str
    lang: str
    split: str
    scope: Scope
    queries: List[dict]
    ids: Dict[str, str] = field(default_factory=dict)  # "u3"/"a3" -> memory id

    def relevant_ids(self, query: dict) -> set:
        return {self.ids[ref] for ref in query["relevant"] if ref in self.ids}


def load_sets(folder: str) -> List[dict]:
    return [json.load(open(path, encoding="utf-8")) for path in sorted(glob.glob(os.path.join(folder, "*.json")))]


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
            item = StoredScenario(scenario["id"], labelled["lang"], scenario["split"], scope, scenario["queries"])
            for i, (said, reply) in enumerate(scenario["exchanges"]):
                ids = engine.update_history(scope, parse_messages([{"role": "user", "content": said},
                                                                   {"role": "assistant", "content": reply}]))["ids"]
                item.ids.update({f"u{i}": ids[0], f"a{i}": ids[1]})
            stored.append(item)
    if not engine.wait_idle(600):
        raise TimeoutError("the background work (embeddings, facts) did not finish")
    return stored


def judged(item, relevant_ids: set) -> bool:
    """A turn as labelled; a derived memory through the turns it was learnt from."""
    return item.id in relevant_ids or any(source in relevant_ids for source in item.sources)
