"""Learning after the reply: the background workers and their queue, the fact
rules and model, rolling summaries, and the LLM client they call."""
