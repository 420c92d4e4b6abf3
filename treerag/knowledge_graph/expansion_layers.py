"""Per-hop path arrays of the vectorised expansion and their conversion to ScoredPath."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treerag.knowledge_graph.compact import CompactGraph
from treerag.knowledge_graph.paths import ScoredPath

_I = np.int64


@dataclass
class Layer:
    """The paths of one hop, one row each (index of the previous layer in ``partner_*``)."""

    score: np.ndarray
    raw: np.ndarray
    route: np.ndarray
    eroute: np.ndarray
    froute: np.ndarray
    nodeset: np.ndarray
    """Node indices of the path and of everything merged into it, padded with -1."""
    partner_parent: np.ndarray
    partner_edge: np.ndarray
    partner_fwd: np.ndarray
    partner_raw: np.ndarray
    extended: np.ndarray

    @property
    def end(self) -> np.ndarray:
        """Return each path's last node."""
        return self.route[:, -1]

    def __len__(self) -> int:
        return len(self.score)

    @classmethod
    def seeds(cls, nodes: np.ndarray, scores: np.ndarray) -> Layer:
        """Return the hop-0 layer: one single-node path per seed."""
        n = len(nodes)
        col = nodes.astype(_I)[:, None]
        return cls(
            score=scores,
            raw=scores.copy(),
            route=col,
            eroute=np.zeros((n, 0), dtype=_I),
            froute=np.zeros((n, 0), dtype=bool),
            nodeset=col.copy(),
            partner_parent=np.full(n, -1, dtype=_I),
            partner_edge=np.full(n, -1, dtype=_I),
            partner_fwd=np.zeros(n, dtype=bool),
            partner_raw=np.zeros(n),
            extended=np.zeros(n, dtype=bool),
        )


def materialise(layers: list[Layer], hop: int, row: int, graph: CompactGraph) -> ScoredPath:
    """Turn one row of a layer into a ScoredPath with ids."""
    lay = layers[hop]
    node_ids, edge_ids = graph.node_ids, graph.edge_ids
    # .tolist() first: indexing lists with Python ints is far cheaper than numpy scalars.
    nodes = tuple(node_ids[n] for n in lay.route[row].tolist())
    edges = tuple(edge_ids[e] for e in lay.eroute[row].tolist())
    forward = tuple(lay.froute[row].tolist())
    merged: tuple[ScoredPath, ...] = ()
    pp = int(lay.partner_parent[row])
    if pp >= 0:
        prev = layers[hop - 1]
        lead = ScoredPath(nodes, edges, forward, float(lay.raw[row]))
        other = ScoredPath(
            tuple(node_ids[n] for n in prev.route[pp].tolist()) + (nodes[-1],),
            tuple(edge_ids[e] for e in prev.eroute[pp].tolist())
            + (edge_ids[int(lay.partner_edge[row])],),
            tuple(prev.froute[pp].tolist()) + (bool(lay.partner_fwd[row]),),
            float(lay.partner_raw[row]),
        )
        merged = (lead, other)
    return ScoredPath(nodes, edges, forward, float(lay.score[row]), merged)
