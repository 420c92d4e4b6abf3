"""Structured-output schemas for entity/relation extraction (use with with_structured_output)."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

EDGE_TYPES = ("relation", "attribute", "has_property", "reference", "temporal", "core_relation")


class ExtractedEntity(BaseModel):
    """An entity the text mentions: a person, organization, place, object, event or concept.

    Extract only entities the text states something about; do not invent any.
    """

    name: str = Field(
        min_length=1,
        description="Write the entity's name as it appears in the text, in the text's language.",
    )
    type: str = Field(
        default="entity",
        description=(
            "Give one short lowercase type, such as person, organization, location, event, "
            "object or concept."
        ),
    )
    description: str = Field(
        default="",
        description=(
            "Describe the entity in one or two sentences, using only facts stated in the text."
        ),
    )


class ExtractedRelation(BaseModel):
    """A relation the text states between two of the extracted entities."""

    source: str = Field(
        min_length=1, description="Name the source entity exactly as in the entities list."
    )
    target: str = Field(
        min_length=1, description="Name the target entity exactly as in the entities list."
    )
    relation: str = Field(
        description=(
            "State the relation as a short verb phrase read from source to target, "
            "e.g. 'member of'."
        )
    )
    description: str = Field(
        default="", description="Explain the relation in one sentence, using only the text."
    )
    importance: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description=(
            "Rate from 0 to 1 how central this relation is to the text: 1 for its main point, "
            "0.5 for a supporting fact, near 0 for a passing mention."
        ),
    )
    type: str = Field(
        default="relation",
        description=(
            "Choose the edge type: relation (general), attribute or has_property (a property of "
            "the source), reference (the source cites or points to the target), temporal "
            "(before/after/during), core_relation (defining relation)."
        ),
    )

    @field_validator("type")
    @classmethod
    def _lowercase_type(cls, value: str) -> str:
        return value.strip().lower() or "relation"


class ExtractionResult(BaseModel):
    """Extract the entities and relations stated in one text chunk.

    List every entity the chunk says something about, then every relation the chunk states
    between two of them. Keep names as written in the chunk; do not add outside knowledge.
    """

    entities: list[ExtractedEntity] = Field(
        default_factory=list, description="List the entities mentioned in the chunk."
    )
    relations: list[ExtractedRelation] = Field(
        default_factory=list,
        description="List the relations between the listed entities that the chunk states.",
    )
