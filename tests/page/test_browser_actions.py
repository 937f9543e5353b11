"""Everything a person does on the memory page, in a real headless Chromium,
against the real daemon on a real ovos-messagebus: what the page shows is
checked against what the bus answers, and what it changes is read back over
the bus. Each test has users of its own and signs in with a link from the
daemon (memory.admin.page, what ``ovos-memory page`` asks for)."""
import json
import time
from datetime import date, timedelta

import pytest

from ovos_memory_service.edge.page.words import LANGS, catalog

pytestmark = pytest.mark.stack


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
