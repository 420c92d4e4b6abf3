"""`treerag eval`: score the naive, judge and full modes on a question-answering data set."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from treerag.cli.common import (
    DataDirOption,
    TopKOption,
    console,
    err_console,
    fail,
    make_run_context,
    quiet_libraries,
    staged_progress,
    user_errors,
)


def eval_command(
    questions: Path = typer.Option(..., "--questions", help="Questions file (see --format)."),
    corpus: Path = typer.Option(..., "--corpus", help="Corpus file (see --format)."),
    fmt: str = typer.Option(
        "generic",
        "--format",
        help="generic (questions JSONL id/question/answers/gold_ids, corpus JSONL "
        "id/title/text) or hotpotqa (questions.json + corpus.json title -> sentences).",
    ),
    modes: str = typer.Option(
        "naive,judge,full", "--modes", help="Comma-separated modes: naive, judge, full."
    ),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    out: Path = typer.Option(
        ..., "--out", help="Output folder; an existing results.jsonl is resumed."
    ),
    k: int = TopKOption,
    depth: int = typer.Option(
        None,
        "--max-depth",
        help="Recursion depth of the full mode (default: TREERAG_MAX_DEPTH, else 2).",
    ),
    data_dir: str = DataDirOption,
) -> None:
    """Evaluate answers (EM, F1) and evidence (recall@2, recall@5) of each mode.

    naive = retrieve and answer without judging; judge = one level of judging
    (max_depth 0); full = the recursive graph. Each (mode, question) becomes one line of
    OUT/results.jsonl; then OUT/report.json, report.md and report.png are written. Running
    again with the same --out skips what is done. Bad input exits with code 2.
    """
    from treerag.eval.datasets import FORMATS, DatasetError, load_dataset
    from treerag.eval.runner import EvalError, parse_modes

    quiet_libraries()
    if fmt not in FORMATS:
        fail(f"--format {fmt!r}: use {' or '.join(FORMATS)}", code=2)
    ctx = make_run_context(data_dir=data_dir, top_k=k)
    try:
        chosen = parse_modes(modes)
        dataset = load_dataset(questions, corpus, fmt)
    except (DatasetError, EvalError, FileNotFoundError) as exc:
        fail(str(exc), code=2)
    with user_errors():
        try:
            summary = _run(dataset, ctx, chosen, limit, out, depth)
        except EvalError as exc:
            fail(str(exc), code=2)
    _print_summary(summary, out)


def _run(
    dataset: Any, ctx: Any, modes: tuple[str, ...], limit: int | None, out: Path, depth: int | None
) -> dict[str, Any]:
    from treerag.eval.report import write_reports
    from treerag.eval.runner import RESULTS, ResultsFile, check_same_corpus, plan, selected

    store = _ingest(dataset, ctx)
    results = ResultsFile(out / RESULTS)
    existing = results.load()
    check_same_corpus(existing, store, out)
    work = plan(dataset, modes, limit, existing)
    skipped = len(work.questions) * len(modes) - len(work.pending)
    if skipped:
        console.print(f"[dim]resuming: {skipped} (mode, question) pairs already in {RESULTS}[/]")
    if ctx.offline:
        console.print(
            "[dim]no chat model configured: the offline reasoner answers (extractive); "
            "set TREERAG_CHAT_MODEL=openai:<model> for generated answers[/]"
        )
    if work.pending:
        _run_with_progress(work, dataset, store, out, depth)
    meta = _meta(dataset, store, work, depth)
    return write_reports(selected(results.load(), work), modes, out, meta)


def _ingest(dataset: Any, ctx: Any) -> Any:
    from treerag.eval.runner import prepare_store

    labels = {"load": "reading corpus", "embed": "embedding passages"}
    with staged_progress(labels) as progress:
        store = prepare_store(dataset, ctx, progress)
    added = store.report.added if store.report else 0
    state = f"{added} passages added" if added else "reused, unchanged"
    console.print(
        f"[dim]corpus: {len(dataset.passages)} passages in collection {store.collection} "
        f"({state})[/]"
    )
    return store


def _run_with_progress(work: Any, dataset: Any, store: Any, out: Path, depth: int | None) -> None:
    from treerag.eval.runner import run_plan

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    ) as bar:
        task = bar.add_task("evaluating", total=len(work.pending))

        def on_start(mode: str, question: Any) -> None:
            bar.update(task, description=f"{mode:<5} {escape(question.id[:24])}")

        def on_result(_record: dict[str, Any]) -> None:
            bar.advance(task)

        asyncio.run(run_plan(work, dataset, store, out, depth, on_start, on_result))


def _meta(dataset: Any, store: Any, work: Any, depth: int | None) -> dict[str, Any]:
    from treerag.embedder_choice import resolve_embedder

    ctx = store.ctx
    return {
        "questions": f"`{dataset.questions_path}` ({dataset.format}, {len(work.questions)} "
        f"of {len(dataset.questions)})",
        "corpus": f"`{dataset.corpus_path}` ({len(dataset.passages)} passages, "
        f"collection `{store.collection}`)",
        "reasoner": "offline (extractive)" if ctx.offline else ctx.chat_model,
        "retrieval": f"{ctx.search_mode}, top_k {ctx.top_k}",
        "full mode max_depth": depth if depth is not None else ctx.max_depth,
        "embeddings": resolve_embedder(ctx),
    }


def _print_summary(summary: dict[str, Any], out: Path) -> None:
    table = Table(title="evaluation")
    for col in ("mode", "n", "EM", "F1", "R@2", "R@5", "LLM calls", "p50 s"):
        table.add_column(col, justify="left" if col == "mode" else "right")
    for mode, s in summary.items():
        table.add_row(
            mode,
            str(s["n"]),
            *("–" if s[m] is None else f"{s[m]:.3f}" for m in ("em", "f1", "recall@2", "recall@5")),
            "–" if s["llm_calls_mean"] is None else f"{s['llm_calls_mean']:.1f}",
            "–" if s["latency_p50_s"] is None else f"{s['latency_p50_s']:.2f}",
        )
    console.print(table)
    if any(s["answers"].startswith("extractive") for s in summary.values()):
        console.print("[dim]answers are extractive (offline reasoner): EM/F1 are indicative[/]")
    written = "report.json, report.md" + (", report.png" if (out / "report.png").is_file() else "")
    console.print(f"[dim]wrote {out}/results.jsonl, {written}[/]")


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("eval")(eval_command)
