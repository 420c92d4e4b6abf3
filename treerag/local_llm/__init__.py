"""A real LLM with no API key: llama.cpp's OpenAI-compatible server on bundled or own weights.

`TREERAG_CHAT_MODEL=local` (or `local:<name>`, `local:<path.gguf>`) resolves the weights,
checks their hash, starts the server on a free 127.0.0.1 port on first use, and hands back
the same `ChatOpenAI` client that `openai:<model>` builds for any OpenAI-compatible endpoint.
"""

from __future__ import annotations

from treerag.local_llm.weights import LocalModelError

LOCAL_PROVIDER = "local"

__all__ = ["LOCAL_PROVIDER", "LocalModelError"]
