"""Graph builders for the knowledge-graph tests: the seed 01 world and small vector graphs."""

from __future__ import annotations

import numpy as np

from treerag.knowledge_graph import AttributeValue, Edge, Entity, World

NOW = 1_700_000_000.0


def seed01_world(embed) -> World:
    """Build the seed 01 example world (Lord of Mysteries): five entities, four edges."""
    world = World(embed)
    klein = Entity(
        id="klein",
        type="人物",
        attributes={
            "名字": [
                AttributeValue("周明瑞", "“穿越”前"),
                AttributeValue("克莱恩·莫雷蒂", "“穿越”后，占据了原主的身体"),
            ],
            "序列": [AttributeValue("序列9：占卜家", "成为非凡者后的初始序列")],
        },
    )
    dunn = Entity(
        id="dunn",
        type="人物",
        attributes={
            "名字": [AttributeValue("邓恩·史密斯", "故事开始时")],
            "职位": [AttributeValue("值夜者小队队长", "廷根市值夜者负责人")],
            "特征": [AttributeValue("记性很差，发际线高", "非凡特性带来的副作用")],
        },
    )
    nighthawks = Entity(
        id="nighthawks",
        type="组织",
        attributes={"名字": [AttributeValue("值夜者", "黑夜女神教会的武力机构之一")]},
    )
    cathedral = Entity(
        id="cathedral",
        type="地点",
        attributes={"名字": [AttributeValue("圣赛琳娜教堂", "黑夜女神教会位于廷根市的教堂")]},
    )
    notebook = Entity(
        id="notebook",
        type="物品",
        attributes={
            "名字": [AttributeValue("安提哥努斯家族笔记", "故事开始时")],
            "描述": [AttributeValue("一本危险的非凡物品，记载了占卜家途径的信息", "来源神秘")],
        },
    )
    for entity in (klein, dunn, nighthawks, cathedral, notebook):
        world.add_entity(entity)
    relations = [
        ("joins", "klein", "nighthawks", {"关系": [AttributeValue("成员", "通过考验后正式加入")]}),
        (
            "leads",
            "dunn",
            "nighthawks",
            {"关系": [AttributeValue("领导", "作为队长领导廷根市值夜者")]},
        ),
        (
            "located",
            "nighthawks",
            "cathedral",
            {"关系": [AttributeValue("位于", "其总部位于教堂的地下区域，如查尼斯门后")]},
        ),
        (
            "obtains",
            "klein",
            "notebook",
            {
                "关系": [AttributeValue("获得", "在一次任务中查获")],
                "事件": [AttributeValue("查尼斯门事件", "相关联的关键事件")],
            },
        ),
    ]
    for ident, src, dst, attrs in relations:
        world.add_edge(Edge(id=ident, source=src, target=dst, attributes=attrs))
    return world


def vector_world(
    node_vectors: dict[str, list[float]],
    edges: list[tuple[str, str]] | list[tuple[str, str, str, float]],
    *,
    importance: float = 0.5,
    created_at: float = NOW,
) -> World:
    """Build a world from explicit node vectors and (source, target[, type, importance]) edges."""
    world = World()
    names = list(node_vectors)
    entities = [Entity(id=n, name=n, importance=importance, created_at=created_at) for n in names]
    world.add_entities(entities, np.array([node_vectors[n] for n in names], dtype=np.float32))
    for i, spec in enumerate(edges):
        src, dst = spec[0], spec[1]
        kind = spec[2] if len(spec) > 2 else "default"
        imp = spec[3] if len(spec) > 3 else 1.0
        world.add_edge(Edge(id=f"e{i}", source=src, target=dst, type=kind, importance=imp))
    return world


def one_hot(n: int, i: int) -> list[float]:
    """Return a one-hot vector."""
    v = [0.0] * n
    v[i] = 1.0
    return v
