"""A third-party opm.agents.memory plugin, installed for real (a module plus
its dist-info entry point) into a folder that goes on the path."""
from pathlib import Path

PLUGIN_NAME = "test-echo-memory-plugin"

MODULE = '''
from ovos_plugin_manager.templates.agents import AgentContextManager, AgentMessage, MessageRole


class EchoMemory(AgentContextManager):
    """Remembers every message it is given; builds [system: count] + history + utterance.
    Config ``sleep`` (seconds) and ``fail`` make it slow or broken."""
    def __init__(self, config=None):
        super().__init__(config)
        self.seen = {}

    def get_history(self, session_id):
        return list(self.seen.get(session_id, []))

    def update_history(self, new_messages, session_id):
        self.seen.setdefault(session_id, []).extend(new_messages)

    def build_conversation_context(self, utterance, session_id):
        import time
        time.sleep(self.config.get("sleep", 0))
        if self.config.get("fail"):
            raise RuntimeError("this plugin is broken on purpose")
        prompt = self.config.get("system_prompt", "") + f" seen={len(self.seen.get(session_id, []))}"
        return [AgentMessage(MessageRole.SYSTEM, prompt.strip()), *self.get_history(session_id),
                AgentMessage(MessageRole.USER, utterance)]
'''


def install_plugin(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "echo_memory_plugin.py").write_text(MODULE)
    info = folder / "echo_memory_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-memory-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[opm.agents.memory]\n{PLUGIN_NAME} = echo_memory_plugin:EchoMemory\n")
    return folder
