"""Both stores behind one interface, their files, their background work, moving between them."""
