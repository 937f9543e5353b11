"""A question asked in other words finds its answer with the multilingual
model (issue 36): the question's vector is moved by the model's query map
(models/queries.py); a topic named by one word and a memory's own text are
not. The sentences are this test's own, in no set the map learnt from."""
import json
from pathlib import Path

import numpy as np
import pytest

from ovos_memory_service.models.multilingual import MULTILINGUAL_MODEL
from ovos_memory_service.models.queries import QueryVectors
from tests.helpers import exchange, scope

UNDERSTANDING = Path(__file__).resolve().parents[2] / "benchmarks" / "understanding"
SMALL_TALK = {"pt-pt": ["ontem choveu imenso", "adoro bacalhau com natas", "o meu irmão mora em faro"],
              "es-es": ["hoy hace mucho viento", "me encanta la paella de mi madre", "mi hermana vive en vigo"],
              "de-de": ["heute ist es ziemlich kalt", "ich esse gern spätzle", "meine schwester wohnt in kiel"]}


@pytest.mark.parametrize("lang, question, answer", [
    ("pt-pt", "como é que ganho a vida", "conserto máquinas de lavar numa oficina em setúbal"),
    ("es-es", "en qué curro", "reparo tejados por toda la comarca"),
    ("de-de", "womit verdiene ich mein brot", "ich repariere fahrräder in einer kleinen werkstatt")])
def test_a_question_in_other_words_finds_its_answer_first(make_engine, lang, question, answer):
    """Without the map the answer came after small talk ("ontem choveu
    imenso", "ich esse gern spätzle"): their cosines to the question were higher."""
    engine = make_engine(embeddings={"model": MULTILINGUAL_MODEL})
    sc = scope(lang=lang)
    for said in [*SMALL_TALK[lang][:2], answer, SMALL_TALK[lang][2]]:
        exchange(engine, sc, said, "Ok.")
    engine.wait_idle(timeout=120)
    found = engine.recall(sc, question, limit=5, threshold=0)
    assert found and found[0].content == answer, [(i.content, i.score) for i in found]


def test_forgetting_a_topic_takes_no_news_the_map_would_bring(make_engine):
    """What restates a forgotten memory is compared by the memory's own
    text, unmoved: moved like a question, "en octubre hacemos un crucero"
    brought the assistant's news of cruise ships in port into "viajes"
    (a scenario of the understanding set's development split)."""
    data = json.loads((UNDERSTANDING / "es-es.json").read_text(encoding="utf-8"))
    told = next(s for s in data["scenarios"] if s["id"] == "es-es-dev-2")["exchanges"]
    engine = make_engine(embeddings={"model": MULTILINGUAL_MODEL})
    sc = scope(lang="es-es")
    for said in told:
        exchange(engine, sc, said["user"], said["assistant"])
    engine.wait_idle(timeout=120)
    listed = [item.content for item in engine.forget(sc, query="viajes", dry_run=True)]
    assert "en octubre hacemos un crucero por el mediterráneo" in listed
    assert not [text for text in listed if "Ayuntamiento" in text], listed


def test_only_what_a_person_asks_is_moved(make_engine):
    engine = make_engine(embeddings={"model": MULTILINGUAL_MODEL})
    queries = QueryVectors(engine.reader.queries.embedder)
    raw = np.asarray(queries.embedder.embed_query("onde é que eu trabalho"), np.float32)
    assert np.allclose(queries("onde é que eu trabalho"), raw)
    asked = queries("onde é que eu trabalho", asked=True)
    assert not np.allclose(asked, raw)
    assert np.isclose(np.linalg.norm(asked), np.linalg.norm(raw), rtol=1e-4)
