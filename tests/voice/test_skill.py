"""The voice commands end to end: utterances go through ovos-core's real intent
pipeline (ovoscope's MiniCroft, padacioso) to the skill, which acts on a real
engine (SQLite + LanceDB in a temp dir). Each test speaks as its own user."""
import threading
import time
import uuid
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ovos_memory_service.common.items import KINDS
from tests.helpers import padacioso_in_threads, scope, store, user
from tests.voice.test_skill_locale import HANDED_ON

ovoscope = pytest.importorskip("ovoscope")

from ovos_bus_client.message import Message  # noqa: E402

from ovos_memory_service.edge.skill import SKILL_ID, MemorySkill  # noqa: E402

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
TOPIC = {"en-us": "jazz", "pt-pt": "jazz", "es-es": "jazz", "de-de": "jazz"}
FACT = {"en-us": "i like jazz", "pt-pt": "eu gosto de jazz", "es-es": "me gusta el jazz",
        "de-de": "ich mag jazz"}
YES = {"en-us": "yes", "pt-pt": "sim", "es-es": "sí", "de-de": "ja"}
NO = {"en-us": "no", "pt-pt": "não", "es-es": "no", "de-de": "nein"}
# how STT may give a number: as digits, or in words
COUNT = {"en-us": "4", "pt-pt": "quatro", "es-es": "4", "de-de": "vier"}
# what each command answers a user who has no memories yet
FIRST_ANSWER = {
    "what.do.you.remember": "remembered.none",
    "recall.topic": "recall.none",
    "remember.fact": "remember.done",
    "forget.last": "forget.last.none",
    "forget.topic": "forget.topic.none",
    "forget.topic.all": "forget.topic.none",
    "forget.everything": "remembered.none",
    "stop.remembering": "paused",
    "start.remembering": "resumed",
}


@contextmanager
def intent_pipeline(tmp_path_factory, secondary_langs=()):
    """ovos-core's intent pipeline in-process (ovoscope's MiniCroft, padacioso
    in threads) over a real engine: yields (minicroft, engine, config)."""
    from ovoscope import LIGHT_TEST_PIPELINE, get_minicroft
    from ovos_memory_service.common.config import build_config
    from ovos_memory_service.engine.engine import MemoryEngine
    restore = padacioso_in_threads()
    config = build_config({"data_dir": str(tmp_path_factory.mktemp("memory"))})
    engine = MemoryEngine(config)
    engine.open()
    minicroft = get_minicroft([], default_pipeline=LIGHT_TEST_PIPELINE, lang="en-US",
                              secondary_langs=list(secondary_langs))
    try:
        yield minicroft, engine, config
    finally:
        minicroft.stop()
        engine.close()
        restore()


def examples(lang):
    """(intent, utterance, entities) for every line of every intent file."""
    for path in sorted((LOCALE / lang / "intents").glob("*.intent")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entities = {k: v for k, v in (("topic", TOPIC[lang]), ("fact", FACT[lang]),
                                              ("count", COUNT[lang])) if "{" + k + "}" in line}
                yield path.stem, line.format(**entities), entities


class Voice:
    """Speaks to the pipeline as a given user and collects what the skill says."""

    def __init__(self, minicroft, engine, skill):
        self.minicroft, self.engine, self.skill = minicroft, engine, skill
        self.bus = minicroft.bus

    def say(self, utterance, lang="en-us", user_id="alice", session=None) -> "Heard":
        session = session or {"session_id": f"s-{user_id}", "lang": lang}
        heard = Heard()
        self.bus.on("message", heard.on_message)
        try:  # a speaker verified by a voice print (the level that reads memories aloud)
            self.bus.emit(Message("recognizer_loop:utterance", {"utterances": [utterance], "lang": lang},
                                  {"session": session, "user_id": user_id, **verified()}))
        finally:
            self.bus.remove("message", heard.on_message)
        return heard

    def converse(self, utterance, answer, lang="en-us", user_id="alice") -> "Heard":
        """A command that asks a question; ``answer`` None is silence. The
        answer carries the session of the question, as a client echoes it."""
        waiting, asked = threading.Event(), {}

        def on_waiting(message):
            asked["session"] = message.context["session"]
            waiting.set()
        self.bus.on(f"{SKILL_ID}.get_response.waiting", on_waiting)
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(self.say, utterance, lang, user_id)
            while not (waiting.wait(0.05) or first.done()):
                pass
            if waiting.is_set() and answer is not None:
                self.say(answer, lang, user_id, session=asked["session"])
            heard = first.result(60)
        self.bus.remove(f"{SKILL_ID}.get_response.waiting", on_waiting)
        heard.asked = waiting.is_set()
        return heard


def verified(level: int = 3) -> dict:
    """The identity fields an identity transformer copies into the context."""
    return {"auth_level": level, "authenticated_at": time.time()}


class Heard:
    def __init__(self):
        self.messages = []

    def on_message(self, raw):
        self.messages.append(Message.deserialize(raw))

    @property
    def intents(self):
        return [m.msg_type.split(":", 1)[1] for m in self.messages if m.msg_type.startswith(SKILL_ID + ":")]

    @property
    def dialogs(self):
        return [m.data.get("meta", {}).get("dialog") for m in self.messages if m.msg_type == "speak"]

    @property
    def text(self):
        return " | ".join(m.data["utterance"] for m in self.messages if m.msg_type == "speak")

    def intent_data(self):
        return next(m.data for m in self.messages if m.msg_type.startswith(SKILL_ID + ":"))


@pytest.fixture(scope="module")
def voice(tmp_path_factory):
    with intent_pipeline(tmp_path_factory, ["pt-PT", "es-ES", "de-DE"]) as (minicroft, engine, config):
        # no audio service here reports the end of speech: questions listen at once
        skill = MemorySkill(bus=minicroft.bus, skill_id=SKILL_ID, engine=engine, config=config,
                            wait_for_speech=False)
        skill.config_core.setdefault("skills", {})
        yield Voice(minicroft, engine, skill)
        skill.default_shutdown()


@pytest.fixture
def quick_silence(voice, monkeypatch):
    """A question nobody answers times out after 1 s instead of 20."""
    monkeypatch.setitem(voice.skill.config_core["skills"], "get_response_timeout", 1)


def new_user():
    return f"u-{uuid.uuid4().hex[:8]}"


def contents(engine, user_id, kinds=KINDS):
    items, _ = engine.list(scope(user=user_id), kinds, 200, 0, "all")
    return [i.content for i in items]


# ------------------------------------------------------------- every example
@pytest.mark.parametrize("lang", LANGS)
def test_every_example_reaches_its_command(voice, lang):
    for intent, utterance, entities in examples(lang):
        heard = voice.say(utterance, lang, new_user())
        assert heard.dialogs == [FIRST_ANSWER[intent]], (lang, utterance, heard.text)
        if heard.intents == [f"{HANDED_ON.get(intent)}.intent"]:
            continue  # taken for "forget <topic>", which hands it on (test_skill_locale.py)
        assert heard.intents == [f"{intent}.intent"], (lang, utterance, heard.intents)
        data = heard.intent_data()
        assert {k: data.get(k) for k in entities} == entities, (lang, utterance, data)


@pytest.mark.parametrize("lang", LANGS)
def test_an_unrelated_utterance_is_not_a_command(voice, lang):
    heard = voice.say({"en-us": "what time is it", "pt-pt": "que horas são",
                       "es-es": "qué hora es", "de-de": "wie spät ist es"}[lang], lang, new_user())
    assert heard.intents == []


# ------------------------------------------------------------ what it says
@pytest.mark.parametrize("lang", LANGS)
def test_remembered_fact_is_read_back(voice, lang):
    me = new_user()
    assert voice.say(f"{_line(lang, 'remember.fact', 0)}".format(fact=FACT[lang]), lang, me).dialogs == [
        "remember.done"]
    heard = voice.say(_line(lang, "what.do.you.remember", 0), lang, me)
    assert heard.dialogs == ["remembered.list"] and FACT[lang] in heard.text.lower()
    heard = voice.say(_line(lang, "recall.topic", 0).format(topic=TOPIC[lang]), lang, me)
    assert heard.dialogs == ["recall.list"] and FACT[lang] in heard.text.lower()


def test_a_long_list_is_summarized(voice):
    me = new_user()
    for fact in ("i like jazz", "my sister is called ana", "i live in porto", "i work as a nurse",
                 "my dog is called rex", "i speak german"):
        voice.say(f"remember that {fact}", user_id=me)
    heard = voice.say("what do you remember about me", user_id=me)
    assert heard.dialogs == ["remembered.list"]
    assert "and 3 more" in heard.text and heard.text.count(";") == 2


def test_only_conversations_are_counted(voice):
    me = new_user()
    store(voice.engine, scope(user=me, session=f"s-{me}"), user("hello there"))
    heard = voice.say("what do you remember about me", user_id=me)
    assert heard.dialogs == ["remembered.turns.only"] and " 1 " in heard.text


# ------------------------------------------------------------- whose memory
def test_nothing_is_said_about_another_users_memories(voice, quick_silence):
    me, other = new_user(), new_user()
    voice.say("remember that my pin is 4711", user_id=other)
    assert voice.say("what do you remember about me", user_id=me).dialogs == ["remembered.none"]
    heard = voice.say("what do you know about my pin", user_id=me)
    assert heard.dialogs == ["recall.none"] and "4711" not in heard.text
    assert voice.say("forget my pin", user_id=me).dialogs == ["forget.topic.none"]
    assert voice.converse("forget everything about me", YES["en-us"], user_id=me).dialogs == [
        "remembered.none"]
    assert "my pin is 4711" in contents(voice.engine, other)


def test_commands_span_every_persona_of_the_user(voice):
    me = new_user()
    for persona in ("helper", "chef"):
        store(voice.engine, scope(user=me, session="kitchen", persona=persona),
              user(f"i keep the {persona} notes in the blue folder"))
    voice.engine.remember(scope(user=me, persona="helper"), "i like jazz")
    heard = voice.say("what do you know about the blue folder", user_id=me)
    assert "helper notes" in heard.text and "chef notes" in heard.text
    heard = voice.converse("forget the blue folder", YES["en-us"], user_id=me)
    assert heard.dialogs == ["forget.topic.confirm", "forget.topic.done"]
    assert contents(voice.engine, me) == ["i like jazz"]


# -------------------------------------------------------------- confirmations
@pytest.mark.parametrize("lang", LANGS)
def test_forget_topic_reads_back_then_forgets_on_yes(voice, lang):
    me = new_user()
    voice.engine.remember(scope(user=me, lang=lang), FACT[lang])
    heard = voice.converse(_line(lang, "forget.topic", 0).format(topic=TOPIC[lang]), YES[lang], lang, me)
    assert heard.dialogs == ["forget.topic.confirm.one", "forget.topic.done.one"]
    assert FACT[lang] in heard.text.lower()  # the dry run was read back first
    assert contents(voice.engine, me) == []


@pytest.mark.parametrize("lang", LANGS)
def test_forget_topic_keeps_everything_on_no(voice, lang):
    me = new_user()
    voice.engine.remember(scope(user=me, lang=lang), FACT[lang])
    heard = voice.converse(_line(lang, "forget.topic", 0).format(topic=TOPIC[lang]), NO[lang], lang, me)
    assert heard.dialogs == ["forget.topic.confirm.one", "forget.kept"]
    assert contents(voice.engine, me) == [FACT[lang]]


def test_forget_topic_keeps_everything_on_silence(voice, quick_silence):
    me = new_user()
    voice.engine.remember(scope(user=me), "i like jazz")
    heard = voice.converse("forget jazz", None, user_id=me)
    assert heard.asked and heard.dialogs == ["forget.topic.confirm.one", "forget.no.answer"]
    assert contents(voice.engine, me) == ["i like jazz"]


# four memories about jazz in each language, and one said after they were counted
JAZZ = {
    "en-us": ["jazz calms me down after work", "the jazz festival is in july",
              "we heard jazz on the boat", "jazz records fill the shelf"],
    "pt-pt": ["o jazz acalma depois do trabalho", "o festival de jazz é em julho",
              "ouvimos jazz no barco", "os discos de jazz enchem a estante"],
    "es-es": ["el jazz calma después del trabajo", "el festival de jazz es en julio",
              "oímos jazz en el barco", "los discos de jazz llenan la estantería"],
    "de-de": ["jazz beruhigt nach der arbeit", "das jazz festival ist im juli",
              "wir hörten jazz auf dem boot", "die jazz platten füllen das regal"],
}
LATER = {"en-us": "jazz is on the radio tonight", "pt-pt": "há jazz na rádio esta noite",
         "es-es": "hay jazz en la radio esta noche", "de-de": "heute abend kommt jazz im radio"}


def remember_all(voice, me, lang, texts):
    for text in texts:
        voice.engine.remember(scope(user=me, lang=lang), text)


@pytest.mark.parametrize("lang, utterance, topic", [
    ("en-us", "forget that i live in lisbon", "i live in lisbon"),
    ("de-de", "vergiss dass ich in lissabon wohne", "ich in lissabon wohne")])
def test_forget_that_x_forgets_x_not_that(voice, lang, utterance, topic):
    me = new_user()
    remember_all(voice, me, lang, [topic])
    heard = voice.converse(utterance, NO[lang], lang, me)
    assert heard.intents[0] == "forget.topic.intent" and heard.intent_data()["topic"] == topic
    assert heard.dialogs == ["forget.topic.confirm.one", "forget.kept"]


def test_forget_topic_reads_every_item_it_would_forget(voice):
    me = new_user()
    remember_all(voice, me, "en-us", JAZZ["en-us"][:3])
    heard = voice.converse("forget jazz", YES["en-us"], user_id=me)
    assert heard.dialogs == ["forget.topic.confirm", "forget.topic.done"]
    assert all(text in heard.text for text in JAZZ["en-us"][:3]) and "more" not in heard.text
    assert contents(voice.engine, me) == []


@pytest.mark.parametrize("lang", LANGS)
def test_more_than_it_reads_is_counted_and_only_forget_all_n_forgets_them(voice, lang):
    me = new_user()
    remember_all(voice, me, lang, JAZZ[lang])
    heard = voice.say(_line(lang, "forget.topic", 0).format(topic=TOPIC[lang]), lang, me)
    assert heard.dialogs == ["forget.topic.many"] and " 4 " in heard.text
    assert not any(text in heard.text for text in JAZZ[lang])  # counted, not read in part
    assert sorted(contents(voice.engine, me)) == sorted(JAZZ[lang])  # nothing asked, nothing gone
    remember_all(voice, me, lang, [LATER[lang]])  # not counted aloud: it stays
    heard = voice.say(_line(lang, "forget.topic.all", 0).format(count=COUNT[lang], topic=TOPIC[lang]),
                      lang, me)
    assert heard.dialogs == ["forget.topic.done"] and " 4 " in heard.text
    assert contents(voice.engine, me) == [LATER[lang]]


def test_forget_all_with_another_number_counts_again(voice):
    me = new_user()
    remember_all(voice, me, "en-us", JAZZ["en-us"])
    assert voice.say("forget jazz", user_id=me).dialogs == ["forget.topic.many"]
    remember_all(voice, me, "en-us", [LATER["en-us"]])
    heard = voice.say("forget all 5 memories about jazz", user_id=me)  # 4 were counted
    assert heard.dialogs == ["forget.topic.many"] and " 5 " in heard.text
    assert len(contents(voice.engine, me)) == 5
    assert voice.say("forget all five memories about jazz", user_id=me).dialogs == ["forget.topic.done"]
    assert contents(voice.engine, me) == []


def test_forget_all_n_forgets_only_what_was_counted_to_that_user_about_that_topic(voice):
    me, other = new_user(), new_user()
    remember_all(voice, me, "en-us", JAZZ["en-us"])
    remember_all(voice, other, "en-us", JAZZ["en-us"])
    # never counted for me: it counts first
    assert voice.say("forget all 4 memories about jazz", user_id=me).dialogs == ["forget.topic.many"]
    assert len(contents(voice.engine, me)) == 4
    # counted for me, not for the other user, and not about another topic
    assert voice.say("forget all 4 memories about jazz", user_id=other).dialogs == ["forget.topic.many"]
    heard = voice.converse("forget all 4 memories about the boat", NO["en-us"], user_id=me)
    assert "forget.topic.done" not in heard.dialogs
    assert len(contents(voice.engine, me)) == 4 and len(contents(voice.engine, other)) == 4


def test_how_many_it_reads_and_finds_are_settings(voice, monkeypatch):
    me = new_user()
    remember_all(voice, me, "en-us", JAZZ["en-us"][:2])
    monkeypatch.setitem(voice.skill.memory_config, "voice", {"spoken_items": 1})
    assert voice.say("forget jazz", user_id=me).dialogs == ["forget.topic.many"]
    remember_all(voice, me, "en-us", JAZZ["en-us"][2:])
    monkeypatch.setitem(voice.skill.memory_config, "voice", {"forget_limit": 2})
    heard = voice.converse("forget jazz", YES["en-us"], user_id=me)
    assert heard.dialogs == ["forget.topic.confirm", "forget.topic.done"]
    assert len(contents(voice.engine, me)) == 2


# ------------------------------------------------ memory text is data, not a template
MARKUP = ["| trains | time |\n|---|---|\n| S1 | 08:15 |",
          "trains leave from [platform 2] (or 3|4) at {time}",
          "**trains** are _fast_ and `cheap` # see [the map](http://x/y)"]


def spoken(text):
    return " ".join(text.split())


def test_memories_with_template_characters_are_read_as_they_are(voice):
    me = new_user()
    remember_all(voice, me, "en-us", MARKUP)
    heard = voice.say("what do you know about trains", user_id=me)
    assert heard.dialogs == ["recall.list"]
    assert all(spoken(text) in heard.text for text in MARKUP), heard.text
    heard = voice.say("what do you remember about me", user_id=me)
    assert heard.dialogs == ["remembered.list"]
    assert all(spoken(text) in heard.text for text in MARKUP), heard.text
    heard = voice.converse("forget trains", NO["en-us"], user_id=me)
    assert heard.dialogs == ["forget.topic.confirm", "forget.kept"]
    assert all(spoken(text) in heard.text for text in MARKUP), heard.text


def test_a_long_list_with_template_characters_is_summarized_as_it_is(voice):
    me = new_user()
    remember_all(voice, me, "en-us", [*MARKUP, "a {fourth} (one)", "[5]"])
    heard = voice.say("what do you remember about me", user_id=me)
    assert heard.dialogs == ["remembered.list"] and "and 2 more" in heard.text
    assert sum(spoken(text) in heard.text for text in MARKUP + ["a {fourth} (one)", "[5]"]) == 3


def test_an_unclear_answer_forgets_nothing(voice):
    me = new_user()
    voice.engine.remember(scope(user=me), "i like jazz")
    heard = voice.converse("forget jazz", "what is the weather like", user_id=me)
    assert heard.dialogs[-1] == "forget.kept" and contents(voice.engine, me) == ["i like jazz"]


@pytest.mark.parametrize("answer, outcome, kept", [
    ("yes", "forget.everything.done", False),
    ("no", "forget.kept", True),
    (None, "forget.no.answer", True)])
def test_forget_everything_asks_first(voice, quick_silence, answer, outcome, kept):
    me, other = new_user(), new_user()
    for persona in ("helper", "chef"):
        store(voice.engine, scope(user=me, persona=persona), user(f"note for {persona}"))
    store(voice.engine, scope(user=other), user("the other user's note"))
    heard = voice.converse("forget everything about me", answer, user_id=me)
    assert heard.dialogs == ["forget.everything.confirm", outcome]
    assert " 2 " in heard.text  # both personas' memories are counted
    assert bool(contents(voice.engine, me)) is kept
    assert contents(voice.engine, other) == ["the other user's note"]


@pytest.mark.parametrize("lang", LANGS)
def test_forget_everything_in_every_language(voice, lang):
    me = new_user()
    voice.engine.remember(scope(user=me, lang=lang), FACT[lang])
    heard = voice.converse(_line(lang, "forget.everything", 0), YES[lang], lang, me)
    assert heard.dialogs == ["forget.everything.confirm", "forget.everything.done"]
    assert contents(voice.engine, me) == []


# ------------------------------------------------- forget that, pause, resume
class PersonaRecorder:
    """Records what ovos-persona 0.9.0a25 records: every utterance (before the
    pipeline handles it) and every spoken line, into the active persona's memory."""

    def __init__(self, voice, persona="helper"):
        self.voice, self.persona = voice, persona

    def __enter__(self):
        self.voice.bus.on("message", self.on_message)
        return self

    def __exit__(self, *exc):
        self.voice.bus.remove("message", self.on_message)

    def on_message(self, raw):
        message = Message.deserialize(raw)
        if message.msg_type == "recognizer_loop:utterance":
            self.record(message, "user", message.data["utterances"][0])
        elif message.msg_type == "speak":
            self.record(message, "assistant", message.data["utterance"])

    def record(self, message, role, text):
        sc = scope(user=message.context["user_id"], session=message.context["session"]["session_id"],
                   persona=self.persona)
        store(self.voice.engine, sc, {"role": role, "content": text})


def history(voice, me):
    sc = scope(user=me, session=f"s-{me}", persona="helper")
    return [m.content for m in voice.engine.get_history(sc, 50)]


@pytest.mark.parametrize("lang", LANGS)
def test_forget_that_forgets_the_exchange_before_the_command(voice, lang):
    me = new_user()
    sc = scope(user=me, session=f"s-{me}", persona="helper", lang=lang)
    store(voice.engine, sc, user("the weather is nice"), {"role": "assistant", "content": "It is."})
    store(voice.engine, sc, user("my code is 4711"), {"role": "assistant", "content": "Noted."})
    with PersonaRecorder(voice):
        heard = voice.say(_line(lang, "forget.last", 0), lang, me)
    assert heard.dialogs == ["forget.last.done"]
    assert history(voice, me) == ["the weather is nice", "It is."]


def test_the_skills_own_lines_never_become_memories(voice):
    me = new_user()
    sc = scope(user=me, session=f"s-{me}", persona="helper")
    store(voice.engine, sc, user("i like jazz"), {"role": "assistant", "content": "Nice."})
    with PersonaRecorder(voice):
        voice.say("remember that my sister is called ana", user_id=me)
        voice.say("what do you remember about me", user_id=me)
        voice.say("what do you know about jazz", user_id=me)
        voice.converse("forget jazz", "no", user_id=me)
    assert history(voice, me) == ["i like jazz", "Nice."]
    said = " ".join(contents(voice.engine, me, ("turn",)))
    assert "remember" not in said and "jazz?" not in said


def test_stop_and_start_remembering(voice):
    me = new_user()
    sc = scope(user=me, session=f"s-{me}", persona="helper")
    assert voice.say("stop remembering", user_id=me).dialogs == ["paused"]
    assert store(voice.engine, sc, user("my secret is blue"))["stored"] == 0
    assert voice.say("remember that i like tea", user_id=me).dialogs == ["remember.paused"]
    assert voice.say("start remembering again", user_id=me).dialogs == ["resumed"]
    assert store(voice.engine, sc, user("i like tea"))["stored"] == 1
    assert contents(voice.engine, me, ("turn",)) == ["i like tea"]


def _line(lang, intent, n):
    lines = (LOCALE / lang / "intents" / f"{intent}.intent").read_text(encoding="utf-8").split("\n")
    return [line for line in lines if line.strip()][n]


# ------------------------------------------------ in the listener's words
SISTER = {  # a statement, its reply, the phrasing that forgets it, what is heard back, "yes"
    "en-us": ("my sister lives in berlin", "Berlin is a lovely city for your sister.",
              "forget what i told you about my sister", "your sister"),
    "pt-pt": ("a minha irmã mora em berlim", "Berlim é uma cidade linda para a tua irmã.",
              "esquece o que te disse sobre a minha irmã", "a tua irmã"),
    "es-es": ("mi hermana vive en berlín", "Berlín es una ciudad preciosa para tu hermana.",
              "olvida lo que te conté sobre mi hermana", "tu hermana"),
    "de-de": ("meine schwester wohnt in berlin", "Berlin ist eine schöne Stadt für deine Schwester.",
              "vergiss was ich dir über meine schwester erzählt habe", "deine schwester"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_forget_what_i_told_you_about_x_reads_and_forgets_the_reply_too(voice, lang):
    me = new_user()
    said, reply, command, heard_back = SISTER[lang]
    store(voice.engine, scope(user=me, session=f"s-{me}", lang=lang), user(said), {"role": "assistant", "content": reply})
    voice.engine.wait_idle()
    heard = voice.converse(command, YES[lang], lang, me)
    assert heard.intents[0] == "forget.topic.intent"
    assert heard.dialogs[-1].startswith("forget.topic.done"), heard.text
    assert heard_back in heard.text.lower() and said in heard.text.lower()
    assert reply.lower().rstrip(".") in heard.text.lower()
    assert contents(voice.engine, me) == []


@pytest.mark.parametrize("lang, said, asked, command, heard_back", [
    ("en-us", "i work as a nurse at the night shift", "what do i do for a living",
     "what do you know about my job", "your job"),
    ("pt-pt", "trabalho como enfermeira no turno da noite", "qual é o meu trabalho",
     "o que sabes sobre o meu trabalho", "o teu trabalho"),
    ("es-es", "trabajo de enfermera en el turno de noche", "cuál es mi trabajo",
     "qué sabes de mi trabajo", "tu trabajo"),
    ("de-de", "ich arbeite als krankenpflegerin in der nachtschicht", "was ist meine arbeit",
     "was weißt du über meine arbeit", "deine arbeit")])
def test_what_do_you_know_answers_in_the_second_person_and_never_reads_a_question(
        voice, lang, said, asked, command, heard_back):
    me = new_user()
    sc = scope(user=me, session=f"s-{me}", lang=lang)
    store(voice.engine, sc, user(said), {"role": "assistant", "content": "Okay."})
    store(voice.engine, sc, user(asked), {"role": "assistant", "content": said.capitalize()})
    voice.engine.wait_idle()
    heard = voice.say(command, lang, me)
    assert heard.dialogs == ["recall.list"], heard.text
    assert heard_back in heard.text.lower() and asked not in heard.text.lower()
