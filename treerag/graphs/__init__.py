"""Graph builders (uncompiled) and the module-level compiled graphs named in langgraph.json."""
