"""The project as a whole: its imports against the layers, its packaging, its privacy."""
