"""The README's screenshot of the memory page: a demo daemon on a real bus
with a few sample memories, photographed by Debian's headless Chromium.

    python -m tests.page.screenshot docs/page.png
"""
import sys
import tempfile
import time
from pathlib import Path

from tests.isolation import isolate

isolate(tempfile.mkdtemp(prefix="ovos-memory-screenshot-"))

from tests.page.browser import PageBrowser, quit_chromium, start_chromium  # noqa: E402
from tests.sandbox import Stack  # noqa: E402

SIZE = (760, 900)
SAID = [  # (session, persona, what the person said, the assistant's answer)
    ("kitchen", "butler", "My sister Ana lives in Berlin", "Berlin is a lovely city!"),
    ("kitchen", "butler", "I'm allergic to peanuts", "I'll keep that in mind."),
    ("living-room", "sage", "I play the cello on Sundays", "What a nice way to spend a Sunday."),
]


def photograph(out: Path):
    stack = Stack(Path(tempfile.mkdtemp(prefix="page-demo-")), {"page": {"refresh_seconds": 0}})
    driver = None
    try:
        stack.start_service()
        for session, persona, said, answer in SAID:
            stack.ok("memory.history.update", {"user_id": "ana", "persona_id": persona, "messages": [
                {"role": "user", "content": said}, {"role": "assistant", "content": answer}]},
                session_id=session, auth_level=3, authenticated_at=time.time())
        stack.ok("memory.remember", {"user_id": "ana", "content": "I prefer tea to coffee", "kind": "preference"})
        while stack.ok("memory.stats")["pending_jobs"]:  # the facts are learnt in the background
            time.sleep(0.1)
        driver = start_chromium(size=SIZE)
        browser = PageBrowser(driver, stack.page_link().split("/login")[0])
        browser.sign_in(stack.page_link())
        browser.open("/memories", user="ana")
        driver.save_screenshot(str(out))
        shrink(out)
    finally:
        if driver is not None:
            quit_chromium(driver)
        stack.close()


def shrink(png: Path):
    """64 colours are plenty for a page of text: a quarter of the bytes (where Pillow is installed)."""
    try:
        from PIL import Image
    except ImportError:
        return
    image = Image.open(png).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(png, optimize=True)


if __name__ == "__main__":
    photograph(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/page.png").resolve())
