"""Turn latency with an LLM endpoint healthy, hung and down, in one run.

For each endpoint state, a fresh engine whose persona is a composite of
``longterm`` (summarize_every 6, recent_window 4), ``entity`` (LLM facts) and
``lexical`` stores ``--exchanges`` exchanges; every exchange is one
``update_history`` ([user, assistant], as ovos-persona 0.9.0a35 sends) and one
``build_context``, timed in-process (the service's own time; the bus hop is
bench_latency.py's subject). The endpoint is the tests' local OpenAI-style
server (tests/openai_stub.py), answering at once ("healthy"), accepting and
never answering ("hung", request_timeout 30 s) or refusing connections
("down"); "no LLM" is the same composite with ``api_url`` "". The seed's
backends spend 20 s (entity) and 40 s (longterm) per exchange on a hung endpoint.

Also printed: how long, after the last exchange, the summary and facts took to
be written with the healthy endpoint.

    python benchmarks/bench_llm.py                  # 60 exchanges per state
    python benchmarks/bench_llm.py --exchanges 20
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.isolation import isolate  # noqa: E402

isolate(tempfile.mkdtemp(prefix="ovos-memory-bench-llm-"))

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

from ovos_memory_service.common.config import build_config  # noqa: E402
from ovos_memory_service.engine.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.common.wire import parse_messages  # noqa: E402
from tests.sandbox import free_port, wait_port  # noqa: E402

SCOPE = Scope("alice", "kitchen", "sage", "en-us")


class Endpoint:
    """The stand-in endpoint in its own process, as a real one would be."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.proc = None

    def start(self, mode: str):
        self.stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.openai_stub", str(self.port), mode],
                                     cwd=ROOT)
        wait_port(self.port)

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()
            self.proc = None


def persona(api_url: str) -> dict:
    endpoint = {"api_url": api_url, "model": "m", "request_timeout": 30}
    return {"memory_module": "ovos-memory-plugin-composite", "ovos-memory-plugin-composite": {
        "members": [{"module": "ovos-memory-plugin-longterm", "config": endpoint},
                    {"module": "ovos-memory-plugin-entity", "config": endpoint},
                    {"module": "ovos-memory-plugin-lexical"}]}}


def ms(samples, q):
    return statistics.quantiles(samples, n=100)[q - 1] * 1000 if q != 50 else statistics.median(samples) * 1000


def run(state: str, exchanges: int, endpoint: Endpoint) -> dict:
    url = "" if state == "no LLM" else endpoint.url
    engine = MemoryEngine(build_config({"data_dir": tempfile.mkdtemp(), "personas": {"sage": persona(url)},
                                        "embeddings": {"enabled": False}}))
    engine.open()
    updates, builds = [], []
    try:
        for i in range(exchanges):
            city = "I live in Porto these days" if i % 10 == 0 else f"tell me about topic {i}"
            messages = parse_messages([{"role": "user", "content": city},
                                       {"role": "assistant", "content": f"here is answer {i}"}])
            started = time.perf_counter()
            engine.update_history(SCOPE, messages)
            updates.append(time.perf_counter() - started)
            started = time.perf_counter()
            engine.build_context(SCOPE, f"what about topic {i}?")
            builds.append(time.perf_counter() - started)
        done = time.perf_counter()
        settled = None
        if state == "healthy":
            while engine.background.llm.pending() and time.perf_counter() - done < 120:
                time.sleep(0.005)
            settled = time.perf_counter() - done
        # the same builds once no background work runs (summary in place, for healthy)
        idle = []
        for i in range(exchanges):
            started = time.perf_counter()
            engine.build_context(SCOPE, f"what about topic {i}?")
            idle.append(time.perf_counter() - started)
        counts = engine.stats(SCOPE)["counts"]
        return {"state": state, "update": updates, "build": builds, "idle": idle, "settled": settled,
                "summaries": counts["summary"], "facts": counts["fact"], "queued": engine.background.llm.pending()}
    finally:
        engine.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=60)
    args = parser.parse_args()
    endpoint = Endpoint()
    run("no LLM", 5, endpoint)  # warm-up: imports, first queries
    results = [run("no LLM", args.exchanges, endpoint)]
    try:
        for state in ("healthy", "hung"):
            endpoint.start(state)
            results.append(run(state, args.exchanges, endpoint))
    finally:
        endpoint.stop()
    results.append(run("down", args.exchanges, endpoint))
    base = statistics.median(results[0]["update"]) + statistics.median(results[0]["build"])
    print(f"{args.exchanges} exchanges per state, in-process, ms")
    print(f"{'endpoint':<9} {'update p50':>10} {'p95':>7} {'build p50':>10} {'p95':>7} {'ratio':>6}"
          f" {'idle build p50':>14} {'summaries':>9} {'facts':>6} {'queued':>6}")
    for r in results:
        ratio = (statistics.median(r["update"]) + statistics.median(r["build"])) / base
        print(f"{r['state']:<9} {ms(r['update'], 50):>10.2f} {ms(r['update'], 95):>7.2f} "
              f"{ms(r['build'], 50):>10.2f} {ms(r['build'], 95):>7.2f} {ratio:>6.2f} {ms(r['idle'], 50):>14.2f} "
              f"{r['summaries']:>9} {r['facts']:>6} {r['queued']:>6}")
    print(f"healthy: summary and facts written {results[1]['settled']:.2f} s after the last exchange")
    print("ratio: (update p50 + build p50) against no LLM; idle build: the same builds after the exchanges,\n"
          "with no background work running (healthy: its summary and facts in place)")


if __name__ == "__main__":
    main()
