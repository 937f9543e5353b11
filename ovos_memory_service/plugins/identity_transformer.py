"""A metadata transformer for ovos-core that carries the identified speaker
into the message context, where it survives every hop.

OVOS-USER-ID-1 puts ``user_id``, ``auth_level`` and ``authenticated_at`` in
the session. ovos-bus-client 1.5.0's ``Session.deserialize`` keeps a fixed set
of fields, so ovos-core 2.1.5a1 re-serializes the session without them right
after its transformers ran, before any pipeline stage: skills, ovos-persona
and this service would never see who spoke. ovos-core runs the metadata
transformers on the message as it came from the bus, so this one copies those
three fields from the session to the context (``context.user_id`` is the key
earlier user-id plugins used; the service reads ``auth_level`` and
``authenticated_at`` there when the session has none). Enable it in
mycroft.conf: ``"metadata_transformers": {"ovos-memory-identity-transformer": {}}``.
"""
from ovos_plugin_manager.templates.transformers import MetadataTransformer

NAME = "ovos-memory-identity-transformer"
IDENTITY = ("user_id", "auth_level", "authenticated_at")


class IdentityTransformer(MetadataTransformer):
    def __init__(self, config=None):
        # priority 1: the last to run, after a recognition plugin that writes the session
        super().__init__(NAME, priority=1, config=config)

    def transform(self, context: dict = None) -> dict:
        """The session's identity fields, to be merged into the context (none for a guest)."""
        session = (context or {}).get("session")
        if not isinstance(session, dict) or session.get("user_id") is None:
            return {}
        return {key: session[key] for key in IDENTITY if session.get(key) is not None}
