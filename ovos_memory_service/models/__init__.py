"""The models: sentence embedders and the cross-encoder reranker, loaded once
per process. Import only ``common/``."""
