"""treerag: agentic question answering over your own documents."""
