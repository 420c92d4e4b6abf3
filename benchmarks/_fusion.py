"""Language-aware fusion, per embedder, on rgb_zh_300 and hotpotqa_100 (`retrieval.py --fusion`).

Same run, same passages and vectors: brute force (numpy cosine, bm25s, RRF(60) of the two
top-100 lists) beside the product's `Retriever` on Milvus Lite: dense, sparse, hybrid with
today's equal-weight RRF (`ranker_type="rrf"`) and the new `auto` ranker. Passage vectors
are cached under bench-out/embeddings/ (git-ignored); embedding throughput is timed on the
same 64 passages for every embedder in every run.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks._datasets import DevSet, load_hotpotqa, load_rgb_zh, recall_at
from benchmarks._embed_cache import embedder, passage_vectors, query_vectors
from benchmarks._feedback import FEEDBACK, HYBRID_FEEDBACK, feedback_rankings
from benchmarks._fusion_variants import QueryLists, held_out
from treerag.context import Context
from treerag.retrievers.chunk_store import Chunk, ChunkStore
from treerag.retrievers.fusion import plan_fusion
from treerag.retrievers.hybrid import Retriever
from treerag.retrievers.language import expand_for_bm25, language_of

KS = (2, 5)
POOL = 100
THROUGHPUT_SAMPLE = 64
SIDES = ("dense", "sparse", "hybrid RRF (before)", "hybrid auto (now)")
WORDS_ONLY = "sparse, jieba words only (before)"
"""Chinese sets only: BM25 over jieba's words, as collections were indexed before `bigram`."""


def _tokenizer(chinese: bool, words_only: bool = False):
    """Brute-force BM25 tokens: the product's Chinese terms (words + bigrams), or English words."""
    import bm25s

    from treerag.retrievers.analyzers import ENGLISH_STOP_WORDS
    from treerag.retrievers.lexical import bm25_terms
    from treerag.segment import jieba

    if chinese and words_only:
        return lambda t: [w.lower() for w in jieba().lcut_for_search(t) if w.strip()]
    if chinese:  # the product's terms, less the English stop words its analyzer drops
        stop = frozenset(ENGLISH_STOP_WORDS)
        return lambda t: [w for w in bm25_terms(t) if w not in stop]
    return lambda t: bm25s.tokenize([t], stopwords="en", return_ids=False, show_progress=False)[0]


def words_only_recall(data: DevSet) -> dict[int, float]:
    """Brute-force recall of BM25 over jieba's words alone (the analyzer before `bigram`)."""
    import bm25s

    tok = _tokenizer(True, words_only=True)
    bm25 = bm25s.BM25()
    bm25.index([tok(t) for t in data.texts], show_progress=False)
    rankings = []
    for q in data.questions:
        scores = bm25.get_scores(tok(expand_for_bm25(q)))
        top = np.argsort(-scores, kind="stable")[: max(KS)]
        rankings.append([data.ids[i] for i in top if scores[i] > 0])
    return _mean_recalls(data, rankings)


def _rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[int]:
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, 1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda d: -scores[d])


def _mean_recalls(data: DevSet, rankings: list[list[str]]) -> dict[int, float]:
    return {
        k: float(
            np.mean(
                [recall_at(r, g, k, data.capped) for r, g in zip(rankings, data.gold, strict=True)]
            )
        )
        for k in KS
    }


def brute_force(
    data: DevSet, name: str, vectors: np.ndarray, langs: list[str]
) -> tuple[dict[str, dict[int, float]], list[QueryLists]]:
    """Recall of numpy cosine, bm25s, their RRF, and the auto rule applied to the same lists.

    Also returns each query's lists and scores, for the fusion variants.
    """
    import bm25s

    tok = _tokenizer(data.name.startswith("rgb"))
    corpus = [tok(t) for t in data.texts]
    bm25 = bm25s.BM25()
    bm25.index(corpus, show_progress=False)
    qvecs = query_vectors(name, data.questions)
    info = {"embedding": name, "chunk_languages": True}
    out: dict[str, list[list[str]]] = {side: [] for side in SIDES}
    not_zh = np.array([lang != "zh" for lang in langs])
    lists: list[QueryLists] = []
    for q, qv in zip(data.questions, qvecs, strict=True):
        sims = vectors @ qv
        dense = np.argsort(-sims, kind="stable")[:POOL].tolist()
        scores = bm25.get_scores(tok(expand_for_bm25(q)))
        sparse = np.argsort(-scores, kind="stable")[:POOL].tolist()
        sparse = [i for i in sparse if scores[i] > 0]
        lists.append(QueryLists(np.array(dense), np.array(sparse, dtype=int), sims, scores))
        plan = plan_fusion(q, info)
        if plan.kind == "sparse":
            auto = sparse
        elif plan.kind == "dense":
            auto = dense
        else:
            allowed = [
                i
                for i in dense
                if not plan.dense_filter or (not_zh[i] and sims[i] > (plan.related_above or -1.0))
            ]
            auto = _rrf([allowed, sparse]) if allowed else sparse
        for side, ranking in zip(SIDES, (dense, sparse, _rrf([dense, sparse]), auto), strict=True):
            out[side].append([data.ids[i] for i in ranking[: max(KS)]])
    feedback = feedback_rankings(data.questions, corpus, tok, bm25, max(KS))
    out[FEEDBACK] = [[data.ids[i] for i in ranking] for ranking in feedback]
    recalls = {side: _mean_recalls(data, rankings) for side, rankings in out.items()}
    return recalls, lists


def variant_rows(data: DevSet, name: str, lists: list[QueryLists]) -> list[str]:
    """Rows of the fusion-variants table: each rule's R@5 on the half it was not fitted on."""

    def recall(i: int, ranking: list[int]) -> float:
        return recall_at([data.ids[p] for p in ranking], data.gold[i], 5, data.capped)

    bm25 = np.array([recall(i, q.sparse.tolist()) for i, q in enumerate(lists)])
    a, b = bm25[0::2].mean(), bm25[1::2].mean()
    rows = [f"| {data.name} | {name} | BM25 alone | - | {b:.3f} | {a:.3f} | {bm25.mean():.3f} |"]
    for rule, (knobs, on_b, on_a, both) in held_out(lists, recall).items():
        cells = f"{on_b:.3f} | {on_a:.3f} | {both:.3f} ({both - bm25.mean():+.3f})"
        rows.append(f"| {data.name} | {name} | {rule} | {knobs} | {cells} |")
    return rows


def _fill(store: ChunkStore, chunks: list[Chunk], vectors: np.ndarray) -> None:
    """Create the collection and write the passages with their cached vectors."""
    store.ensure(vectors.shape[1], [c.text for c in chunks[:3]])
    for start in range(0, len(chunks), 1000):
        store.insert(chunks[start : start + 1000], vectors[start : start + 1000].tolist())
    store.flush()


def product(
    data: DevSet, name: str, vectors: np.ndarray, langs: list[str], workdir: Path
) -> dict[str, dict[int, float]]:
    """Recall through `Retriever` on Milvus Lite holding the same passages and vectors."""
    ctx = Context(
        data_dir=str(workdir / name), collection="fusion", analyzer="auto", embedding_model=name
    )
    store = ChunkStore(ctx, embedder(name))
    chunks = [
        Chunk(pid[:64], text, pid, pid, 0, pid[:16], {"lang": lang})
        for pid, text, lang in zip(data.ids, data.texts, langs, strict=True)
    ]
    _fill(store, chunks, vectors)
    runs = {
        "dense": Retriever(store, topk=5, search_type="dense"),
        "sparse": Retriever(store, topk=5, search_type="sparse"),
        "hybrid RRF (before)": Retriever(
            store, topk=5, search_type="hybrid", ranker_params={"k": 60, "candidates": 50}
        ),
        "hybrid auto (now)": Retriever(
            store,
            topk=5,
            search_type="hybrid",
            ranker_type="auto",
            ranker_params={"k": 60, "candidates": 50},
        ),
    }
    runs[FEEDBACK] = Retriever(store, topk=5, search_type="sparse", feedback=True)
    runs[HYBRID_FEEDBACK] = Retriever(
        store,
        topk=5,
        search_type="hybrid",
        ranker_type="auto",
        ranker_params={"k": 60, "candidates": 50},
        feedback=True,
    )
    if store.analyzer == "bigram":
        words = Context(
            data_dir=str(workdir / name), collection="words", analyzer="jieba", embedding_model=name
        )
        before = ChunkStore(words, embedder(name))
        _fill(before, chunks, vectors)
        runs[WORDS_ONLY] = Retriever(before, topk=5, search_type="sparse")
    out = {}
    for side, retriever in runs.items():
        rankings = [[d.metadata["source"] for d in retriever.search(q)] for q in data.questions]
        out[side] = _mean_recalls(data, rankings)
    return out


def throughput(names: Sequence[str], texts: Sequence[str]) -> dict[str, float]:
    """Passages/s of each embedder on the same passages (model loaded before timing)."""
    rates = {}
    for name in names:
        emb = embedder(name)
        emb.embed_documents(["warm-up"])
        start = time.perf_counter()
        emb.embed_documents(list(texts))
        rates[name] = len(texts) / (time.perf_counter() - start)
        print(f"  {name}: {rates[name]:.1f} passages/s", flush=True)
    return rates


def _set(spec: str, cache: dict[str, DevSet]) -> DevSet:
    """'rgb' (whole rgb_zh_300), 'rgbN' (every N-th question with its pool), 'hotpot'."""
    base = "hotpot" if spec.startswith("hotpot") else "rgb"
    if base not in cache:
        cache[base] = load_hotpotqa() if base == "hotpot" else load_rgb_zh()
    every = spec[len(base) :]
    return cache[base].subset(int(every)) if every else cache[base]


WHOLE = (
    "e5-small:rgb",
    "use-m3:rgb",
    "e5-small:hotpot",
    "use-m3:hotpot",
    "minilm:hotpot",
)
"""`--fusion whole`: both dev sets whole, each embedder (MiniLM on Chinese: LANDMINES.md)."""


def run(runs: Sequence[str], with_product: bool = True) -> str:
    """Measure each 'embedder:set' run ('whole' = WHOLE) and return the BENCHMARKS.md section."""
    if list(runs) == ["whole"]:
        runs = WHOLE
    began = time.perf_counter()
    cache: dict[str, DevSet] = {}
    names = list(dict.fromkeys(r.split(":")[0] for r in runs))
    rgb, hotpot = _set("rgb", cache), _set("hotpot", cache)
    rows: list[str] = []
    variants: list[str] = []
    whole_rates: dict[str, float] = {}
    load = os.getloadavg()[0]
    rates_zh = throughput(names, rgb.texts[:THROUGHPUT_SAMPLE])
    rates_en = throughput(names, hotpot.texts[:THROUGHPUT_SAMPLE])
    for spec in runs:
        name, set_spec = spec.split(":")
        data = _set(set_spec, cache)
        vectors, rate = passage_vectors(name, data.texts)
        if rate is not None:
            whole_rates[name] = rate
        langs: list[str] = [language_of(t) for t in data.texts]
        print(f"{data.name} / {name}: {len(data.texts)} passages", flush=True)
        brute, lists = brute_force(data, name, vectors, langs)
        variants += variant_rows(data, name, lists)
        print("\n".join("  " + row for row in variants[-6:]), flush=True)
        milvus: dict[str, dict[int, float]] = {}
        if with_product:
            with tempfile.TemporaryDirectory(prefix="treerag-fusion-") as tmp:
                milvus = product(data, name, vectors, langs, Path(tmp))
        if data.name.startswith("rgb"):
            brute[WORDS_ONLY] = words_only_recall(data)
        sides = [*SIDES, FEEDBACK, HYBRID_FEEDBACK, *([WORDS_ONLY] if WORDS_ONLY in brute else [])]
        for side in sides:
            got, ref = milvus.get(side, {}), brute.get(side, {})
            cells = [f"{got[k]:.3f}" if got else "n/a" for k in KS]
            cells += [f"{ref[k]:.3f}" if ref else "n/a" for k in KS]
            rows.append(f"| {data.name} | {name} | {side} | {' | '.join(cells)} |")
            print("  " + rows[-1], flush=True)
    rate_rows = [
        f"| {name} | {rates_zh[name]:.1f} | {rates_en[name]:.1f} | "
        + (f"{whole_rates[name]:.1f} |" if name in whole_rates else "cached |")
        for name in names
    ]
    minutes = (time.perf_counter() - began) / 60
    return "\n".join(
        [
            "## Language-aware fusion (`benchmarks/retrieval.py --fusion`)",
            "",
            f"Runs: {', '.join(runs)}. Whole run {minutes:.1f} min on a shared 2-core machine "
            f"(load average {load:.1f} at the start: absolute speeds are low; compare "
            "embedders within the table). 'rgb_zh_300' rows are the whole corpus (300 "
            "questions, 7,337 passages); a set named 'every Nth question' is a subset.",
            "",
            "Recall@k per side, through the product's `Retriever` on Milvus Lite (BM25 with "
            "the `bigram` analyzer for rgb_zh_300: jieba's words and character pairs, "
            "`treerag/retrievers/lexical.py`; the standard analyzer for hotpotqa_100) and by "
            "brute force over the same passages and vectors (numpy cosine; bm25s over the same "
            "Chinese terms, or English words; both without the English stop words the "
            f"analyzers drop; '{WORDS_ONLY}' is BM25 over jieba's "
            "search-mode words alone, what `jieba` collections index; RRF(60) of the two "
            "top-100 lists; the auto rule "
            "applied to those lists). rgb_zh_300 recall is capped: |gold ∩ top-k| / min(k, "
            "|gold|). 'hybrid RRF (before)' is what `--mode hybrid` did before the auto ranker; "
            "'hybrid auto (now)' is the default now. Both sides search BM25 with the query's "
            "script forms added (`expand_for_bm25`). The two 'RM3 feedback' rows search with "
            "`TREERAG_BM25_FEEDBACK` on (off by default: `treerag/retrievers/feedback.py`, "
            "Anserini's RM3 defaults, nothing fitted); by brute force the same rule over "
            "bm25s's scores.",
            "",
            "all-MiniLM-L6-v2 on the whole rgb_zh_300 (brute force, LANDMINES.md): dense R@5 "
            "0.162, BM25 0.623, RRF 0.390; the auto rule answers Chinese queries on a MiniLM "
            "collection with BM25 alone (`minilm:rgb` embeds 7,337 Chinese passages with an "
            "English model: tens of minutes on a loaded 2-core machine). e5-small's rgb_zh_300 "
            "vectors (7,337 passages, about 20 min on 2 cores) come from the cache when it "
            "holds them. `TREERAG_EMBEDDING_MODEL=auto` (the default) gives a new collection "
            "`minilm` when its documents are English and `e5-small` when they are not "
            "(`treerag/embedder_choice.py`): the product's default is the minilm rows on "
            "hotpotqa_100 and the e5-small rows on rgb_zh_300.",
            "",
            "| Set | Embedder | Side | R@2 Milvus | R@5 Milvus | R@2 brute | R@5 brute |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            "Other fusion rules, brute force on the same lists (`benchmarks/_fusion_variants.py`"
            " says each rule): each rule's one knob is fitted on half A (even-numbered "
            "questions) and R@5 reported on half B, then fitted on B and reported on A; "
            "'held-out' scores every question with the knob fitted on the other half "
            "(difference to BM25 alone in brackets).",
            "",
            "| Set | Embedder | Rule | Knob fitted on A / on B | R@5 half B | R@5 half A "
            "| R@5 held-out (vs BM25) |",
            "|---|---|---|---|---|---|---|",
            *variants,
            "",
            f"Embedding throughput (passages/s, model loaded before timing): the same "
            f"{THROUGHPUT_SAMPLE} passages for every embedder, and the whole set when it was "
            "embedded in this run rather than read from the cache:",
            "",
            "| Embedder | rgb_zh_300 sample | hotpotqa_100 sample | whole set in this run |",
            "|---|---|---|---|",
            *rate_rows,
        ]
    )
