"""Graph nodes: each a short function from state (or a Send payload) to a partial update."""
