"""The web app's routes document themselves the way the LangGraph server reads them."""

from __future__ import annotations

from starlette.schemas import SchemaGenerator

from treerag.web.app import app


def test_every_route_docstring_parses_as_an_openapi_entry():
    # langgraph-api builds its OpenAPI schema with Starlette's parse_docstring, which reads
    # the part of a docstring after "---" as YAML; a docstring that is not YAML logs a
    # ScannerError traceback at every server start.
    generator = SchemaGenerator({"openapi": "3.0.0", "info": {"title": "t", "version": "1"}})
    endpoints = generator.get_endpoints(app.routes)
    assert endpoints
    for endpoint in endpoints:
        parsed = generator.parse_docstring(endpoint.func)
        if endpoint.path.startswith("/ui/api/"):
            assert isinstance(parsed, dict) and parsed.get("summary"), endpoint.path
