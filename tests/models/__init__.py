"""The embedding models and the reranker, offline, and the memory they keep."""
