"""How each backend builds a context and recalls: recency, keywords, meaning, composite, longterm."""
