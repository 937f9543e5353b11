"""The backend blocks of a persona JSON (and of ``memory_service``'s own
configuration): the names a backend goes by, and what the block of each
built-in backend may say, read and checked without building the backend.

The daemon's backends (backends/) are built from what these functions
return; the persona plugin (plugins/persona_plugin.py) runs the same checks
when ovos-persona loads it, with or without the daemon. A bad value raises a
ValueError that names its key.
"""
from dataclasses import dataclass
from urllib.parse import urlsplit
from typing import List, NamedTuple, Optional

from ovos_utils.log import LOG

# the seed's entry-point names and ovos-persona's own short-term memory, by their short names
ENTRY_POINT_NAMES = {
    "ovos-memory-plugin-recency": "recency",
    "ovos-memory-plugin-lexical": "lexical",
    "ovos-memory-plugin-local-rag": "local-rag",
    "ovos-memory-plugin-composite": "composite",
    "ovos-memory-plugin-entity": "entity",
    "ovos-memory-plugin-longterm": "longterm",
    "ovos-agents-short-term-memory-plugin": "short-term",
}
BUILTIN_NAMES = ("recency", "short-term", "lexical", "local-rag", "composite", "entity", "longterm")
# this project's own opm.agents.memory entry point (persona side): never loaded in the daemon
PERSONA_PLUGIN = "ovos-memory-service-plugin"

# keys of the seed's backends that name their own files or stores: the service
# keeps everything in its own store, so they are accepted and ignored
STORAGE_KEYS = ("db_path", "backend", "table", "collection", "embeddings_plugin",
                "embeddings_config", "embeddings_db_plugin", "embeddings_db_config")
INJECT_MODES = ("system", "developer", "system_prompt", "user", "tool")
FUSIONS = ("rrf", "weighted", "merge", "priority", "interleave")
QUERY_MODES = ("utterance", "history")
SCOPES = {"global": "user", "session": "session"}
DEFAULT_API_URL = "http://localhost:8000/v1"
DEFAULT_HEADER = ("Use the following recalled context to answer the user's question. "
                  "If the answer is not in the context, rely on the conversation instead.")
DEFAULT_SYSTEM_PROMPT_TEMPLATE = "{system}\n\n{header}\n\nContext:\n{context}"
DEFAULT_USER_TEMPLATE = "{header}\n\nContext:\n{context}\n\nQuestion: {utterance}"


# ------------------------------------------------------------------ names
def canonical_name(name: str) -> str:
    """``ovos-memory-plugin-lexical`` and ``lexical`` are the same backend."""
    return ENTRY_POINT_NAMES.get(name, name)


def block_for(persona: dict, name: str) -> dict:
    """A persona JSON keys the backend's block by the name it used, long or short."""
    canonical = canonical_name(name)
    aliases = [n for n, short in ENTRY_POINT_NAMES.items() if short == canonical]
    for key in (name, canonical, *aliases):
        if key in persona:
            return persona[key] or {}
    return {}


PERSONA_PLUGIN_INSIDE = (f"{PERSONA_PLUGIN} connects a persona to this service; inside the service, "
                         "name a backend (e.g. ovos-memory-plugin-composite)")


def check_block(name: str, block):
    """Check ``block`` as the built-in backend ``name`` reads it; any other
    name may be a plugin installed beside the daemon only, which the daemon
    checks when told about it."""
    if name == PERSONA_PLUGIN:
        raise ValueError(PERSONA_PLUGIN_INSIDE)
    canonical = canonical_name(name)
    readers = {"recency": recency_block, "short-term": recency_block, "lexical": retrieval_block,
               "local-rag": retrieval_block, "entity": entity_block, "longterm": longterm_block,
               "composite": _check_composite}
    if canonical in readers:
        readers[canonical](object_block(block, canonical), canonical)


# ------------------------------------------------------------ one key each
def object_block(block, name: str) -> dict:
    """``block`` if it is an object; every reader below takes one."""
    if not isinstance(block, dict):
        raise ValueError(f"the {name} block must be an object")
    return block


def int_key(config: dict, key: str, default: int, low: int = 0, high: int = 10_000) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} must be an integer in [{low}, {high}], got {value!r}")
    return value


def optional_number(config: dict, key: str, low: float = None, high: float = None):
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{key} must be a number in [{low}, {high}] or null, got {value!r}")
    return float(value)


def ignored_storage_keys(config: dict) -> List[str]:
    return [k for k in STORAGE_KEYS if k in config]


@dataclass(frozen=True)
class InjectSettings:
    """How recalled memories are folded into the messages (backends/inject.py)."""
    inject_mode: str = "system"
    system_prompt: str = ""
    header: str = DEFAULT_HEADER
    chunk_prefix: str = "- "
    chunk_separator: str = "\n\n"
    include_sources: bool = False
    tool_name: str = "search_memory"
    system_prompt_template: str = DEFAULT_SYSTEM_PROMPT_TEMPLATE
    user_template: str = DEFAULT_USER_TEMPLATE

    @classmethod
    def from_config(cls, config: dict) -> "InjectSettings":
        """The seed's keys: ``inject_mode``, ``system_prompt``, ``context.*`` and the templates."""
        context = config.get("context", {})
        if context is None:
            context = {}
        if not isinstance(context, dict):
            raise ValueError("context must be an object")
        settings = cls(
            inject_mode=config.get("inject_mode", "system"),
            system_prompt=config.get("system_prompt", "") or "",
            header=context.get("header", DEFAULT_HEADER),
            chunk_prefix=context.get("chunk_prefix", "- "),
            chunk_separator=context.get("chunk_separator", "\n\n"),
            include_sources=bool(context.get("include_sources", False)),
            tool_name=context.get("tool_name", "search_memory"),
            system_prompt_template=config.get("system_prompt_template", DEFAULT_SYSTEM_PROMPT_TEMPLATE),
            user_template=config.get("user_template", DEFAULT_USER_TEMPLATE))
        if settings.inject_mode not in INJECT_MODES:
            raise ValueError(f"inject_mode must be one of {', '.join(INJECT_MODES)}, "
                             f"got {settings.inject_mode!r}")
        for key in ("system_prompt", "header", "chunk_prefix", "chunk_separator", "tool_name",
                    "system_prompt_template", "user_template"):
            if not isinstance(getattr(settings, key), str):
                raise ValueError(f"{key} must be a string")
        return settings


class Endpoint(NamedTuple):
    """An OpenAI-compatible endpoint (learning/llm_client.py)."""
    api_url: str
    model: str
    api_key: str
    timeout: float


def _host(url: str) -> Optional[str]:
    try:
        return urlsplit(url).hostname
    except ValueError:  # "http://[localhost]/v1"
        return None


def llm_endpoint(config: dict, default_api_url: str = DEFAULT_API_URL) -> Optional[Endpoint]:
    """The seed's endpoint keys (``api_url``, ``model``, ``request_timeout``) and
    ``api_key``; None when ``api_url`` is "" (no LLM)."""
    api_url = config.get("api_url", default_api_url)
    if not api_url:
        return None
    if not isinstance(api_url, str) or not api_url.startswith(("http://", "https://")) or not _host(api_url):
        raise ValueError(f"api_url must be an http(s) URL or \"\", got {api_url!r}")
    for key in ("model", "api_key"):
        if not isinstance(config.get(key, "") or "", str):
            raise ValueError(f"{key} must be a string")
    timeout = optional_number(config, "request_timeout", 0.1, 600) or 30.0
    return Endpoint(api_url, config.get("model") or "", config.get("api_key") or "", timeout)


# ------------------------------------------------------- one block each
class RecencyBlock(NamedTuple):
    max_history: int
    max_age: Optional[float]
    inject: InjectSettings


# ovos-persona's bundled BasicShortTermMemory keeps 5
WINDOWS = {"recency": 10, "short-term": 5}


def recency_block(config: dict, name: str = "recency") -> RecencyBlock:
    """``recency`` and ``short-term`` (backends/recency.py)."""
    return RecencyBlock(int_key(config, "max_history", WINDOWS[name]), optional_number(config, "max_age", low=0),
                        InjectSettings.from_config({"system_prompt": config.get("system_prompt", "")}))


class RetrievalBlock(NamedTuple):
    max_history: int
    max_num_results: int
    min_score: Optional[float]
    query_mode: str
    query_history_turns: int
    where: str
    inject: InjectSettings


def retrieval_block(config: dict, name: str = "lexical") -> RetrievalBlock:
    """``lexical`` and ``local-rag`` (backends/retrieval.py)."""
    max_history = int_key(config, "max_history", 10)
    retrieval = config.get("retrieval", {})
    if retrieval is None:
        retrieval = {}
    if not isinstance(retrieval, dict):
        raise ValueError("retrieval must be an object")
    max_num_results = int_key(retrieval, "max_num_results", 5, 1, 50)
    min_score = optional_number(retrieval, "min_score", low=0)
    if min_score is not None and min_score > 1:
        LOG.warning(f"{name}: retrieval.min_score {min_score} is above 1, but scores "
                    "here are on a 0..1 scale (see the README): nothing will be recalled")
    query_mode = retrieval.get("query_mode", "utterance")
    if query_mode not in QUERY_MODES:
        raise ValueError(f"retrieval.query_mode must be one of {', '.join(QUERY_MODES)}")
    query_history_turns = int_key(retrieval, "query_history_turns", 3, 0, 100)
    if config.get("scope", "global") not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
    return RetrievalBlock(max_history, max_num_results, min_score, query_mode, query_history_turns,
                          SCOPES[config.get("scope", "global")], InjectSettings.from_config(config))


class Member(NamedTuple):
    """One member of a composite, as its block names it."""
    module: str
    config: dict
    weight: float


class CompositeBlock(NamedTuple):
    members: List[Member]
    primary: Optional[str]   # a member's name, checked once the members are loaded (``primary_of``)
    fusion: str
    rrf_k: int
    max_num_results: int
    member_fetch_k: int
    dedup: bool
    min_score: Optional[float]
    member_timeout: float
    neighbor_weight: float
    speaker_boost: float
    time_boost: float
    time_scale_days: float
    inject: InjectSettings


def composite_block(config: dict, name: str = "composite") -> CompositeBlock:
    """``composite`` (backends/composite.py): its own keys, and each member's
    module, weight and block (the composite's ``scope`` reaches every member
    that sets none of its own, as in the seed)."""
    specs = config.get("members", [])
    if not isinstance(specs, list):
        raise ValueError("members must be a list of {module, config, weight}")
    if "scope" in config and config["scope"] not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
    members = []
    for spec in specs:
        spec = {"module": spec} if isinstance(spec, str) else spec
        if not isinstance(spec, dict) or not isinstance(spec.get("module"), str):
            raise ValueError("each member needs a module name")
        weight = spec.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise ValueError("a member's weight must be a number >= 0")
        member_config = spec.get("config") or {}
        if "scope" in config and isinstance(member_config, dict) and "scope" not in member_config:
            member_config = {**member_config, "scope": config["scope"]}
        members.append(Member(spec["module"], member_config, float(weight)))
    fusion = config.get("fusion", "rrf")
    if fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}")
    rrf_k = int_key(config, "rrf_k", 60, 1, 100_000)
    max_num_results = int_key(config, "max_num_results", 5, 1, 50)
    member_fetch_k = int_key(config, "member_fetch_k", 2 * max_num_results, 1, 1000)
    retrieval = config.get("retrieval") if isinstance(config.get("retrieval"), dict) else {}
    min_score = optional_number({"min_score": config.get("min_score", retrieval.get("min_score"))},
                                "min_score", 0, 1)
    return CompositeBlock(
        members, config.get("primary"), fusion, rrf_k, max_num_results, member_fetch_k,
        bool(config.get("dedup", True)), min_score,
        optional_number(config, "member_timeout", 0.01, 600) or 2.0,
        optional_number(config, "neighbor_weight", 0, 1) or 0.0,
        optional_number(config, "speaker_boost", 0, 100) or 0.0,
        optional_number(config, "time_boost", 0, 100) or 0.0,
        optional_number(config, "time_scale_days", 0.01, 3650) or 7.0,
        InjectSettings.from_config(config))


def primary_of(primary, names: List[str]) -> Optional[int]:
    """The index, among the members' ``names``, of the ``primary`` member
    (the first one when it names none); ValueError when it is not a member."""
    if primary is None:
        return 0 if names else None
    if canonical_name(str(primary)) in names:
        return names.index(canonical_name(str(primary)))
    raise ValueError(f"primary {primary!r} is not one of the members")


def _check_composite(config: dict, name: str):
    """A composite's block, members included: a member whose block is wrong is
    skipped, as the daemon skips it; one this process cannot check (not a
    built-in) counts as a member."""
    block = composite_block(config)
    names = []
    for member in block.members:
        try:
            check_block(member.module, member.config)
        except (ValueError, TypeError) as e:
            LOG.warning(f"composite: skipping member {member.module}: {e}")
            continue
        names.append(canonical_name(member.module))
    primary_of(block.primary, names)


class EntityBlock(NamedTuple):
    facts_header: Optional[str]
    max_facts: int
    extraction_prompt: Optional[str]
    max_extract_tokens: int
    endpoint: Optional[Endpoint]
    inject: InjectSettings


def entity_block(config: dict, name: str = "entity") -> EntityBlock:
    """``entity`` (backends/entity.py)."""
    facts_header = config.get("facts_header")  # None: the conversation's language's
    if facts_header is not None and not isinstance(facts_header, str):
        raise ValueError("facts_header must be a string")
    max_facts = int_key(config, "max_facts", 50, 1, 1000)
    prompt = config.get("extraction_prompt")
    if prompt is not None and (not isinstance(prompt, str) or "{exchange}" not in prompt):
        raise ValueError("extraction_prompt must be a string containing {exchange}")
    max_extract_tokens = int_key(config, "max_extract_tokens", 128, 16, 8192)
    return EntityBlock(facts_header, max_facts, prompt, max_extract_tokens, llm_endpoint(config),
                       InjectSettings.from_config({"system_prompt": config.get("system_prompt", "")}))


class LongtermBlock(NamedTuple):
    endpoint: Optional[Endpoint]
    summarize_every: int
    max_summary_tokens: int
    recent_window: int
    system_prompt: str


def longterm_block(config: dict, name: str = "longterm") -> LongtermBlock:
    """``longterm`` (backends/longterm.py)."""
    endpoint = llm_endpoint(config)
    summarize_every = int_key(config, "summarize_every", 6, 1, 1000)
    max_summary_tokens = int_key(config, "max_summary_tokens", 256, 16, 8192)
    recent_window = int_key(config, "recent_window", 4, 0, 1000)
    system_prompt = config.get("system_prompt", "") or ""
    if not isinstance(system_prompt, str):
        raise ValueError("system_prompt must be a string")
    return LongtermBlock(endpoint, summarize_every, max_summary_tokens, recent_window, system_prompt)
