"""Which backend each persona uses: registered at run time
(memory.persona.configure), else from the configuration, else the default;
built once per persona and rebuilt on reload."""
import threading
import time
from typing import Optional

from ovos_memory_service.backends import Backend, create_backend
from ovos_memory_service.backends.reader import StoreReader
from ovos_memory_service.common.blocks import block_for
from ovos_memory_service.common.config import default_persona_block
from ovos_memory_service.store import Store


class PersonaRegistry:
    def __init__(self, store: Store, reader: StoreReader, config: dict):
        self.store = store
        self.reader = reader
        self.config = config
        self._backends = {}
        self._default: Optional[Backend] = None
        self._lock = threading.Lock()

    def block(self, persona_id: Optional[str]) -> dict:
        if persona_id:
            registered = self.store.persona(persona_id)
            if registered:
                module, config = registered
                return {"memory_module": module, module: config}
            if persona_id in self.config["personas"]:
                block = self.config["personas"][persona_id]
                if block.get("memory_module"):
                    return block
        return default_persona_block(self.config)

    def _create(self, block: dict) -> Backend:
        name = block["memory_module"]
        return create_backend(name, block_for(block, name), self.reader)

    def backend(self, persona_id: Optional[str]) -> Backend:
        key = persona_id or ""
        with self._lock:
            if key in self._backends:
                return self._backends[key]
        # built without the lock: reading the block reads the store, which a
        # writer may hold while it asks for a backend
        built = self._create(self.block(persona_id))
        with self._lock:
            backend = self._backends.setdefault(key, built)
        if backend is not built:
            built.close()
        return backend

    def default_backend(self) -> Backend:
        """The default configuration's backend, for personas that cannot recall."""
        with self._lock:
            if self._default is None:
                self._default = self._create(default_persona_block(self.config))
            return self._default

    def llm_tasks(self, persona_id: Optional[str]) -> dict:
        """What the persona's backend asks of its LLM: {"facts"|"summary": backend}."""
        return self.backend(persona_id).llm_tasks()

    def share_facts(self) -> bool:
        return self.config["share_facts_across_personas"]

    def configure(self, persona_id: str, module: str, config: dict):
        backend = create_backend(module, config, self.reader)  # ValueError if not valid
        self.store.save_persona(persona_id, module, config, time.time())
        with self._lock:
            old = self._backends.pop(persona_id, None)
            self._backends[persona_id] = backend
        if old:
            old.close()

    def drop(self, persona_id: Optional[str] = None):
        """Build ``persona_id``'s backend again when next used (every backend:
        None), as another daemon sharing the store configured it."""
        with self._lock:
            if persona_id is None:
                dropped = [*self._backends.values()]
                self._backends.clear()
            else:
                dropped = [b for b in [self._backends.pop(persona_id, None)] if b is not None]
        for backend in dropped:
            backend.close()

    @staticmethod
    def check(config: dict, reader: StoreReader):
        """Build the default and every configured persona's backend once, so a
        bad block fails at start (or reload) with a ValueError naming it."""
        blocks = {"the default": default_persona_block(config), **{
            f"persona {persona_id!r}": block for persona_id, block in config["personas"].items()}}
        for owner, block in blocks.items():
            name = block.get("memory_module") or config["memory_module"]
            try:
                create_backend(name, block_for(block, name), reader).close()
            except (ValueError, TypeError) as e:  # TypeError: a list or object where a name belongs
                raise ValueError(f"memory_service: {owner} backend {name!r}: {e}") from e

    def loaded(self) -> list:
        with self._lock:
            return [{"persona_id": k or None, "memory_module": b.name} for k, b in self._backends.items()]

    def reload(self):
        """The configuration changed (in place): every backend is built again when next used."""
        self.close()

    def close(self):
        with self._lock:
            backends = [*self._backends.values(), self._default]
            self._backends.clear()
            self._default = None
        for backend in backends:
            if backend is not None:
                backend.close()
