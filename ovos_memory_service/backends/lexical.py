"""``lexical``: keyword recall with SQLite FTS5 and bm25 over the service's store."""
from ovos_memory_service.backends.retrieval import RetrievalBackend
from ovos_memory_service.common.items import KINDS


class LexicalBackend(RetrievalBackend):
    name = "lexical"

    def search(self, scope, text, limit, where="user", kinds=KINDS, exclude_ids=(),
               exclude_content=""):
        return self.reader.keyword_search(scope, text, limit, kinds, where,
                                          exclude_ids, exclude_content)
