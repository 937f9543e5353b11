"""Access by authentication level (OVOS-USER-ID-1): what an identified
speaker's level allows. ``memory_service.access_levels`` sets, per action, the
lowest level that may do it; the defaults follow the spec's guidance (1:
personalised features from a configured profile, 3: user-specific data, 4:
sensitive personal data): a person's memories are user-specific data.

Only speakers the request names (``Scope.identified``) are gated: a guest's
memories are the household's (or the session's), as before identities, and
the ``users`` map is the owner's own configuration.
"""
from ovos_memory_service.common.scope import MAX_LEVEL, Scope

ACTIONS = {
    "context": 3,     # the speaker's long-term memories enter a memory.context.build
    "read_aloud": 3,  # the voice commands read the speaker's memories aloud
    "forget": 3,      # the voice commands forget the speaker's memories
}


def check_levels(levels) -> dict:
    """``access_levels`` merged over the defaults; ValueError naming a bad key."""
    if not isinstance(levels, dict):
        raise ValueError("memory_service.access_levels must be an object")
    merged = {**ACTIONS, **levels}
    for action, level in merged.items():
        if action not in ACTIONS:
            raise ValueError(f"memory_service.access_levels.{action} is not an action "
                             f"({', '.join(ACTIONS)})")
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"memory_service.access_levels.{action} must be a level from 0 to {MAX_LEVEL}, "
                             f"got {level!r}")
    return merged


def allows(scope: Scope, config: dict, action: str) -> bool:
    """May the speaker of ``scope`` do ``action`` with their memories?"""
    needed = (config.get("access_levels") or {}).get(action, ACTIONS[action])
    return not scope.identified or scope.auth_level >= needed
