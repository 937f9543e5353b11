"""Chat messages on the wire (docs/protocol.md, "Message wire format") and their checks."""
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import List, Optional

from ovos_memory_service.common.errors import InvalidRequest, TooLarge

ROLES = ("system", "developer", "user", "assistant", "tool")
MAX_MESSAGES = 100
MAX_CONTENT_BYTES = 32 * 1024
MAX_DEPTH = 32  # nesting of a request's data or context (a Session needs 4)
# every stored time renders in UTC: from the epoch to the end of 2100
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2100, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)
MAX_TIME_CHARS = 64


@dataclass
class ChatMessage:
    role: str
    content: str
    name: Optional[str] = None
    tool_calls: list = field(default_factory=list)
    tool_call_id: Optional[str] = None
    created_at: Optional[float] = None  # epoch seconds
    id: Optional[str] = None

    def to_wire(self) -> dict:
        out = {"role": self.role, "content": self.content}
        if self.name:
            out["name"] = self.name
        if self.tool_calls:
            out["tool_calls"] = self.tool_calls
        if self.tool_call_id:
            out["tool_call_id"] = self.tool_call_id
        if self.id:
            out["id"] = self.id
        if self.created_at is not None:
            out["created_at"] = iso_time(self.created_at)
        return out


def iso_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(value, field: str = "created_at") -> float:
    """ISO 8601 to epoch seconds (UTC); a time without zone is taken as UTC.
    InvalidRequest unless it falls within EARLIEST..LATEST."""
    if not isinstance(value, str) or len(value) > MAX_TIME_CHARS:
        raise InvalidRequest(f"{field} must be an ISO 8601 string")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidRequest(f"{field} is not ISO 8601: {value[:40]!r}")
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    if not EARLIEST <= when <= LATEST:  # compared in UTC, whatever the offsets
        raise InvalidRequest(f"{field} must be a time from 1970-01-01 to 2100-12-31 (UTC)")
    return when.timestamp()


def has_surrogate(text: str) -> bool:
    """A lone surrogate cannot be stored in SQLite or sent on the bus."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_problem(value, max_depth: int = MAX_DEPTH) -> Optional[str]:
    """What makes decoded JSON unfit to handle, or None: nesting deeper than
    ``max_depth``, or text (a value or a key) with a lone surrogate."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return "text must be valid Unicode (a lone surrogate was found)"
        elif isinstance(item, (dict, list)):
            if depth > max_depth:
                return f"values may nest at most {max_depth} levels deep"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return None


def check_json(value, where: str):
    problem = json_problem(value)
    if problem:
        raise InvalidRequest(f"{where}: {problem}")


def _tool_calls(value) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidRequest("tool_calls must be a list")
    calls = []
    for call in value:
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) \
                or not isinstance(call.get("name"), str):
            raise InvalidRequest("each tool call needs string 'id' and 'name'")
        arguments = call.get("arguments", {})
        if not isinstance(arguments, dict):
            raise InvalidRequest("tool call arguments must be an object")
        calls.append({"id": call["id"], "name": call["name"], "arguments": arguments})
    return calls


def _optional_str(msg: dict, key: str) -> Optional[str]:
    value = msg.get(key)
    if value is not None and (not isinstance(value, str) or len(value) > 256):
        raise InvalidRequest(f"{key} must be a string of at most 256 characters")
    return value or None


def parse_message(msg) -> ChatMessage:
    if not isinstance(msg, dict):
        raise InvalidRequest("each message must be an object with role and content")
    role = msg.get("role")
    if role not in ROLES:
        raise InvalidRequest(f"role must be one of {', '.join(ROLES)}")
    content = msg.get("content")
    if not isinstance(content, str):
        raise InvalidRequest("content must be a string")
    if len(content.encode("utf-8", "surrogatepass")) > MAX_CONTENT_BYTES:
        raise TooLarge(f"a message's content is limited to {MAX_CONTENT_BYTES} bytes")
    tool_calls = _tool_calls(msg.get("tool_calls"))
    if tool_calls and role != "assistant":
        raise InvalidRequest("only assistant messages carry tool_calls")
    created_at = msg.get("created_at")
    return ChatMessage(role=role, content=content, name=_optional_str(msg, "name"),
                       tool_calls=tool_calls, tool_call_id=_optional_str(msg, "tool_call_id"),
                       created_at=parse_time(created_at) if created_at is not None else None)


def parse_messages(value) -> List[ChatMessage]:
    if not isinstance(value, list) or not value:
        raise InvalidRequest("messages must be a non-empty list")
    if len(value) > MAX_MESSAGES:
        raise TooLarge(f"at most {MAX_MESSAGES} messages per update")
    return [parse_message(m) for m in value]
