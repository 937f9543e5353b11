"""Forgetting by a topic's one word ("forget what I told you about food") takes
the statements its words are in, read as written: a word is not another word
that differs from it only by an accent ("carné", a licence, is not "carne",
meat), while speech-to-text that drops every accent still matches."""
import pytest

from ovos_memory_service.common.items import KINDS
from tests.helpers import exchange, scope


def taken(engine, sc, topic: str) -> dict:
    """id -> content of what forgetting ``topic`` would take (its dry run)."""
    return {m.id: m.content for m in engine.forget(sc, query=topic, dry_run=True, limit=20)}


def test_an_accent_tells_a_topics_word_from_another_word(make_engine):
    engine = make_engine(lang="es-es")
    sc = scope(lang="es-es")
    meat = exchange(engine, sc, "me encanta la carne asada", "Vale.")["ids"]
    licence = exchange(engine, sc, "quiero sacarme el carné de moto este verano", "¡Suerte!")["ids"]
    cello = exchange(engine, sc, "toco el violin en una orquesta", "Qué bien.")["ids"]  # "violín", no accent
    engine.wait_idle()
    food = set(taken(engine, sc, "comida"))
    assert set(meat) <= food
    assert not food & set(licence)
    music = set(taken(engine, sc, "música"))
    assert set(cello) <= music
    engine.forget(sc, query="comida", limit=20)
    left = {m.content for m in engine.list(sc, KINDS, 200, 0)[0]}
    assert "quiero sacarme el carné de moto este verano" in left
    assert "me encanta la carne asada" not in left


@pytest.mark.parametrize("lang,said,topic,of_topic", [
    ("es-es", "mi gata solo me hace caso a mí", "familia", "mi hermana se casó en mayo"),  # "casó": married
    ("pt-pt", "o avo da cana de pesca partiu-se há uns dias, já comprei outro", "família",  # "avó"
     "a minha avó faz anos em maio"),
])
def test_a_word_without_its_accent_in_a_text_that_writes_accents_is_another_word(make_engine, lang, said, topic,
                                                                                   of_topic):
    """"hace caso" is not "se casó", nor "o avo da cana" (the handle) "a avó": a text that
    writes its accents elsewhere ("mí", "já") writes this word without one because it has none."""
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    ids = exchange(engine, sc, said, "Vale.")["ids"]
    belongs = exchange(engine, sc, of_topic, "Vale.")["ids"]
    engine.wait_idle()
    listed = taken(engine, sc, topic)
    assert belongs[0] in listed and not set(listed) & set(ids), listed


def test_a_request_is_not_what_was_told_about_a_topic(make_engine):
    """"forget what I told you about my family" takes what was said about the family;
    "tell me a dad joke" asked for a joke and told nothing, so it stays (a word of the
    topic alone does not make a request about it), as does the question."""
    engine = make_engine()
    sc = scope()
    radios = exchange(engine, sc, "my dad fixes old radios in his garage", "That's a nice hobby.")["ids"]
    joke = exchange(engine, sc, "tell me a dad joke", "I'm reading a book about anti-gravity. "
                                                     "It's impossible to put down.")["ids"]
    asked = exchange(engine, sc, "what should i cook for my grandma", "How about a roast?")["ids"]
    engine.wait_idle()
    family = set(taken(engine, sc, "family"))
    assert set(radios) <= family
    assert not family & set(joke + asked)


def test_a_relatives_job_is_no_part_of_ones_own_work(make_engine):
    """"forget what I told you about work" takes the user's job, not what they said of a
    relative's ("o meu marido é mecânico numa oficina" is about the family), nor a
    daughter who is a doctor under health; the family topic still takes them."""
    engine = make_engine(lang="pt-pt")
    sc = scope(lang="pt-pt")
    mine = exchange(engine, sc, "sou enfermeira no centro de saúde de viseu", "Está bem.")["ids"]
    his = exchange(engine, sc, "o meu marido nuno é mecânico numa oficina em famalicão", "Anotado.")["ids"]
    exchange(engine, sc, "como está o tempo", "Está sol, com vinte graus.")
    engine.wait_idle()
    work = set(taken(engine, sc, "trabalho"))
    assert mine[0] in work and not work & set(his)
    family = set(taken(engine, sc, "família"))
    assert his[0] in family


def test_a_topic_takes_what_belongs_to_it_and_not_a_word_that_looks_like_it(make_engine):
    """"estudios" is not "vivo en un estudio" (a home)."""
    engine = make_engine(lang="es-es")
    sc = scope(lang="es-es")
    home = exchange(engine, sc, "vivo sola en un estudio junto a la plaza mayor", "Apuntado.")["ids"]
    phd = exchange(engine, sc, "hago el doctorado en historia medieval", "Vale.")["ids"]
    exchange(engine, sc, "qué tiempo hace", "Hace sol y veinte grados.")
    engine.wait_idle()
    studies = set(taken(engine, sc, "estudios"))
    assert phd[0] in studies and not studies & set(home)


@pytest.mark.parametrize("said,topic", [
    ("i'm doing a master's in marine biology at uw", "school"),  # school takes what one studies
    # names the father first, but "we" says the user too
    ("my dad is from lyon so we always spoke french at home", "french"),
])
def test_a_statement_of_the_topic_is_taken(make_engine, said, topic):
    engine = make_engine()
    sc = scope()
    ids = exchange(engine, sc, said, "Okay.")["ids"]
    exchange(engine, sc, "what's the weather like", "Sunny and mild.")
    engine.wait_idle()
    assert ids[0] in taken(engine, sc, topic)


@pytest.mark.parametrize("lang,partner,job,family", [
    ("en-us", "i'm dating a guy called mike", "i'm a plumber in dayton", "family"),
    ("pt-pt", "ando com a sofia há dois anos", "sou canalizador em braga", "família"),
    ("es-es", "salgo con un chico que se llama dani", "soy fontanero en teruel", "familia"),
    ("de-de", "ich bin mit jana zusammen", "ich bin klempner in kassel", "familie"),
])
def test_the_family_takes_a_partner_named_without_a_word_of_kin(make_engine, lang, partner, job, family):
    """A partner told by name ("ando com a sofia") is family, though the sentence has no
    word of kin for the topic's words to meet: the fact learnt from it says so."""
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    said = exchange(engine, sc, partner, "Ok.")["ids"]
    other = exchange(engine, sc, job, "Ok.")["ids"]
    engine.wait_idle()
    assert [m.slot for m in engine.list(sc, ["fact"], 10, 0)[0]].count("family.partner.name") == 1
    listed = set(taken(engine, sc, family))
    assert said[0] in listed and not listed & set(other)


@pytest.mark.parametrize("lang,named,topic,of_topic", [
    ("pt-pt", "tenho um gato preto que se chama fado", "música", "canto num coro às quintas"),
    ("en-us", "our dog is called pepper", "food", "i can't stand cilantro"),
    ("es-es", "mi perra se llama canela", "comida", "me encanta la paella"),
    ("de-de", "unser hund heißt jazz", "musik", "ich spiele geige im orchester"),
])
def test_a_name_the_user_gave_is_no_word_of_a_topic(make_engine, lang, named, topic, of_topic):
    """A cat called Fado is not music, nor a dog called Pepper food: the name learnt
    from the statement is a name there, though the topic's words hold it."""
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    pet = exchange(engine, sc, named, "Ok.")["ids"]
    belongs = exchange(engine, sc, of_topic, "Ok.")["ids"]
    engine.wait_idle()
    assert any(m.slot and m.slot.endswith(".name") for m in engine.list(sc, ["fact"], 10, 0)[0])
    listed = taken(engine, sc, topic)
    assert belongs[0] in listed
    assert not set(listed) & set(pet), listed
    assert not any(m.sources and m.sources[0] == pet[0] for m in engine.forget(sc, query=topic, dry_run=True, limit=20))


def test_work_does_not_take_what_one_studies(make_engine):
    """"forget what I told you about work" takes the job, not the nursing school (the
    topic "school" takes that), though a question about one's work may be answered by it."""
    engine = make_engine()
    sc = scope()
    school = exchange(engine, sc, "i'm in my second year of nursing school at unm", "Okay.")["ids"]
    job = exchange(engine, sc, "i work as a cashier at the grocery store", "Okay.")["ids"]
    engine.wait_idle()
    work = set(taken(engine, sc, "work"))
    assert job[0] in work and not work & set(school)
    assert school[0] in taken(engine, sc, "school")


def test_an_apprenticeship_is_work_in_german(make_engine):
    """"ich mache eine ausbildung zur erzieherin" is a job in Germany (in a company, paid):
    the topic "Arbeit" takes it, and a question about one's job or what one learns finds it."""
    engine = make_engine(lang="de-de")
    sc = scope(lang="de-de")
    training = exchange(engine, sc, "ich mache eine ausbildung zur erzieherin", "Okay.")["ids"]
    exchange(engine, sc, "wie wird das wetter morgen", "Sonnig und warm.")
    engine.wait_idle()
    assert training[0] in taken(engine, sc, "arbeit")
    for asked in ("was mache ich beruflich", "welche ausbildung mache ich", "was lerne ich gerade"):
        found = engine.recall(sc, asked, 5, engine.config["recall_relevance_threshold"])
        assert found and training[0] in {m.sources[0] if m.sources else m.id for m in found}, asked


@pytest.mark.parametrize("lang,said,health,ill", [
    # "doente" of a fan and "clínica" of a job are no illness
    ("pt-pt", "sou benfiquista doente", "saúde", "tenho a tensão alta"),
    ("es-es", "soy fisio en una clínica del centro", "salud", "tengo asma desde pequeña"),
])
def test_health_does_not_take_a_club_or_a_job(make_engine, lang, said, health, ill):
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    other = exchange(engine, sc, said, "Ok.")["ids"]
    mine = exchange(engine, sc, ill, "Ok.")["ids"]
    engine.wait_idle()
    listed = taken(engine, sc, health)
    assert mine[0] in listed and not set(listed) & set(other), listed


@pytest.mark.parametrize("lang,theirs,mine,topic", [
    ("en-us", "my older sister kim plays golf every weekend", "i go swimming on mondays", "sport"),
    ("de-de", "meine freundin anja studiert gerade ein semester in prag", "ich studiere jura in bonn", "studium"),
    ("en-us", "my son jake plays drums in a punk band", "i sing in the church choir", "music"),
])
def test_ones_own_topic_does_not_take_what_a_relative_does(make_engine, lang, theirs, mine, topic):
    """"forget what I told you about sport" takes the user's sport, not a statement whose
    subject is a relative or a friend (their facts belong to the family's topic); a
    statement that says the user with them ("me and my sister play tennis") is the user's."""
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    other = exchange(engine, sc, theirs, "Ok.")["ids"]
    own = exchange(engine, sc, mine, "Ok.")["ids"]
    together = exchange(engine, sc, "me and my sister play tennis on fridays" if lang == "en-us"
                        else "ich und mein bruder lernen zusammen für die klausur", "Ok.")["ids"]
    engine.wait_idle()
    listed = taken(engine, sc, topic)
    assert own[0] in listed and not set(listed) & set(other), listed
    if topic != "music":
        assert together[0] in listed


@pytest.mark.parametrize("lang,theirs,mine,topic,family", [
    ("en-us", "tom, my brother, works at the mill", "i'm a plumber in dayton", "work", "family"),
    ("pt-pt", "O Rui, o meu marido, é motorista dos TUB.", "sou farmacêutica numa farmácia", "trabalho", "família"),
    ("pt-pt", "o meu irmão passa os dias fechado no escritório", "sou farmacêutica numa farmácia", "trabalho",
     "família"),
    ("es-es", "Lucía, mi mujer, trabaja en un banco", "soy fontanero en teruel", "trabajo", "familia"),
    ("de-de", "Jürgen, mein Mann, arbeitet bei der Post.", "ich bin klempner in kassel", "arbeit", "familie"),
])
def test_a_relative_named_first_by_name_or_with_an_article_is_not_ones_own(make_engine, lang, theirs, mine,
                                                                           topic, family):
    """"O Rui, o meu marido, é motorista" and "o meu irmão..." (Portuguese puts an article
    before "my") are about the relative as much as "my brother tom works at the mill":
    forgetting one's own work leaves them, the family takes them."""
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    other = exchange(engine, sc, theirs, "Ok.")["ids"]
    own = exchange(engine, sc, mine, "Ok.")["ids"]
    engine.wait_idle()
    listed = taken(engine, sc, topic)
    assert own[0] in listed and not set(listed) & set(other), listed
    assert other[0] in taken(engine, sc, family)


@pytest.mark.parametrize("lang,said,topic", [
    ("es-es", "mi novio se viene a vivir conmigo en enero", "pareja"),  # the topic is the partner
    ("en-us", "my dog rex loves the beach", "pets"),  # an animal is no person
])
def test_a_statement_about_the_one_the_topic_names_is_taken(make_engine, lang, said, topic):
    engine = make_engine(lang=lang)
    sc = scope(lang=lang)
    theirs = exchange(engine, sc, said, "Ok.")["ids"]
    engine.wait_idle()
    assert theirs[0] in taken(engine, sc, topic)


def test_a_value_asked_alone_finds_what_a_relative_said(make_engine):
    """"golf" is no topic of the user's own, as "sport" is: a sister's golf is found by it."""
    engine = make_engine()
    sc = scope()
    hers = exchange(engine, sc, "my older sister kim plays golf every weekend", "Okay.")["ids"]
    engine.wait_idle()
    assert hers[0] in taken(engine, sc, "golf")
