"""Everything a person does on the memory page, in a real headless Chromium,
against the real daemon on a real ovos-messagebus: what the page shows is
checked against what the bus answers, and what it changes is read back over
the bus. Each test has users of its own and signs in with a link from the
daemon (memory.admin.page, what ``ovos-memory page`` asks for)."""
import json
import time
from datetime import date, timedelta

import pytest

from ovos_memory_service.edge.page.words import LANGS, Words, catalog

pytestmark = pytest.mark.stack
say_en = Words("en-us")  # the page's words: the daemon's language is English


def remember(daemon, user: str, content: str, **data) -> str:
    return daemon.ok("memory.remember", {"content": content, "user_id": user, **data})["id"]


def listed(daemon, user: str, **data) -> list:
    """The user's memories over the bus, every persona, newest first: [(id, content)]."""
    found = daemon.ok("memory.list", {"user_id": user, "scope": "all", "limit": 200, **data})["memories"]
    return [(m["id"], m["content"]) for m in found]


def say(daemon, user: str, said: str, answer: str, session: str, persona: str = None, level: int = 3):
    """An exchange as the persona plugin sends it, by an identified speaker at ``level``."""
    data = {"messages": [{"role": "user", "content": said}, {"role": "assistant", "content": answer}],
            "user_id": user, **({"persona_id": persona} if persona else {})}
    return daemon.ok("memory.history.update", data, session_id=session, auth_level=level,
                     authenticated_at=time.time())["ids"]


def settled(browser, daemon):
    """Wait until the daemon's background work (embeddings, facts) is done."""
    browser.wait_until(lambda: daemon.ok("memory.stats")["pending_jobs"] == 0, "the background work to finish")


def owner(browser, daemon, user: str = None):
    """Signed in with the owner's link, on ``user``'s memories."""
    browser.sign_in(daemon.page_link())
    if user:
        browser.open("/memories", user=user)


# ---------------------------------------------------------------- signing in, browsing
def test_the_owners_link_signs_in_and_lists_every_user(browser, daemon):
    remember(daemon, "ava", "I play the cello")
    browser.sign_in(daemon.page_link())
    rows = {row.find_element("css selector", "th").text: row for row in browser.all("table.users tbody tr")}
    assert "ava" in rows
    browser.after_loading(lambda: rows["ava"].find_element("css selector", "a").click())
    assert [text for _, text in browser.memories()] == ["I play the cello"]


def test_memories_are_browsed_by_kind_persona_session_and_date_newest_first_with_provenance(browser, daemon):
    turns = say(daemon, "bea", "My sister lives in Berlin", "Berlin is lovely!", "kitchen", "butler", level=3)
    daemon.ok("memory.history.update", {"messages": [{"role": "user", "content": "What time is it?"}],
                                        "user_id": "bea"}, session_id="garden")
    remember(daemon, "bea", "My locker code is 4471", persona_id="sage", kind="fact")
    settled(browser, daemon)  # the fact model learns from the first exchange in the background
    learnt = [m for m in listed(daemon, "bea", kinds=["fact"]) if "Berlin" in m[1]]
    assert len(learnt) == 1, listed(daemon, "bea")
    owner(browser, daemon, "bea")
    shown = browser.memories()
    assert shown == listed(daemon, "bea")  # every memory, the bus's order
    times = [t.get_attribute("datetime") for t in browser.all("li.memory time")]
    assert times == sorted(times, reverse=True) and len(shown) >= 5  # newest first

    def show(**chosen):
        browser.open("/memories", user="bea")
        browser.find("#filters").find_element("xpath", "./ancestor::details/summary").click()
        for name, value in chosen.items():
            if name in ("from", "to"):  # a date input: set as its picker would
                browser.driver.execute_script("arguments[0].value = arguments[1]", browser.find(f"#f-{name}"), value)
            else:
                browser.choose(f"#f-{name}", value)
        browser.press("#show")
        return [text for _, text in browser.memories()]

    assert set(show(kind="fact")) == {"My locker code is 4471", learnt[0][1]}
    assert show(persona="sage") == ["My locker code is 4471"]
    assert set(show(session="kitchen")) == {"My sister lives in Berlin", "Berlin is lovely!", learnt[0][1]}
    assert show(session="garden") == ["What time is it?"]
    today, tomorrow = date.today(), date.today() + timedelta(days=1)
    assert len(show(**{"from": today.isoformat(), "to": today.isoformat()})) == len(shown)
    assert show(**{"from": tomorrow.isoformat()}) == []
    # one learnt fact: where it comes from, and who said it at which level
    browser.open("/memories", user="bea")
    browser.press(f'li.memory[data-id="{learnt[0][0]}"] a')
    assert [text for _, text in browser.memories("#sources")] == ["My sister lives in Berlin"]
    assert browser.find("#sources li.memory").get_attribute("data-id") == turns[0]
    source = browser.find("#sources li.memory .meta").text
    assert "Persona: butler" in source and "Session: kitchen" in source and "Identification level: 3 of 5" in source


# ---------------------------------------------------------------- searching, and what the persona is told
def test_search_finds_what_memory_recall_finds_with_its_score_and_order(browser, daemon):
    for said in ("My sister lives in Berlin", "My brother plays football", "I bought a red bicycle",
                 "My sister is a nurse"):
        remember(daemon, "cid", said)
    settled(browser, daemon)
    owner(browser, daemon)
    browser.open("/search", user="cid")
    browser.type("#s-query", "my sister")
    browser.choose("#s-limit", "5")
    browser.press("#search-button")
    threshold = float(browser.find("#s-threshold").get_attribute("value"))
    recalled = daemon.ok("memory.recall", {"query": "my sister", "limit": 5, "threshold": threshold, "scope": "all",
                                           "user_id": "cid"})["memories"]
    assert recalled and all("sister" in m["content"] for m in recalled)
    assert browser.memories("#results") == [(m["id"], m["content"]) for m in recalled]
    scores = [s.text for s in browser.all("#results .score")]
    assert scores == [line for m in recalled for line in (f"Score: {m['score']:.3f}",
                                                          f"Rank score: {m['rank_score']:.3f}")]
    assert browser.find("#s-query").get_attribute("value") == "my sister"  # and the question is in no address
    assert "sister" not in browser.driver.current_url


def test_the_context_preview_shows_what_the_persona_would_be_told_and_which_memories(browser, daemon):
    fact = remember(daemon, "dee", "My sister lives in Berlin")
    remember(daemon, "dee", "I bought a red bicycle")
    say(daemon, "dee", "Good morning", "Good morning, Dee!", "dee-room")
    settled(browser, daemon)
    owner(browser, daemon)
    browser.open("/context", user="dee")
    browser.type("#c-question", "Where does my sister live?")
    browser.choose("#c-session", "dee-room")
    browser.press("#context-button")
    # the same build for the person recognised at the level long-term memory needs
    built = daemon.ok("memory.context.build", {"utterance": "Where does my sister live?", "user_id": "dee"},
                      session_id="dee-room", auth_level=3, authenticated_at=time.time())
    said = [m.text for m in browser.all("#told pre.said")]
    assert said == [m["content"] or "" for m in built["messages"]]
    assert said[-1] == "Where does my sister live?" and "Good morning, Dee!" in said
    carried = [a.get_attribute("href").split("id=")[-1] for a in browser.all("#told ul.carried a")]
    assert fact in carried and fact in [m["id"] for m in built["memories"]]
    assert browser.text("#told-heading") == say_en("context.told", n=len(built["messages"]))


# ---------------------------------------------------------------- changing
def test_a_fact_is_corrected_through_the_fact_model(browser, daemon):
    wrong = remember(daemon, "eli", "I live in Porto")
    owner(browser, daemon)
    browser.open("/memory", user="eli", id=wrong)
    browser.type("#correct-content", "I live in Lisbon")
    browser.press("#correct-button")
    assert browser.text("#notice") == say_en("notice.corrected")
    assert [text for _, text in browser.memories()] == ["I live in Lisbon"]
    assert [text for _, text in listed(daemon, "eli")] == ["I live in Lisbon"]  # the wrong one is gone
    slot = browser.text("dl.facts").split("\n")
    assert "Lisbon" in " ".join(slot)  # the fact model filled its slot with the new value
    assert not daemon.ok("memory.recall", {"query": "Porto", "threshold": 0, "user_id": "eli"})["memories"] or \
        all("Porto" not in m["content"] for m in daemon.ok("memory.recall", {"query": "Porto", "threshold": 0,
                                                                             "user_id": "eli"})["memories"])


def test_a_memory_is_added(browser, daemon):
    owner(browser, daemon, "fay")
    browser.type("#add-content", "I am allergic to nuts")
    browser.choose("#add-kind", "preference")
    browser.press("#add-button")
    assert browser.text("#notice") == say_en("notice.added")
    (memory_id, text), = browser.memories()
    assert text == "I am allergic to nuts"
    found = daemon.ok("memory.list", {"user_id": "fay", "scope": "all", "kinds": ["preference"]})["memories"]
    assert [(m["id"], m["content"]) for m in found] == [(memory_id, "I am allergic to nuts")]


def test_one_memory_is_forgotten_after_it_is_shown(browser, daemon):
    keep = remember(daemon, "gus", "I play chess")
    go = remember(daemon, "gus", "My bank is in town")
    owner(browser, daemon)
    browser.open("/memory", user="gus", id=go)
    browser.press("#forget-this")
    assert browser.memories("#to-forget") == [(go, "My bank is in town")]
    assert listed(daemon, "gus") == [(go, "My bank is in town"), (keep, "I play chess")]  # not yet
    browser.press("#confirm-forget")
    assert browser.text("#notice") == say_en("notice.forgotten", n=1)
    assert listed(daemon, "gus") == [(keep, "I play chess")]


def test_several_memories_are_forgotten_exactly_as_ticked(browser, daemon):
    ids = {text: remember(daemon, "hal", text) for text in ("I like jazz", "I like rock", "I like opera")}
    settled(browser, daemon)
    owner(browser, daemon, "hal")
    browser.tick(ids["I like jazz"])
    browser.tick(ids["I like opera"])
    browser.press("#forget-selected")
    assert sorted(browser.memories("#to-forget")) == sorted([(ids["I like jazz"], "I like jazz"),
                                                            (ids["I like opera"], "I like opera")])
    browser.press("#confirm-forget")
    assert listed(daemon, "hal") == [(ids["I like rock"], "I like rock")]
    assert [text for _, text in browser.memories()] == ["I like rock"]


def test_a_topic_is_forgotten_after_every_item_it_takes_is_shown(browser, daemon):
    for text in ("My sister lives in Berlin", "My sister is a nurse", "I bought a red bicycle"):
        remember(daemon, "ida", text)
    settled(browser, daemon)
    owner(browser, daemon)
    browser.open("/search", user="ida")
    browser.type("#topic-query", "my sister")
    browser.press("#topic-button")
    dry = daemon.ok("memory.forget", {"query": "my sister", "dry_run": True, "scope": "all", "user_id": "ida",
                                      "limit": 50})
    shown = browser.memories("#to-forget")
    assert sorted(shown) == sorted((m["id"], m["content"]) for m in dry["memories"])
    assert {text for _, text in shown} >= {"My sister lives in Berlin", "My sister is a nurse"}
    assert browser.text("#confirm-count") == say_en("confirm.count", n=len(shown))
    browser.press("#confirm-forget")
    assert [text for _, text in listed(daemon, "ida")] == ["I bought a red bicycle"]


def test_everything_is_forgotten_after_it_is_counted_and_other_users_keep_theirs(browser, daemon):
    for text in ("I play golf", "I drive a van", "My cat is Tom"):
        remember(daemon, "jon", text)
    remember(daemon, "kim", "I play golf too")
    owner(browser, daemon, "jon")
    browser.press("#forget-all")
    assert len(browser.memories("#to-forget")) == 3
    browser.press("#confirm-forget")
    assert listed(daemon, "jon") == []
    assert [text for _, text in listed(daemon, "kim")] == ["I play golf too"]
    assert browser.text("#list-heading") == say_en("memories.count", n=0)


def test_remembering_is_paused_and_resumed(browser, daemon):
    owner(browser, daemon, "lia")
    browser.press("#pause")
    assert browser.text("#remembering") == say_en("status.paused")
    stored = daemon.ok("memory.history.update", {"messages": [{"role": "user", "content": "I like figs"}],
                                                 "user_id": "lia"}, session_id="lia-room")
    assert stored["paused"] is True and listed(daemon, "lia") == []
    browser.press("#resume")
    assert browser.text("#remembering") == say_en("status.on")
    daemon.ok("memory.history.update", {"messages": [{"role": "user", "content": "I like figs"}], "user_id": "lia"},
              session_id="lia-room")
    assert [text for _, text in listed(daemon, "lia", kinds=["turn"])] == ["I like figs"]


def test_memories_are_exported_and_imported_in_the_command_lines_format(browser, daemon, downloads):
    for text in ("I play the drums", "My dog is Rex"):
        remember(daemon, "max", text)
    before = listed(daemon, "max")
    owner(browser, daemon)
    browser.open("/transfer", user="max")
    browser.find("#export").click()
    exported = downloads / "ovos-memories.jsonl"
    browser.wait_until(lambda: exported.exists() and exported.stat().st_size > 0, "the export to download")
    records = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    cli = daemon.ok("memory.admin.export", {"filter": {"user_id": "max"}, "limit": 500})["records"]
    assert sorted(r["id"] for r in records) == sorted(r["id"] for r in cli) == sorted(i for i, _ in before)
    daemon.ok("memory.forget", {"all": True, "user_id": "max"})
    assert listed(daemon, "max") == []
    browser.find("#import-file").send_keys(str(exported))
    browser.press("#import-button")
    assert browser.text("#notice") == say_en("notice.imported", n=2, skipped=0)
    assert sorted(listed(daemon, "max")) == sorted(before)
    exported.unlink()


def test_health_shows_the_counts_the_model_pending_work_and_disk(browser, daemon):
    remember(daemon, "ned", "I play the oboe", kind="fact")
    settled(browser, daemon)
    owner(browser, daemon)
    browser.open("/health", user="ned")
    stats = daemon.ok("memory.stats", {"user_id": "ned"})
    counts = {s.get_attribute("data-count"): int(s.text) for s in browser.all("#health [data-count]")}
    assert counts == {kind: stats["counts"].get(kind, 0) for kind in counts} and counts["fact"] == 1
    assert browser.text("#model") == stats["embedding_model"]
    assert browser.text("#pending") == "0"
    assert browser.text("#disk").endswith(("KB", "MB", "GB"))


# ---------------------------------------------------------------- live, languages, phones, keyboards
def test_changes_made_elsewhere_appear_without_reloading(browser, daemon):
    first = remember(daemon, "ola", "I swim on Sundays")
    settled(browser, daemon)
    owner(browser, daemon, "ola")
    browser.driver.execute_script("window.sameDocument = 'yes'")  # gone if the page were reloaded
    # by voice (the bus), as the skill or the persona would
    said = remember(daemon, "ola", "I run on Mondays")
    browser.wait_until(lambda: said in [i for i, _ in browser.memories()], "the new memory to appear")
    assert browser.text("#notice") == say_en("live.updated")
    assert browser.find("#list-heading").text == say_en("memories.count", n=2)
    # from another tab: forget the first one there
    here = browser.driver.current_window_handle
    browser.driver.switch_to.new_window("tab")
    browser.open("/memory", user="ola", id=first)
    browser.press("#forget-this")
    browser.press("#confirm-forget")
    browser.driver.close()
    browser.driver.switch_to.window(here)
    browser.wait_until(lambda: first not in [i for i, _ in browser.memories()], "the forgotten memory to go")
    assert browser.driver.execute_script("return window.sameDocument") == "yes"
    assert [i for i, _ in browser.memories()] == [said]


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en-us"])
def test_the_page_speaks_the_chosen_language(browser, daemon, lang):
    remember(daemon, "pia", "I like cake")
    owner(browser, daemon, "pia")
    assert browser.find("html").get_attribute("lang") == "en-us"  # the device's language first
    browser.choose("#lang-choice", lang)
    browser.press("header form[action='/lang'] button")
    words = Words(lang)
    assert browser.find("html").get_attribute("lang") == lang
    assert browser.text("h1") == words("memories.heading", user="pia")  # back where it was
    assert browser.text("#remembering") == words("status.on")
    assert browser.text("#list-heading") == words("memories.count", n=1)
    assert browser.find("#pause").text == words("status.pause")
    browser.open("/search", user="pia")  # and it stays so for the session
    assert browser.text("h1") == words("search.heading") != catalog("en-us")["search.heading"]
    browser.choose("#lang-choice", "en-us")
    browser.press("header form[action='/lang'] button")
    assert browser.find("html").get_attribute("lang") == "en-us"


PAGES = ("/memories", "/search", "/context", "/transfer", "/health")


def test_every_page_fits_a_phone_and_works_by_touch(browser, daemon):
    go = remember(daemon, "quy", "My sister lives in Berlin, in a flat with a very long street name: "
                                 "Karl-Liebknecht-Strasse-und-noch-viel-mehr-ohne-Leerzeichen")
    settled(browser, daemon)
    browser.driver.set_window_size(390, 844)
    owner(browser, daemon)
    width = browser.driver.execute_script("return window.innerWidth")
    assert width <= 400
    for path in ("/", *PAGES, "/memory"):
        browser.open(path, user="quy", id=go if path == "/memory" else None)
        assert not browser.problem(), path
        wide = browser.driver.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width, f"{path} is {wide} px wide on a {width} px phone"
    browser.open("/memories", user="quy")
    for button in browser.all("main button"):
        if button.is_displayed():
            assert button.size["height"] >= 40, button.text  # a finger's size
    browser.find(f'li.memory[data-id="{go}"] input[type=checkbox]').click()
    browser.press("#forget-selected")
    browser.press("#confirm-forget")
    assert listed(daemon, "quy") == []


def unlabelled(browser) -> list:
    """Form controls a screen reader could not name, and buttons or links without words."""
    return browser.driver.execute_script("""
        var bad = [];
        document.querySelectorAll('input:not([type=hidden]), select, textarea').forEach(function (c) {
            var named = (c.id && document.querySelector('label[for="' + c.id + '"]')) || c.closest('label')
                        || c.getAttribute('aria-label');
            if (!named) { bad.push(c.outerHTML); }
        });
        document.querySelectorAll('button, a').forEach(function (c) {
            if (!c.textContent.trim() && !c.getAttribute('aria-label')) { bad.push(c.outerHTML); }
        });
        return bad;""")


def test_every_control_has_a_name_and_the_page_works_by_keyboard(browser, daemon):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    item = remember(daemon, "ria", "I collect stamps")
    settled(browser, daemon)
    owner(browser, daemon)
    for path in ("/", *PAGES, "/memory"):
        browser.open(path, user="ria", id=item if path == "/memory" else None)
        assert unlabelled(browser) == [], path
        assert browser.all("main h1") and browser.find("html").get_attribute("lang")
    browser.open("/memories", user="ria")
    keys = ActionChains(browser.driver)

    def tab_to(css: str, most: int = 60):
        """Press Tab until ``css`` has the focus (as a person who cannot use a mouse)."""
        for _ in range(most):
            keys.send_keys(Keys.TAB).perform()
            if browser.driver.execute_script("return document.activeElement.matches(arguments[0])", css):
                return
        raise AssertionError(f"Tab never reaches {css}")

    tab_to("a.skip")  # the first stop skips to the content
    tab_to("details:has(#add) > summary")
    keys.send_keys(Keys.ENTER).perform()  # opens the add form
    tab_to("#add-content")
    keys.send_keys("I speak Finnish").perform()
    tab_to("#add-button")
    browser.after_loading(lambda: keys.send_keys(Keys.ENTER).perform())
    assert browser.text("#notice") == say_en("notice.added")
    assert "I speak Finnish" in [text for _, text in listed(daemon, "ria")]
    # the notice is announced to a screen reader
    assert browser.find("#notice").get_attribute("aria-live") == "polite"
