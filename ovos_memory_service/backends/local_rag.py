"""``local-rag``: semantic recall with fastembed vectors in LanceDB.

Without them (no wheels for the board, or the model failed to load) it falls
back to keyword recall, and ``memory.stats`` says why."""
from ovos_utils.log import LOG

from ovos_memory_service.backends.retrieval import RetrievalBackend
from ovos_memory_service.common.errors import Unavailable
from ovos_memory_service.common.items import KINDS


class LocalRagBackend(RetrievalBackend):
    name = "local-rag"

    def search(self, scope, text, limit, where="user", kinds=KINDS, exclude_ids=(),
               exclude_content=""):
        try:
            return self.reader.semantic_search(scope, text, limit, kinds, where,
                                               exclude_ids, exclude_content)
        except Unavailable as e:
            LOG.debug(f"local-rag falls back to keyword recall: {e}")
            return self.reader.keyword_search(scope, text, limit, kinds, where,
                                              exclude_ids, exclude_content)
