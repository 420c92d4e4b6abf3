"""Pydantic schemas the agent reads and answers with (usable with with_structured_output)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ViewNode(BaseModel):
    """A keyword shown to you, with the part of its subtree that is expanded."""

    id: str = Field(description="Keyword id; quote it exactly in your answer.")
    name: str = Field(description="Keyword name.")
    description: str = Field(default="", description="What the keyword covers.")
    aliases: list[str] = Field(default_factory=list, description="Other names of the keyword.")
    child_count: int = Field(default=0, description="How many children the keyword has.")
    children: list[ViewNode] = Field(
        default_factory=list,
        description="Children shown here; empty when not expanded even if child_count > 0.",
    )


class PathItem(BaseModel):
    """One keyword on the path already walked from the top of the tree."""

    id: str
    name: str
    description: str = ""


class DescentView(BaseModel):
    """One round of descent: the question, the path so far and the candidate subtree."""

    question: str = Field(description="What the user asked, or the keyword to place.")
    current_path: list[PathItem] = Field(
        default_factory=list, description="Keywords walked so far, top first; empty at the top."
    )
    candidates: list[ViewNode] = Field(
        description="Children of the last keyword on the path (or the top keywords), expanded."
    )
    depth: int = Field(default=1, description="How many levels of candidates are expanded.")

    def flat(self) -> dict[str, tuple[ViewNode, int, str | None]]:
        """Return id → (node, depth from 1, parent id in the view) for every shown node."""
        out: dict[str, tuple[ViewNode, int, str | None]] = {}
        stack: list[tuple[ViewNode, int, str | None]] = [(n, 1, None) for n in self.candidates]
        while stack:
            node, depth, parent = stack.pop()
            out[node.id] = (node, depth, parent)
            stack.extend((child, depth + 1, node.id) for child in node.children)
        return out

    def render(self) -> str:
        """Return the view as an indented outline for a prompt."""
        lines = ["Path: " + (" > ".join(item.name for item in self.current_path) or "(top)")]
        if self.current_path:
            here = self.current_path[-1]
            lines.append(f"Current keyword: [{here.id}] {here.name} - {here.description}")

        def walk(nodes: list[ViewNode], indent: int) -> None:
            for node in nodes:
                extra = f" (aka {', '.join(node.aliases)})" if node.aliases else ""
                hidden = node.child_count - len(node.children)
                more = f" [+{hidden} children not shown]" if hidden > 0 else ""
                desc = f" - {node.description}" if node.description else ""
                lines.append(f"{'  ' * indent}- [{node.id}] {node.name}{extra}{desc}{more}")
                walk(node.children, indent + 1)

        walk(self.candidates, 0)
        return "\n".join(lines)


class BranchDecision(BaseModel):
    """Decide where the question leads in the keyword tree shown to you.

    Answer "match" when a shown keyword (or the current one) is what the question is about.
    Answer "jump" to move down to a shown keyword that has more below it; you may jump
    several levels at once. Answer "missing" when no keyword covers the question: name the
    keyword that should exist and, in node_id, the shown keyword it belongs under (or leave
    node_id empty to put it under the current keyword). Answer "ambiguous" when several
    shown keywords fit equally well and the question does not tell them apart.
    """

    action: Literal["jump", "match", "missing", "ambiguous"] = Field(
        description="jump = move down and look further; match = this keyword is the answer; "
        "missing = the keyword does not exist yet; ambiguous = several fit equally."
    )
    node_id: str | None = Field(
        default=None,
        description="jump/match: id of the chosen keyword (required). missing: optional id of "
        "the keyword the new one belongs under.",
    )
    jump_depth: int | None = Field(
        default=None, description="jump: how many levels below the current keyword it is."
    )
    suggest_name: str | None = Field(
        default=None, description="missing: the name the missing keyword should have."
    )
    candidate_ids: list[str] = Field(
        default_factory=list, description="ambiguous: ids of the keywords that fit."
    )
    reason: str = Field(default="", description="One sentence on why.")


class CandidateNode(BaseModel):
    """An existing keyword offered to you for comparison."""

    id: str
    name: str
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    path: list[str] = Field(default_factory=list, description="Names from the top down to it.")


class DedupDecision(BaseModel):
    """A new keyword's name collides with existing keywords: decide what it is.

    "alias_of": it names the same thing as target_id; record it as an alias, create nothing.
    "merge": it is the same thing as target_id and brings a description or aliases worth
    adding to it. "create_new": it is a different thing that happens to share the name.
    """

    action: Literal["alias_of", "merge", "create_new"] = Field(
        description="alias_of, merge (into target_id) or create_new."
    )
    target_id: str | None = Field(
        default=None, description="alias_of/merge: the id of the existing keyword."
    )
    reason: str = Field(default="", description="One sentence on why.")


class LinkChoice(BaseModel):
    """One keyword an info should be linked to."""

    keyword_id: str = Field(description="Id of a candidate keyword.")
    relation: Literal["PRIMARY", "RELATED"] = Field(
        description="PRIMARY if the text is mainly about the keyword, RELATED if it mentions it."
    )


class LinkDecision(BaseModel):
    """Choose which candidate keywords a piece of text should be filed under.

    Keep only keywords the text is really about or clearly mentions; leave out the rest.
    Name keywords that should exist but are not among the candidates in new_keywords.
    """

    links: list[LinkChoice] = Field(default_factory=list, description="Keywords to link.")
    new_keywords: list[str] = Field(
        default_factory=list, description="Names of keywords that should be created for it."
    )
    reason: str = Field(default="", description="One sentence on why.")


class DisambiguationDecision(BaseModel):
    """Several keywords share the name in the question: pick the one the question means.

    Leave node_id empty when the question does not tell them apart.
    """

    node_id: str | None = Field(default=None, description="Id of the meant keyword, or empty.")
    reason: str = Field(default="", description="One sentence on why.")


class PlanStep(BaseModel):
    """One change proposed by a reorganization."""

    action: Literal["merge", "move", "update", "create", "delete"] = Field(
        description="merge (node_id into target_id), move (node_id under target_id, empty = "
        "top), update (node_id with patch), create (name under target_id), delete (node_id)."
    )
    node_id: str | None = Field(default=None, description="The keyword the step acts on.")
    target_id: str | None = Field(default=None, description="Merge target or new parent.")
    name: str | None = Field(default=None, description="create: the new keyword's name.")
    patch: dict[str, object] = Field(
        default_factory=dict, description="update: fields to set (description, name, aliases)."
    )
    reason: str = Field(default="", description="Why this step helps.")


class ReorganizeAdvice(BaseModel):
    """Suggest steps that make the subtree shown to you easier to navigate.

    Merge keywords that name the same thing, move misplaced keywords under a better parent,
    and write missing descriptions. Propose nothing when the subtree is fine.
    """

    steps: list[PlanStep] = Field(default_factory=list, description="Proposed changes.")
