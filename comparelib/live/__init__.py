"""Live serving: benchmarks against SGLang / vLLM / OpenAI-compatible servers, and their results.

What a server says about itself, which servers may be reached, prompts, the benchmark run, the
results database and importers of the engines' own benchmark output.
"""

__all__ = ["bench", "endpoints", "importers", "prompts", "servers", "store"]
