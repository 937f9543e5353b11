"""The topic lexicons (locale/<lang>/topics.list) parse, and keep to their format:
``head words: member words``, comma-separated, lower case, one-way."""
import re
from pathlib import Path

import pytest

from tests.helpers import exchange, scope

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGS = ["en-us", "pt-pt", "es-es", "de-de"]
WORD = re.compile(r"^\w+$", re.UNICODE)
MAX_HEADS = 12
MAX_MEMBERS = 800  # the longest line (German occupations) ~660: 7 ms a query over 20,000 memories


def parse(lang):
    path = LOCALE / lang / "topics.list"
    assert path.exists(), f"{path} is missing"
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        assert line.count(":") == 1, f"{lang}:{number}: one ':' between heads and members"
        heads, members = (part.split(",") for part in line.split(":"))
        heads = [h.strip() for h in heads]
        members = [m.strip() for m in members]
        lines.append((number, heads, members))
    return path, lines


@pytest.mark.parametrize("lang", LANGS)
def test_topics_list_format(lang):
    path, lines = parse(lang)
    assert path.read_text(encoding="utf-8").lstrip().startswith("#"), "a comment header explains the file"
    assert len(lines) >= 20, f"{lang}: only {len(lines)} topic lines"
    seen_heads = {}
    for number, heads, members in lines:
        where = f"{lang}:{number}"
        for word in heads + members:
            assert word, f"{where}: an empty word (stray comma?)"
            assert word == word.lower(), f"{where}: {word!r} is not lower case"
            assert WORD.match(word), f"{where}: {word!r} is not one word the search tokenizer keeps whole"
        # a topic's names, singular and plural ("job", "jobs", "occupation", "profession"...)
        assert 1 <= len(heads) <= MAX_HEADS, f"{where}: {len(heads)} heads"
        # a topic is shown by many concrete words (hundreds of occupations), each a term
        # of the keyword search a head starts: bounded so that one query stays cheap
        assert 10 <= len(members) <= MAX_MEMBERS, f"{where}: {len(members)} members"
        assert len(set(heads)) == len(heads), f"{where}: a head is repeated"
        assert len(set(members)) == len(members), f"{where}: a member is repeated"
        assert not set(heads) & set(members), f"{where}: {set(heads) & set(members)} both head and member"
        for head in heads:
            assert head not in seen_heads, f"{where}: head {head!r} already heads line {seen_heads[head]}"
            seen_heads[head] = number


@pytest.mark.parametrize("lang", LANGS)
def test_no_stop_words(lang):
    stops = {w.strip().lower() for w in (LOCALE / lang / "stopwords.list").read_text(encoding="utf-8").splitlines()
             if w.strip() and not w.startswith("#")}
    for number, heads, members in parse(lang)[1]:
        assert not (set(heads) | set(members)) & stops, f"{lang}:{number}: stop words {(set(heads) | set(members)) & stops}"


@pytest.mark.parametrize("lang", LANGS)
def test_a_head_leads_to_the_other_heads_of_its_line(lang):
    """resources.topics() reads each file: a head leads to the other heads of
    its line (one topic's names, "wohnt" and "lebt") and to its members."""
    from ovos_memory_service.common.resources import topics
    topics.cache_clear()
    known = topics(lang)
    for _, heads, members in parse(lang)[1]:
        for head in heads:
            assert set(known[head]) == set(heads) - {head} | set(members)


@pytest.mark.parametrize("question, answer", [
    # "lebt" and "wohnt" both say "lives": asked with one, the memory that says
    # the other comes above a neighbour found through the topic's words ("Nachbarn")
    ("wo lebt der Mann meiner Schwester", "Mein Schwager Jens wohnt in Leipzig."),
    # "Frau" and "Mann" also say wife and husband: the wedding line finds them
    ("mit wem bin ich verheiratet", "Meine Frau heißt Katrin."),
])
def test_a_german_relative_is_found_by_a_topics_other_names(make_engine, question, answer):
    """Asked about a relative in other words than were said, recall puts the
    memory that answers first, on a German device (its default model)."""
    engine = make_engine(lang="de-de")
    sc = scope(lang="de-de")
    exchange(engine, sc, "Mein Schwager Jens wohnt in Leipzig.", "Notiert.")
    exchange(engine, sc, "Samstags spiele ich Tennis mit meinem Nachbarn.", "Klingt gut.")
    exchange(engine, sc, "Meine Frau heißt Katrin.", "Okay.")
    engine.wait_idle(timeout=120)
    found = engine.recall(scope(session="s2", lang="de-de"), question, threshold=0)
    assert found[0].content == answer, [i.content for i in found]


# the topics every language names, by one of each language's heads: people ask and forget
# by them ("forget what I told you about music", "¿a qué me dedico?", "was mache ich beruflich")
TOPIC_NAMES = {
    "pets": ("pets", "animais", "mascotas", "haustiere"),
    "dog": ("dog", "cão", "perro", "hund"),
    "cat": ("cat", "gato", "gato", "katze"),
    "family": ("family", "família", "familia", "familie"),
    "relatives": ("relatives", "parentes", "parientes", "verwandte"),
    "siblings": ("siblings", "irmãos", "hermanos", "geschwister"),
    "parents": ("parents", "pais", "padres", "eltern"),
    "children": ("children", "filhos", "hijos", "kinder"),
    "partner": ("relationship", "relação", "pareja", "beziehung"),
    "wedding": ("married", "casado", "casado", "verheiratet"),
    "friends": ("friends", "amigos", "amigos", "freunde"),
    "home": ("home", "casa", "casa", "zuhause"),
    "lives": ("lives", "vive", "vive", "lebt"),
    "city": ("city", "cidade", "ciudad", "stadt"),
    "born": ("born", "nasci", "nací", "geboren"),
    "moving": ("moving", "mudança", "mudanza", "umzug"),
    "work": ("work", "trabalho", "trabajo", "arbeit"),
    "profession": ("profession", "profissão", "profesión", "beruf"),
    "colleagues": ("colleagues", "colegas", "compañeros", "kollegen"),
    "food": ("food", "comida", "comida", "essen"),
    "diet": ("diet", "dieta", "dieta", "diät"),
    "drinks": ("drinks", "bebidas", "bebidas", "getränke"),
    "vegetarian": ("vegetarian", "vegetariano", "vegetariano", "vegetarier"),
    "allergies": ("allergies", "alergias", "alergias", "allergien"),
    "health": ("health", "saúde", "salud", "gesundheit"),
    "doctor": ("doctor", "médico", "médico", "arzt"),
    "dentist": ("dentist", "dentista", "dentista", "zahnarzt"),
    "appointments": ("appointments", "marcações", "citas", "termine"),
    "music": ("music", "música", "música", "musik"),
    "instrument": ("instrument", "instrumento", "instrumento", "instrument"),
    "films": ("films", "filmes", "películas", "filme"),
    "books": ("books", "livros", "libros", "bücher"),
    "sport": ("sport", "desporto", "deporte", "sport"),
    "hobbies": ("hobbies", "passatempos", "aficiones", "hobbys"),
    "garden": ("gardening", "jardinagem", "jardinería", "gartenarbeit"),
    "games": ("games", "videojogos", "videojuegos", "videospiele"),
    "travel": ("travel", "viagens", "viajes", "reisen"),
    "holidays": ("holidays", "férias", "vacaciones", "urlaub"),
    "car": ("car", "carro", "coche", "auto"),
    "transport": ("transport", "transportes", "transporte", "verkehrsmittel"),
    "school": ("school", "escola", "colegio", "schule"),
    "exams": ("exams", "exames", "exámenes", "prüfungen"),
    "languages": ("languages", "línguas", "idiomas", "sprachen"),
    "money": ("money", "dinheiro", "dinero", "geld"),
    "birthday": ("birthday", "aniversário", "cumpleaños", "geburtstag"),
    "weekend": ("weekend", "fds", "finde", "wochenende"),
    "plans": ("plans", "planos", "planes", "pläne"),
    "secrets": ("secrets", "segredos", "secretos", "geheimnisse"),
    "chores": ("chores", "tarefas", "tareas", "haushalt"),
    "shopping": ("shopping", "compras", "compras", "einkaufen"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_names_the_same_topics(lang):
    """The same topics in every language: a topic missing in one is recall and
    forgetting that work in English and fail in Portuguese."""
    heads = {h for _, line_heads, _ in parse(lang)[1] for h in line_heads}
    column = LANGS.index(lang)
    missing = {topic: names[column] for topic, names in TOPIC_NAMES.items() if names[column] not in heads}
    assert not missing, f"{lang}: no line headed by {missing}"


def index_terms(words):
    """Each word as the store's FTS5 tokenizer indexes it (porter, remove_diacritics)."""
    import sqlite3
    from ovos_memory_service.store.sqlite.keywords import TOKENIZER
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (c, tokenize='{TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    db.executemany("INSERT INTO t (rowid, c) VALUES (?, ?)", [(i + 1, w) for i, w in enumerate(words)])
    found = {doc: term for term, doc in db.execute("SELECT term, doc FROM v")}
    return [found.get(i + 1, "") for i in range(len(words))]


@pytest.mark.parametrize("lang", LANGS)
def test_no_word_is_indexed_as_a_stop_word(lang):
    """A topic word that the index stems like a stop word would find nearly every
    memory: "Nichte" is indexed "nicht", "té" is "te", "Uber" is "über"."""
    stops = sorted({w.strip().lower() for w in (LOCALE / lang / "stopwords.list").read_text(encoding="utf-8")
                    .splitlines() if w.strip() and not w.startswith("#") and "'" not in w})
    stop_terms = set(index_terms(stops)) - {""}
    for number, heads, members in parse(lang)[1]:
        words = heads + members
        clash = {w: t for w, t in zip(words, index_terms(words)) if t in stop_terms}
        assert not clash, f"{lang}:{number}: {clash} are indexed as stop words"


# narrower topics of one broader topic: neither leads to the other
SIBLINGS = [("dog", "cat"), ("siblings", "parents"), ("siblings", "children"), ("parents", "children"),
            ("doctor", "dentist"), ("music", "films"), ("books", "films"), ("sport", "music")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("one, other", SIBLINGS)
def test_a_specific_word_never_leads_to_its_siblings(lang, one, other):
    """One way: "forget my cat" must not reach the dogs, "my parents" not the children."""
    column = LANGS.index(lang)
    line_of = {head: (set(heads), set(members)) for _, heads, members in parse(lang)[1] for head in heads}
    (one_heads, one_members), (other_heads, other_members) = (
        line_of[TOPIC_NAMES[one][column]], line_of[TOPIC_NAMES[other][column]])
    assert not one_members & other_heads, f"{lang}: {one} leads to {other} through {one_members & other_heads}"
    assert not other_members & one_heads, f"{lang}: {other} leads to {one} through {other_members & one_heads}"


# (lang, what is asked, a memory it reaches through the topic, a memory of another topic it must not reach)
REACHES = [
    ("en-us", "what do I do for a living", "I'm an electrician", "My sister Ana lives in Coimbra"),
    ("en-us", "what instrument do I play", "I've had accordion lessons since May", "I play squash on Fridays"),
    ("en-us", "forget what I told you about my family", "My stepdad fixed the fence", "My hamster bit me"),
    ("en-us", "which city am I based in", "We moved to the suburbs last year", "I'm a plumber"),
    ("en-us", "what vehicle do I have", "My motorbike is in for repairs", "I take insulin"),
    ("pt-pt", "qual é a minha profissão", "Sou canalizadora há dez anos", "O meu irmão mora em Faro"),
    ("pt-pt", "esquece o que te disse sobre animais", "O meu furão dorme numa caixa", "Tenho asma"),
    ("pt-pt", "esquece o que te disse sobre línguas", "Estou a aprender neerlandês", "Sou enfermeira"),
    ("es-es", "a qué me dedico", "Soy fontanera desde hace años", "Mi hermano vive en Cádiz"),
    ("es-es", "olvida lo que te dije de mi salud", "Me diagnosticaron artrosis", "Me encanta la paella"),
    ("es-es", "qué idioma estoy aprendiendo", "Me he apuntado a clases de euskera", "Tengo un galgo"),
    ("de-de", "was mache ich beruflich", "Ich bin Krankenpflegerin", "Meine Schwester wohnt in Bremen"),
    ("de-de", "vergiss was ich dir über Musik gesagt habe", "Ich spiele Bratsche im Orchester", "Ich habe Migräne"),
    ("de-de", "welches Fahrzeug habe ich", "Mein Motorrad steht in der Garage", "Ich lerne Japanisch"),
    # a club, the sport one practises, getting around, what one researches, free time
    ("pt-pt", "de que clube sou adepto", "Tenho lugar cativo no estádio do Braga", "Sou enfermeira"),
    ("pt-pt", "que modalidade pratico", "Vou à natação às quartas", "Moro em Tavira"),
    ("pt-pt", "como me desloco para o emprego", "Apanho o comboio das sete", "Adoro fado"),
    ("es-es", "de qué club soy", "Soy abonado del Levante", "Vivo en Teruel"),
    ("es-es", "cómo me muevo por Madrid", "Voy siempre en patinete", "Soy enfermera"),
    ("es-es", "qué estoy investigando", "Estoy con el doctorado en química", "Tengo un galgo"),
    ("es-es", "cuál es mi pasatiempo", "Los jueves juego al mus con mis vecinos", "Me operaron de la rodilla"),
    ("de-de", "welchen Verein unterstütze ich", "Ich habe eine Dauerkarte beim VfB", "Ich wohne in Ulm"),
    ("de-de", "was mache ich in meiner Freizeit", "Ich angle gern am Baggersee", "Ich bin Krankenpflegerin"),
    ("en-us", "what sport do I do", "I go rowing on the river at dawn", "I'm a plumber"),
    # college is not high school
    ("en-us", "where did I go to college", "I got my degree at a state university", "I took French in high school"),
    # a medication asked for is a drug, not every illness
    ("en-us", "what medication am I on", "I take metformin every morning", "I have asthma"),
    ("pt-pt", "que medicamentos é que eu tomo", "Tomo insulina ao jantar", "Tenho asma desde pequena"),
    ("es-es", "qué medicamentos tomo", "Tomo omeprazol cada mañana", "Tengo asma desde niña"),
    ("de-de", "welche Medikamente nehme ich", "Ich nehme Blutverdünner", "Ich habe Asthma"),
]


@pytest.mark.parametrize("lang, query, reached, other", REACHES)
def test_a_topic_reaches_its_memories_and_not_others(lang, query, reached, other):
    """Matched as the store matches (topic_words, FTS5 with the store's tokenizer): a
    question that names a topic reaches a memory that shares no word with it, and the
    topic's words do not reach a memory of another topic (a word the two share, such as
    "living" and "lives", is the query's own, not the topic's)."""
    import sqlite3
    from ovos_memory_service.common.resources import topics
    from ovos_memory_service.store.sqlite.keywords import TOKENIZER, match_expression
    from ovos_memory_service.common.words import keywords, topic_words
    topics.cache_clear()
    words = keywords(query, lang)
    related = [m for members in topic_words(words, lang).values() for m in members]
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (c, tokenize='{TOKENIZER}')")
    db.executemany("INSERT INTO t (rowid, c) VALUES (?, ?)", [(1, reached), (2, other)])
    found = {rowid for (rowid,) in db.execute("SELECT rowid FROM t WHERE t MATCH ?", [match_expression(related)])}
    assert found == {1}, f"{query!r} ({words}) reaches {found} through its topics"


def reached_by(lang, topic, texts):
    """The indexes of ``texts`` that the one-word topic ``topic`` reaches, as the store matches
    (its own word and its topic's words, FTS5 with the store's tokenizer)."""
    import sqlite3
    from ovos_memory_service.common.resources import topics
    from ovos_memory_service.store.sqlite.keywords import TOKENIZER, match_expression
    from ovos_memory_service.common.words import keywords, topic_words
    topics.cache_clear()
    words = keywords(topic, lang)
    terms = list(dict.fromkeys([*words, *(m for ms in topic_words(words, lang).values() for m in ms)]))
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (c, tokenize='{TOKENIZER}')")
    db.executemany("INSERT INTO t (rowid, c) VALUES (?, ?)", [(i + 1, x) for i, x in enumerate(texts)])
    return {rowid - 1 for (rowid,) in db.execute("SELECT rowid FROM t WHERE t MATCH ?", [match_expression(terms)])}


def topic_sentence_errors(lang):
    """(statement, its topic, what went wrong) for tests/data/topic_sentences.py."""
    from tests.data.topic_sentences import SENTENCES, TOPICS
    rows = [(topic, *(s if isinstance(s, tuple) else (s, set())))
            for topic, said in SENTENCES[lang].items() for s in said]
    texts = [text for _, text, _ in rows]
    reach = {topic: reached_by(lang, word, texts) for topic, word in TOPICS[lang].items()}
    errors = []
    for i, (topic, text, also) in enumerate(rows):
        if i not in reach[topic]:
            errors.append((text, topic, "missed"))
        wrong = sorted(other for other, found in reach.items() if i in found and other != topic and other not in also)
        if wrong:
            errors.append((text, topic, "also reached by " + ", ".join(wrong)))
    return errors


@pytest.mark.parametrize("lang", LANGS)
def test_everyday_statements_reach_their_topic_and_no_other(lang):
    """"forget what I told you about music" forgets the statements about music and nothing
    else: each everyday statement of tests/data/topic_sentences.py is reached by its topic's
    word, and by no other topic's (unless it names that topic too); KNOWN lists what the
    lexicon cannot tell (a destination, a word of two senses), as it was when first run."""
    from tests.data.topic_sentences import KNOWN, SENTENCES
    said = {s if isinstance(s, str) else s[0] for ss in SENTENCES[lang].values() for s in ss}
    assert set(KNOWN[lang]) <= said, set(KNOWN[lang]) - said
    errors = [e for e in topic_sentence_errors(lang) if e[0] not in KNOWN[lang]]
    assert not errors, "\n".join(f"{topic}: {text!r} {what}" for text, topic, what in errors)
