"""The service's configuration: the ``memory_service`` section of mycroft.conf
merged over the defaults below (which alone give a working, offline service).
"""
import copy
import difflib
import os
import re
from os.path import expanduser, join

from ovos_config import Configuration
from ovos_utils.log import LOG

from ovos_memory_service.common.access import check_levels
from ovos_memory_service.common.blocks import BUILTIN_NAMES, ENTRY_POINT_NAMES, llm_endpoint

DEFAULT_MEMORY_MODULE = "ovos-memory-plugin-composite"
# hybrid recall: the recent window, keywords and meaning fused by rank, and the
# facts known about the user
# (weights, rrf_k, fetch depth and neighbor_weight tuned on LoCoMo's development split;
# fetching 20 of each member instead of 50 recalls as well and builds faster: docs/benchmarks.md)
DEFAULT_COMPOSITE = {
    "members": [
        {"module": "ovos-memory-plugin-lexical", "weight": 1.0},
        {"module": "ovos-memory-plugin-local-rag", "weight": 0.7},
        # facts from the rule-based extractor; set an api_url to add an LLM's
        {"module": "ovos-memory-plugin-entity", "config": {"api_url": ""}},
    ],
    "fusion": "rrf",
    "rrf_k": 10,
    "member_fetch_k": 20,
    "neighbor_weight": 0.2,
    "speaker_boost": 0.5,
    "time_boost": 2.0,
    "time_scale_days": 7,
    "max_num_results": 5,
}

DEFAULTS = {
    # where the SQLite store lives; "" means $XDG_DATA_HOME/ovos-memory-service
    "data_dir": "",
    # language for stop words when the session carries none; "" means mycroft.conf "lang"
    "lang": "",
    # a new conversation starts after this long without a stored update (Memori's default)
    "session_timeout_minutes": 30,
    # the backend of every persona that has no configuration of its own
    "memory_module": DEFAULT_MEMORY_MODULE,
    # that backend's block, keyed by its name as in a persona JSON
    DEFAULT_MEMORY_MODULE: DEFAULT_COMPOSITE,
    # per-persona backends: {"<persona_id>": {"memory_module": ..., "<module>": {...}}}
    "personas": {},
    # map a session_id or site_id to a user_id (several satellites, one person)
    "users": {},
    # the lowest authentication level (OVOS-USER-ID-1, 0-5) at which an identified speaker's
    # memories enter a context build, are read aloud, and can be forgotten by voice (common/access.py)
    "access_levels": {"context": 3, "read_aloud": 3, "forget": 3},
    # long-term sharing between personas of one user (attributes are always per persona)
    "share_turns_across_personas": False,
    "share_facts_across_personas": True,
    # Memori's manual recall settings
    "recall_facts_limit": 5,
    "recall_relevance_threshold": 0.6,
    "recall_embeddings_limit": 1000,
    # forgetting by query takes only what is clearly about it
    "forget_relevance_threshold": 0.8,
    # protection against overload: requests beyond this many in flight get "unavailable"
    "max_pending_requests": 64,
    # semantic recall: fastembed model (env OVOS_MEMORY_EMBEDDINGS_MODEL wins), an optional
    # local model folder, onnxruntime threads (0: automatic), batch size of the queue
    "embeddings": {"enabled": True, "model": "", "model_path": "", "threads": 0, "batch_size": 16},
    # memory.recall in English: a cross-encoder reorders its first ``candidates`` (extra
    # "rerank"; models/reranker.py); off without the extra or with enabled false
    "rerank": {"enabled": True, "candidates": 25},
    # memory.recall and forgetting by topic judged by a chat model (engine/judge.py): an
    # OpenAI-compatible endpoint reads the ``candidates`` best memories with the question; ""
    # (the default) asks none, and then nothing leaves the device
    "judge": {"api_url": "", "model": "", "api_key": "", "request_timeout": 5, "candidates": 8},
    # the vector index is compacted this often while it receives vectors
    "vector_compact_minutes": 10,
    # where memories are kept: "sqlite" (SQLite + LanceDB in data_dir, one process) or
    # "postgresql" (one database shared by several daemons: dsn "postgresql://user@host/db",
    # "" for the PG* environment variables; the tables live in schema ``schema``)
    "store": {"backend": "sqlite", "dsn": "", "schema": "ovos_memory"},
    # the daemon hosts the voice skill ("what do you remember about me", "forget that"...)
    "voice_commands": True,
    # the voice skill: how many memories it reads aloud (a forget confirmation reads them all,
    # or counts them when there are more), and how many "forget <topic>" looks for;
    # wait_for_audio: wait for the end of a question's speech before listening ("auto": only
    # when an audio service answers mycroft.audio.is_alive; true; false)
    "voice": {"spoken_items": 3, "forget_limit": 20, "wait_for_audio": "auto"},
    # the page where people see, correct and forget their memories (edge/page/, docs/page.md):
    # served by the daemon on 127.0.0.1 only unless ``host`` says otherwise; nothing is shown
    # without a link from ``ovos-memory page``, valid once for ``link_minutes``; a signed-in
    # browser stays signed in for ``session_minutes``; ``url``: the links' base ("" from host and
    # port); ``allowed_hosts``: names the page may be reached by besides addresses and localhost
    "page": {"enabled": True, "host": "127.0.0.1", "port": 8760, "url": "", "allowed_hosts": [],
             "link_minutes": 15, "session_minutes": 1440, "login_attempts_per_minute": 5,
             "refresh_seconds": 3, "max_upload_mb": 32},
}
# nested objects merged key by key over their defaults
NESTED = ("embeddings", "rerank", "judge", "voice", "store", "access_levels", "page")
PAGE_LIMITS = {"port": (0, 65535), "link_minutes": (0.01, 24 * 60), "session_minutes": (0.01, 60 * 24 * 365),
               "login_attempts_per_minute": (1, 1000), "refresh_seconds": (0, 3600), "max_upload_mb": (1, 1024)}
PAGE_INTEGERS = ("port", "login_attempts_per_minute", "max_upload_mb")
VOICE_LIMITS = {"spoken_items": (1, 20), "forget_limit": (1, 50)}

NUMBER_LIMITS = {
    "session_timeout_minutes": (0.01, 60 * 24 * 365),
    "recall_facts_limit": (1, 50),
    "recall_relevance_threshold": (0.0, 1.0),
    "forget_relevance_threshold": (0.0, 1.0),
    "recall_embeddings_limit": (1, 1_000_000),
    "max_pending_requests": (1, 100_000),
    "vector_compact_minutes": (0.01, 60 * 24),
}


def read_mycroft_conf() -> dict:
    """The ``memory_service`` section and the global ``lang`` of mycroft.conf."""
    conf = Configuration()
    section = dict(conf.get("memory_service") or {})
    section.setdefault("lang", conf.get("lang") or "")
    return section


def reload_mycroft_conf() -> dict:
    """mycroft.conf read again from its files (SIGHUP), as ``read_mycroft_conf``."""
    Configuration.reload()
    return read_mycroft_conf()


def read_bus_settings() -> dict:
    """Where the messagebus is: mycroft.conf's ``websocket`` over the bus's defaults."""
    return {"host": "127.0.0.1", "port": 8181, "route": "/core", "ssl": False,
            **(Configuration().get("websocket") or {})}


def build_config(overrides: dict = None) -> dict:
    """Defaults merged with ``overrides``, validated; raises ValueError naming the key."""
    config = copy.deepcopy(DEFAULTS)
    warn_unknown_keys(overrides or {})
    for key, value in (overrides or {}).items():
        if key in NESTED and isinstance(value, dict):
            config[key].update(copy.deepcopy(value))
        else:
            config[key] = copy.deepcopy(value)
    validate(config)
    return config


def replace_config(held: dict, new: dict):
    """Make ``held`` say what ``new`` says. The service's configuration is one
    dict, which the engine and every part it builds (the reader, the persona
    registry, the workers, the voice skill) keep and read at each use: a
    reload (SIGHUP) changes it there, once."""
    held.update(new)
    for key in [k for k in held if k not in new]:
        del held[key]


def unknown_keys(overrides: dict) -> list:
    """``(dotted key, nearest valid dotted key or None)`` for every key of the
    ``memory_service`` section that is not a setting: top-level keys, and the
    keys of the nested objects (``embeddings.*``, ``voice.*``). A backend's block
    (a built-in name, long or short, or any key naming a plugin) is not checked
    here: its backend checks it."""
    backends = set(BUILTIN_NAMES) | set(ENTRY_POINT_NAMES)
    found = []
    for key, value in (overrides or {}).items():
        if not isinstance(key, str):
            continue
        if key in NESTED and isinstance(value, dict):
            valid = list(DEFAULTS[key])
            for sub in value:
                if isinstance(sub, str) and sub not in valid:
                    near = difflib.get_close_matches(sub, valid, n=1, cutoff=0.6)
                    found.append((f"{key}.{sub}", f"{key}.{near[0]}" if near else None))
        elif key not in DEFAULTS and key not in backends and "plugin" not in key \
                and key != (overrides.get("memory_module") or DEFAULTS["memory_module"]):
            near = difflib.get_close_matches(key, list(DEFAULTS) + sorted(backends), n=1, cutoff=0.6)
            found.append((key, near[0] if near else None))
    return found


def warn_unknown_keys(overrides: dict):
    """One warning per unknown key (a misspelt key silently keeps its default)."""
    for key, near in unknown_keys(overrides):
        LOG.warning(f"memory_service.{key} is not a setting" + (f"; did you mean {near}?" if near else ""))


def validate(config: dict):
    for key, (low, high) in NUMBER_LIMITS.items():
        value = config[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise ValueError(f"memory_service.{key} must be a number in [{low}, {high}], got {value!r}")
    for key in ("personas", "users"):
        if not isinstance(config[key], dict):
            raise ValueError(f"memory_service.{key} must be an object")
    for persona_id, block in config["personas"].items():
        if not isinstance(block, dict) or not isinstance(block.get("memory_module", ""), str):
            raise ValueError(f"memory_service.personas.{persona_id} must be an object with a memory_module")
    if not isinstance(config["memory_module"], str) or not config["memory_module"]:
        raise ValueError("memory_service.memory_module must be a backend name")
    if not isinstance(config["embeddings"], dict):
        raise ValueError("memory_service.embeddings must be an object")
    rerank = config["rerank"]
    if not isinstance(rerank, dict) or not isinstance(rerank.get("enabled"), bool):
        raise ValueError("memory_service.rerank must be an object with enabled true or false")
    check_integer(rerank.get("candidates"), "rerank.candidates", 1, 50)
    check_judge(config["judge"])
    if not isinstance(config["voice"], dict):
        raise ValueError("memory_service.voice must be an object")
    for key, (low, high) in VOICE_LIMITS.items():
        check_integer(config["voice"].get(key), f"voice.{key}", low, high)
    store = config["store"]
    if not isinstance(store, dict) or store.get("backend") not in ("sqlite", "postgresql"):
        raise ValueError("memory_service.store.backend must be \"sqlite\" or \"postgresql\"")
    if not isinstance(store.get("dsn"), str):
        raise ValueError("memory_service.store.dsn must be a string")
    if not isinstance(store.get("schema"), str) or not re.match(r"^[a-z_][a-z0-9_]{0,47}$", store["schema"]):
        raise ValueError("memory_service.store.schema must be a lowercase SQL name")
    config["access_levels"] = check_levels(config["access_levels"])
    check_page(config["page"])
    check_integer(config["embeddings"].get("threads") or 0, "embeddings.threads", 0, 64)


def check_integer(value, key: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"memory_service.{key} must be an integer from {low} to {high}, got {value!r}")


def check_judge(judge) -> None:
    """The ``judge`` block: an endpoint, or ``api_url`` "" for none, its other keys
    right either way; ValueError naming the key."""
    if not isinstance(judge, dict):
        raise ValueError("memory_service.judge must be an object")
    if not isinstance(judge.get("api_url"), str):
        raise ValueError("memory_service.judge.api_url must be an http(s) URL or \"\"")
    for key in ("model", "api_key"):
        if not isinstance(judge.get(key), str):
            raise ValueError(f"memory_service.judge.{key} must be a string")
    timeout = judge.get("request_timeout")
    # a bus client waits 10 s for a reply: the judge must have answered or been given up by then
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0.1 <= timeout <= 8:
        raise ValueError(f"memory_service.judge.request_timeout must be seconds from 0.1 to 8, got {timeout!r}")
    check_integer(judge.get("candidates"), "judge.candidates", 1, 25)
    try:
        llm_endpoint(judge, "")
    except ValueError as e:
        raise ValueError(f"memory_service.judge.{e}") from None


def check_page(page) -> None:
    """The ``page`` block: types and ranges; ValueError naming the key."""
    if not isinstance(page, dict):
        raise ValueError("memory_service.page must be an object")
    if not isinstance(page.get("enabled"), bool):
        raise ValueError("memory_service.page.enabled must be true or false")
    for key in ("host", "url"):
        if not isinstance(page.get(key), str):
            raise ValueError(f"memory_service.page.{key} must be a string")
    if not page["host"].strip():
        raise ValueError("memory_service.page.host must name an address (127.0.0.1, 0.0.0.0, ...)")
    if page["url"] and not re.match(r"^https?://[^/?#\s]+/?$", page["url"]):
        raise ValueError("memory_service.page.url must be http(s)://host[:port], or \"\"")
    hosts = page.get("allowed_hosts")
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h.strip() for h in hosts):
        raise ValueError("memory_service.page.allowed_hosts must be a list of host names")
    for key, (low, high) in PAGE_LIMITS.items():
        value = page.get(key)
        whole = not isinstance(value, bool) and isinstance(value, int)
        if not (whole or (key not in PAGE_INTEGERS and isinstance(value, float))) or not low <= value <= high:
            kind = "an integer" if key in PAGE_INTEGERS else "a number"
            raise ValueError(f"memory_service.page.{key} must be {kind} from {low} to {high}, got {value!r}")


def data_dir(config: dict) -> str:
    """The data directory, read at call time so tests can move XDG_DATA_HOME."""
    if config.get("data_dir"):
        return expanduser(config["data_dir"])
    base = os.environ.get("XDG_DATA_HOME") or join(expanduser("~"), ".local", "share")
    return join(base, "ovos-memory-service")


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or join(expanduser("~"), ".cache")
    return join(base, "ovos-memory-service")


def default_persona_block(config: dict) -> dict:
    """The persona-JSON-shaped block used by personas with no configuration."""
    module = config["memory_module"]
    return {"memory_module": module, module: config.get(module) or {}}
