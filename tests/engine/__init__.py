"""What each operation means: storing turns, listing, forgetting, what a build leaves out."""
