"""Several processes: a writer killed with SIGKILL, and two writers at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from treerag.keyword_tree import KeywordTree

REPO = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent(
    """
    import sys
    from treerag.keyword_tree import KeywordTree

    tree = KeywordTree(sys.argv[1])
    tag = sys.argv[2]
    count = int(sys.argv[3])
    root = tree.create_keyword(f"root-{tag}").node.id
    print("kw", root, flush=True)
    previous = root
    for i in range(count):
        node = tree.create_keyword(f"{tag}-{i}", parent_id=previous if i % 3 else root).node
        print("kw", node.id, flush=True)
        info = tree.create_info(f"text {tag} {i}", keyword_ids=[node.id, root]).info
        print("info", info.id, flush=True)
        if i % 5 == 4:
            tree.update_keyword(node.id, {"description": f"d{i}"})
        if i % 10 == 9 and tag in ("p", "r1"):  # a new file generation under the other writer
            tree.compact_storage()
        previous = node.id
    tree.close()
    print("done", flush=True)
    """
)


def _spawn(store: Path, tag: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store), tag, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _check_integrity(tree: KeywordTree) -> None:
    index = tree.index
    for node_id, rec in index.nodes.items():
        assert rec["parent_id"] is None or rec["parent_id"] in index.nodes, node_id
    for info_id, links in index.kw_by_info.items():
        assert info_id in index.info_offsets
        assert all(k in index.nodes for k in links)
        tree.get_info(info_id)  # the body decodes


def test_sigkilled_writer_loses_no_acknowledged_write(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    acked: dict[str, set[str]] = {"kw": set(), "info": set()}
    for round_ in range(2):
        proc = _spawn(store, f"r{round_}", 10_000)
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        seen = 0
        while seen < 60 + 25 * round_ and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            kind, ident = line.split()
            acked[kind].add(ident)
            seen += 1
        assert seen == 60 + 25 * round_, f"the writer acknowledged only {seen} writes"
        proc.send_signal(signal.SIGKILL)
        rest, err = proc.communicate(timeout=30)
        for line in rest.splitlines():  # acknowledged just before the kill
            kind, ident = line.split()
            acked[kind].add(ident)
        assert proc.returncode == -signal.SIGKILL, err
        tree = KeywordTree(store)
        assert acked["kw"] <= set(tree.index.nodes)
        assert acked["info"] <= set(tree.index.info_offsets)
        assert all(
            "corrupt" not in str(issue) and "not valid" not in str(issue) for issue in tree.issues
        )
        _check_integrity(tree)
        tree.close()


def test_two_processes_write_at_the_same_time(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    KeywordTree(store).close()
    procs = [_spawn(store, tag, 25) for tag in ("p", "q")]
    outputs = [p.communicate(timeout=180) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.rstrip().endswith("done")
    tree = KeywordTree(store)
    ids = {
        line.split()[1] for out, _ in outputs for line in out.splitlines() if line.startswith("kw")
    }
    infos = {
        line.split()[1]
        for out, _ in outputs
        for line in out.splitlines()
        if line.startswith("info")
    }
    assert len(ids) == 52 and ids <= set(tree.index.nodes)
    assert len(infos) == 50 and infos <= set(tree.index.info_offsets)
    assert {n.name for n in tree.get_roots()} == {"root-p", "root-q"}
    assert tree.get_infos_of_keyword(tree.exact_ids("root-p")[0]).total == 25
    assert tree.issues == []
    _check_integrity(tree)
    tree.close()


TORN = textwrap.dedent(
    """
    import sys, time
    from treerag.keyword_tree import KeywordTree, storage

    real = storage.write_all
    calls = {"n": 0}

    def tearing(fd, data):
        calls["n"] += 1
        if calls["n"] == int(sys.argv[2]):
            real(fd, data[: len(data) // 2])  # half a record reaches the file...
            print("torn", flush=True)
            time.sleep(60)  # ...and the process is killed here
        real(fd, data)

    storage.write_all = tearing
    tree = KeywordTree(sys.argv[1])
    for i in range(100):
        node = tree.create_keyword(f"n{sys.argv[2]}-{i}").node
        print("kw", node.id, flush=True)
    """
)


def test_writer_killed_in_the_middle_of_a_record(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    for tear_at in (7, 8):  # the 4th operation's data write, then its log write
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen(
            [sys.executable, "-c", TORN, str(store), str(tear_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        acked = set()
        for line in proc.stdout:
            if line.startswith("torn"):
                break
            acked.add(line.split()[1])
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        tree = KeywordTree(store)
        assert len(acked) == 3, err
        assert acked <= set(tree.index.nodes)
        assert any("uncommitted" in str(issue) for issue in tree.issues)
        count = len(tree.index.nodes)
        tree.create_keyword(f"after tear {tear_at}")
        tree.close()
        clean = KeywordTree(store)
        assert clean.issues == [] and len(clean.index.nodes) == count + 1
        clean.close()
