"""The data directory's layout: every file and folder treerag keeps there, named once.

```
<data_dir>/
  milvus.db/                 the chunks: text, vectors, BM25 (Milvus Lite; every tenant's
                             collection). The source of truth for what was ingested.
  milvus.db.endpoint         the Milvus Lite server sharing milvus.db between processes
                             (pid, port); rewritten by whichever process serves it
  milvus.db.election         lock files beside it: who serves it (`.election`), one
  milvus.db.writes           writer at a time (`.writes`); empty
  thread_tenants.sqlite      the server's index of which tenant owns each thread (its
                             checkpoints are in that tenant's checkpoints.sqlite)
  eval/<collection>.jsonl    the corpus `treerag eval` ingested into that collection
  tenants/<tenant>/          a tenant's own files, laid out as a tenant directory (below);
                             without tenants the data dir is the tenant directory
<tenant directory>
  documents.json             the documents manifest: when each file went in, which were
                             skipped, which derived store lags (the source of truth for those)
  uploads/                   files uploaded from the web page (kept, as their source)
  checkpoints.sqlite         the run history (LangGraph's SQLite checkpointer): every run of
                             `ask`, `chat` and the server (its chat threads too); the source
                             of truth for past runs' trees, with no copy anywhere else
  judge_cache.sqlite         verdicts already given (derived: lost, they are judged again)
  collections/<name>/        the stores directory of a collection other than the default;
                             the default collection's is the tenant directory itself
<stores directory>
  derived.lock               lock file: one process at a time brings the derived stores
                             up to the chunks (`documents.derived.reconcile`); empty
  keyword_tree/              the keyword tree (its own format: `treerag.keyword_tree.storage`);
                             derived from the chunks, unless imported or edited by hand
  knowledge_graph/
    passages.sqlite          the passage graph: passages linked to the entities they name,
                             derived from the chunks with no model (`docs rebuild` remakes it)
    world.json               the entity graph: entities, relations, their passages
    vectors.npz              its embeddings (derived from world.json: re-embedded when the
                             embedder changes)
    communities.json         its communities (derived from world.json)
<file>.damaged-<when>        a derived SQLite file (passages.sqlite, judge_cache.sqlite) found
                             damaged and made again: the old one is kept here (`set_aside`)
```

The entity graph comes from `treerag kg build` (a chat model's extraction) or `kg import`:
it is not remade from the chunks for free, so treat it as a source. `stores_dir` (a setting)
moves the stores directory elsewhere; `milvus_uri` and `checkpointer_uri` move those two
stores out of the data dir. `langgraph dev`, started in the data dir by `make serve`, keeps
its own list of threads and runs in `.langgraph_api/` there (their checkpoints are in
checkpoints.sqlite): that folder is the server's, not treerag's.

Paths are built here and nowhere else (`tests/foundation/test_data_layout.py` checks that no
other module spells these names), so a name changes in one place.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

MILVUS_FILE = "milvus.db"
ENDPOINT_SUFFIX = ".endpoint"
ELECTION_SUFFIX = ".election"
WRITES_SUFFIX = ".writes"
THREAD_TENANTS_FILE = "thread_tenants.sqlite"
EVAL_DIR = "eval"
TENANTS_DIR = "tenants"

MANIFEST_FILE = "documents.json"
UPLOADS_DIR = "uploads"
CHECKPOINTS_FILE = "checkpoints.sqlite"
JUDGE_CACHE_FILE = "judge_cache.sqlite"
COLLECTIONS_DIR = "collections"

RECONCILE_LOCK_FILE = "derived.lock"
KEYWORD_TREE_DIR = "keyword_tree"
KNOWLEDGE_GRAPH_DIR = "knowledge_graph"
PASSAGE_GRAPH_FILE = "passages.sqlite"
WORLD_FILE = "world.json"
VECTORS_FILE = "vectors.npz"
COMMUNITIES_FILE = "communities.json"
DAMAGED_SUFFIX = ".damaged-"
SQLITE_COMPANIONS = ("-wal", "-shm")

FILES = (
    MILVUS_FILE,
    THREAD_TENANTS_FILE,
    MANIFEST_FILE,
    CHECKPOINTS_FILE,
    JUDGE_CACHE_FILE,
    PASSAGE_GRAPH_FILE,
    WORLD_FILE,
    VECTORS_FILE,
    COMMUNITIES_FILE,
)
"""The files a data directory holds, by name (`milvus.db` is Milvus Lite's folder)."""
FOLDERS = (
    EVAL_DIR,
    TENANTS_DIR,
    UPLOADS_DIR,
    COLLECTIONS_DIR,
    KEYWORD_TREE_DIR,
    KNOWLEDGE_GRAPH_DIR,
)
"""The folders a data directory holds, by name."""


def milvus_file(data_dir: Path) -> Path:
    """The Milvus Lite store of the chunks (shared by every tenant)."""
    return data_dir / MILVUS_FILE


def endpoint_file(milvus_folder: str) -> Path:
    """The endpoint file of a Milvus Lite folder, next to it."""
    return Path(milvus_folder + ENDPOINT_SUFFIX)


def election_file(milvus_folder: str) -> Path:
    """The lock file of a Milvus Lite folder's election (who serves it), next to it."""
    return Path(milvus_folder + ELECTION_SUFFIX)


def writes_file(milvus_folder: str) -> Path:
    """The lock file that lets one process at a time write to a Milvus Lite folder."""
    return Path(milvus_folder + WRITES_SUFFIX)


def thread_tenants_file(data_dir: Path) -> Path:
    """The server's thread → tenant index."""
    return data_dir / THREAD_TENANTS_FILE


def eval_corpus_file(data_dir: Path, collection: str) -> Path:
    """The corpus `treerag eval` wrote for `collection`."""
    return data_dir / EVAL_DIR / f"{collection}.jsonl"


def tenant_dir(data_dir: Path, tenant: str) -> Path:
    """A tenant's directory, `<data_dir>/tenants/<tenant>` (no tenant: the data dir).

    `tenant` must be in its normal form (`treerag.server.tenants.normalize_tenant`).
    """
    return data_dir / TENANTS_DIR / tenant if tenant else data_dir


def stores_dir(tenant: Path, collection: str, default_collection: str) -> Path:
    """Where a collection's derived stores live: the tenant's directory for the default."""
    if collection != default_collection:
        return tenant / COLLECTIONS_DIR / collection
    return tenant


def manifest_file(tenant: Path) -> Path:
    """The documents manifest."""
    return tenant / MANIFEST_FILE


def uploads_dir(tenant: Path) -> Path:
    """The folder of uploaded files."""
    return tenant / UPLOADS_DIR


def checkpoints_file(tenant: Path) -> Path:
    """The SQLite run history."""
    return tenant / CHECKPOINTS_FILE


def judge_cache_file(tenant: Path) -> Path:
    """The judge's verdict cache."""
    return tenant / JUDGE_CACHE_FILE


def reconcile_lock_file(stores: Path) -> Path:
    """The lock file held while the derived stores are brought up to the chunks."""
    return stores / RECONCILE_LOCK_FILE


def keyword_tree_dir(stores: Path) -> Path:
    """The keyword tree's folder."""
    return stores / KEYWORD_TREE_DIR


def has_keyword_tree(directory: Path) -> bool:
    """Whether `directory` holds a keyword tree (its change log exists)."""
    from treerag.keyword_tree.storage import LOG_FILE

    return (directory / LOG_FILE).exists()


def knowledge_graph_dir(stores: Path) -> Path:
    """The folder of the passage graph and the entity graph."""
    return stores / KNOWLEDGE_GRAPH_DIR


def passage_graph_file(graph_dir: Path) -> Path:
    """The passage graph, in a knowledge-graph folder."""
    return graph_dir / PASSAGE_GRAPH_FILE


def world_file(graph_dir: Path) -> Path:
    """The entity graph's main file, in a knowledge-graph folder."""
    return graph_dir / WORLD_FILE


def set_aside(path: Path) -> Path:
    """Move a damaged SQLite file and its WAL files aside under a dated name; return it.

    Only for files derived from others (made again by whoever opens the path next): the old
    one is kept, not deleted, for whoever wants to look at what went wrong.
    """
    stamp = f"{path.name}{DAMAGED_SUFFIX}{time.strftime('%Y%m%d-%H%M%S')}"
    aside, again = path.with_name(stamp), 1
    while aside.exists():  # set aside twice in a second: keep both
        again += 1
        aside = path.with_name(f"{stamp}-{again}")
    for suffix in ("", *SQLITE_COMPANIONS):
        part = Path(f"{path}{suffix}")
        if part.exists():
            part.rename(f"{aside}{suffix}")
    return aside


def damaged_sqlite(exc: BaseException) -> bool:
    """Whether an SQLite error says the file itself is damaged (not busy, not a full disk)."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)
