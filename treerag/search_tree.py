"""The search tree: rebuilt from checkpoints, folded from live events, rendered three ways."""

from __future__ import annotations

from typing import Any

KEYWORD_KEYS = (
    "status",
    "via",
    "path",
    "jumps",
    "agent_calls",
    "infos",
    "candidates",
    "reason",
    "error",
)
CHUNK_KEYS = (
    "chunk_id",
    "rank",
    "title",
    "source",
    "retrieval_score",
    "found_by",
    "score",
    "reason",
    "followup",
    "quote",
    "error",
    "cached",
    "child_thread_id",
    "not_asked",
)


def _node(thread_id: str, question: str, depth: int) -> dict[str, Any]:
    return {
        "thread_id": thread_id,
        "question": question,
        "depth": depth,
        "answer": "",
        "chunks": [],
        "graph_paths": [],
        "keyword": None,
    }


def _apply_notes(node: dict[str, Any], notes: list[dict[str, Any]]) -> None:
    """Copy the structured-context records (graph paths, keyword path) onto a tree node."""
    for note in notes:
        if note.get("kind") == "graph":
            node["graph_paths"] = list(note.get("paths", []))
        elif note.get("kind") == "keyword":
            node["keyword"] = {k: note[k] for k in KEYWORD_KEYS if k in note}


def _chunk(record: dict[str, Any]) -> dict[str, Any]:
    out = {k: record[k] for k in CHUNK_KEYS if k in record and record[k] not in ("", None)}
    out["child"] = None
    return out


async def rebuild(graph: Any, thread_id: str) -> dict[str, Any] | None:
    """Rebuild the tree under `thread_id` from the checkpointer alone (None if unknown)."""
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
    values = snapshot.values if snapshot else None
    if not values:
        return None
    node = _node(thread_id, values.get("question", ""), values.get("depth", 0))
    node["answer"] = values.get("answer", "")
    error = values.get("error") or _task_error(snapshot)
    if error:  # a run that failed keeps what it had and says why
        node["error"] = error
    _apply_notes(node, values.get("context_notes", []))
    for record in values.get("chunks", []):
        chunk = _chunk(record)
        child = str(record.get("child_thread_id") or "")
        # Only descend into this run's own children: a state written through the API could
        # name any thread, and following it would read a tree the caller may not see.
        if child.startswith(thread_id + "/"):
            chunk["child"] = await rebuild(graph, child)
        node["chunks"].append(chunk)
    return node


def _task_error(snapshot: Any) -> str:
    """The error of a node that failed in this checkpoint (LangGraph keeps it with the task)."""
    for task in getattr(snapshot, "tasks", None) or ():
        if task.error is not None:
            error = task.error
            return (
                f"{type(error).__name__}: {error}"
                if isinstance(error, BaseException)
                else str(error)
            )
    return ""


class TreeFold:
    """Fold the `custom` stream's tree events into the same structure `rebuild` returns."""

    def __init__(self) -> None:
        """Start with no tree."""
        self.nodes: dict[str, dict[str, Any]] = {}
        self.root: dict[str, Any] | None = None
        self._pending_children: dict[str, tuple[str, str]] = {}

    def apply(self, event: dict[str, Any]) -> None:
        """Update the tree with one event."""
        kind, tid = event.get("event"), event.get("thread_id", "")
        if kind == "run_started":
            node = _node(tid, event["question"], event.get("depth", 0))
            self.nodes[tid] = node
            parent = self.nodes.get(event.get("parent_thread_id", ""))
            if parent is None and self.root is None:
                self.root = node
            elif parent is not None:
                for chunk in parent["chunks"]:
                    if chunk["chunk_id"] == event.get("parent_chunk_id"):
                        chunk["child"] = node
        elif kind == "chunks_retrieved" and tid in self.nodes:
            self.nodes[tid]["chunks"] = [_chunk(c) for c in event["chunks"]]
        elif kind == "chunks_added" and tid in self.nodes:
            self.nodes[tid]["chunks"] += [_chunk(c) for c in event["chunks"]]
        elif kind in ("chunk_judged", "subrun_started", "followup_not_asked") and tid in self.nodes:
            fields = {k: v for k, v in event.items() if k in CHUNK_KEYS and v not in ("", None)}
            for chunk in self.nodes[tid]["chunks"]:
                if chunk["chunk_id"] == event["chunk_id"]:
                    chunk.update({k: v for k, v in fields.items() if k != "chunk_id"})
        elif kind == "graph_expanded" and tid in self.nodes:
            _apply_notes(self.nodes[tid], [{"kind": "graph", "paths": event.get("paths", [])}])
        elif kind == "keyword_descended" and tid in self.nodes:
            _apply_notes(self.nodes[tid], [{**event, "kind": "keyword"}])
        elif kind == "answer_finished" and tid in self.nodes:
            self.nodes[tid]["answer"] = event.get("answer", "")
        elif kind == "run_failed" and tid in self.nodes:
            self.nodes[tid]["error"] = event.get("error", "")


def size(tree: dict[str, Any] | None) -> dict[str, int]:
    """Count runs, chunks and depth of a tree."""
    if not tree:
        return {"runs": 0, "chunks": 0, "depth": 0}
    runs, chunks, depth = 1, len(tree["chunks"]), tree["depth"]
    for chunk in tree["chunks"]:
        if chunk.get("child"):
            sub = size(chunk["child"])
            runs, chunks, depth = (
                runs + sub["runs"],
                chunks + sub["chunks"],
                max(depth, sub["depth"]),
            )
    return {"runs": runs, "chunks": chunks, "depth": depth}


SCORE_STYLE = {0: "red", 1: "yellow", 2: "green"}


def shorten(text: str, width: int) -> str:
    """Fit text in `width` characters, marking a cut with an ellipsis (never a silent cut)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def distinct_part(question: str, parent: str) -> str:
    """The part of a follow-up that differs from the question it came from.

    A follow-up often repeats its parent question before adding its own words; cutting it to
    a label width would then show only the parent question on every node.
    """
    q, p = " ".join(question.split()), " ".join(parent.split())
    if p and q.startswith(p) and len(q) > len(p):
        return "…" + q[len(p) :].lstrip(" ,;:—-")
    return q


FOUND_BY_LABELS = {"paths": "knowledge graph"}
"""How a `found_by.kind` reads where it differs from the kind itself."""


def found_by_text(found_by: dict[str, Any]) -> str:
    """How a structured source found a chunk, as the tree shows it.

    "via graph: A → B → C", "via keyword: X › Y", "via knowledge graph: A —student_of→ B".
    """
    kind = found_by.get("kind", "")
    joiner = " › " if kind == "keyword" else " → "
    label = FOUND_BY_LABELS.get(kind, kind)
    return f"via {label}: {joiner.join(str(p) for p in found_by.get('path', []))}"


def to_rich(tree: dict[str, Any], show_answers: bool = True) -> Any:
    """Render as a rich Tree: questions, chunks coloured by score, follow-ups, sub-trees."""
    from rich.markup import escape
    from rich.tree import Tree

    def add(parent: Any, node: dict[str, Any]) -> None:
        for chunk in node["chunks"]:
            score = chunk.get("score")
            style = SCORE_STYLE.get(score, "dim") if score is not None else "dim"
            shown = score if score is not None else "…"
            label = f"[{style}]{shown}[/] {escape(chunk.get('title', ''))}"
            if chunk.get("found_by"):
                label += f" [blue]({escape(found_by_text(chunk['found_by']))})[/]"
            if chunk.get("error"):
                label += f" [red]error: {escape(shorten(chunk['error'], 80))}[/]"
            elif chunk.get("reason"):
                label += f" [dim]— {escape(shorten(chunk['reason'], 100))}[/]"
            branch = parent.add(label)
            if chunk.get("followup") and not chunk.get("child_thread_id"):
                why = f": {chunk['not_asked']}" if chunk.get("not_asked") else ""
                branch.add(f"[dim]↳ {escape(chunk['followup'])} (not asked{escape(why)})[/]")
            elif chunk.get("followup"):
                sub = branch.add(f"[cyan]↳ {escape(chunk['followup'])}[/]")
                if chunk.get("child"):
                    add(sub, chunk["child"])
                    if show_answers and chunk["child"].get("answer"):
                        sub.add(f"[magenta]= {escape(shorten(chunk['child']['answer'], 160))}[/]")

    root = Tree(f"[bold]{escape(tree['question'])}[/] [dim]{escape(tree['thread_id'])}[/]")
    add(root, tree)
    keyword = tree.get("keyword")
    if keyword:
        trail = " › ".join(keyword.get("path", [])) or "—"
        line = f"[blue]keyword tree[/] {escape(keyword.get('status', ''))}: {escape(trail)}"
        if keyword.get("status") != "matched" and keyword.get("candidates"):
            line += f" [dim](near: {escape(', '.join(keyword['candidates'][:5]))})[/]"
        root.add(line)
    if tree.get("graph_paths"):
        graph = root.add("[blue]knowledge graph paths[/]")
        for p in tree["graph_paths"]:
            graph.add(f"{escape(p['path'])} [dim]{p['score']:.2f}[/]")
    return root


def to_mermaid(tree: dict[str, Any]) -> str:
    """Render as a Mermaid flowchart."""
    lines = ["flowchart TD"]
    counter = {"n": 0}

    def nid() -> str:
        counter["n"] += 1
        return f"n{counter['n']}"

    def label(text: str) -> str:
        # Mermaid reads a quoted label as it is (Unicode included); #quot; stands for a quote.
        return '"' + shorten(text, 80).replace('"', "#quot;") + '"'

    def add(node: dict[str, Any], node_id: str) -> None:
        for chunk in node["chunks"]:
            cid = nid()
            text = f"{chunk.get('score', '?')} {chunk.get('title', '')}"
            if chunk.get("found_by"):
                text += f" ({found_by_text(chunk['found_by'])})"
            lines.append(f"  {node_id} --> {cid}[{label(text)}]")
            lines.append(f"  class {cid} s{chunk.get('score', 'x')}")
            if chunk.get("child"):
                qid = nid()
                asked = distinct_part(chunk["child"]["question"], node["question"])
                lines.append(f"  {cid} -. follow-up .-> {qid}({label(asked)})")
                add(chunk["child"], qid)

    root = nid()
    lines.append(f"  {root}({label(tree['question'])})")
    add(tree, root)
    lines += ["  classDef s0 fill:#fdd", "  classDef s1 fill:#ffd", "  classDef s2 fill:#dfd"]
    return "\n".join(lines)
