"""The web chat page: a Starlette app mounted next to the LangGraph API by `langgraph dev`."""
