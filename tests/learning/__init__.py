"""What is learnt after the reply: facts by rules and by an LLM, summaries, the LLM client."""
