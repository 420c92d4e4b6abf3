"""Child process that runs llama.cpp's HTTP server (xllamacpp) on one GGUF file.

Run as `python -m treerag.local_llm.serve PATH ALIAS PORT N_CTX N_THREADS`. It prints
`READY <url>` once the model is loaded and the server listens, then serves until its standard
input closes, which happens when the parent stops it or dies: the server never outlives
treerag. llama.cpp ends the whole process when a model fails to load, which is why it runs
here and not inside treerag (a bad file must not take the caller down).
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """Load the model, announce the URL, and serve until stdin closes."""
    path, alias, port, n_ctx, n_threads = argv
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.model_alias = {alias}  # a set: a plain string would be split into characters
    params.hostnames = ["127.0.0.1"]
    params.port = int(port)
    params.n_ctx = int(n_ctx)  # 0 would mean the model's own 32k context
    params.n_parallel = 1  # one slot: judges queue, and the shared prompt prefix stays cached
    params.cpuparams.n_threads = int(n_threads)
    params.cpuparams_batch.n_threads = int(n_threads)
    # No busy-waiting between steps: on a shared or small machine spinning threads steal the
    # cores the other threads need (llama.cpp --poll 0).
    params.cpuparams.poll = 0
    params.cpuparams_batch.poll = 0
    server = xllamacpp.Server(params)
    print(f"READY {server.listening_address}", flush=True)
    sys.stdin.read()  # blocks until the parent closes the pipe or exits
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
