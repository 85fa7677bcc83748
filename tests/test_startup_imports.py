"""`wikiq search` starts quickly: the answering layer and its HTTP client load only when a
question is asked, not when the CLI or the Python API is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import demo_copy


def test_importing_the_cli_and_the_api_leaves_the_http_client_and_models_unloaded() -> None:
    code = (
        "import sys, wikiq.cli, wikiq.wiki; "
        # `wikiq.llm` itself is a lazy face (embed/ takes `Embedder` from it): what must stay
        # unloaded is the registry with its providers and their HTTP client.
        "print(' '.join(sorted(m for m in ('httpx', 'wikiq.llm.spec', 'wikiq.llm.provider', "
        "'wikiq.answer.answerer') if m in sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def test_a_search_with_a_warm_cache_never_imports_scipy(tmp_path: Path) -> None:
    # scipy.sparse alone costs a process 0.2-0.4 s to import; it is for building caches only.
    vault = demo_copy(tmp_path)
    env = {**os.environ, "WIKIQ_CACHE_DIR": str(tmp_path / "cache")}
    code = (
        # argv given: main returns through SystemExit (without it, the console script's run
        # ends the process at once, before the `finally` could look at the modules).
        "import sys; from wikiq.cli import main; sys.argv = ['wikiq', *sys.argv[1:]]\n"
        "try:\n    main(sys.argv[1:])\nfinally:\n    print('scipy' in sys.modules, file=sys.stderr)\n"
    )
    ask = [sys.executable, "-c", code, "search", "How does a gravity assist work?", "--vault", str(vault), "--json"]
    cold = subprocess.run(ask, capture_output=True, text=True, env=env, check=True)
    warm = subprocess.run(ask, capture_output=True, text=True, env=env, check=True)
    assert cold.stderr.split()[-1] == "True"  # building the caches does use it
    assert warm.stderr.split()[-1] == "False"
    assert json.loads(warm.stdout)["results"] == json.loads(cold.stdout)["results"]


def test_embedding_a_question_with_the_bundled_model_leaves_the_http_client_unloaded() -> None:
    # Stage 0 with the local model needs no server: httpx would cost each search ~0.2 s.
    code = (
        "import sys\n"
        "from wikiq.llm.embedders import open_embedder\n"
        "try:\n    open_embedder('local:e5-small').embed_queries(['a question'])\n"
        "except Exception as err:  # the extra missing: the import check still holds\n"
        "    print(type(err).__name__, file=sys.stderr)\n"
        "print('httpx' in sys.modules, 'wikiq.llm.provider' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_an_answer_with_no_model_and_no_local_server_never_loads_the_http_client(
    tmp_path: Path,
) -> None:
    # `make ask` on a fresh machine: no model configured, no Ollama. Looking for one must not
    # cost the answer the HTTP client's import (~0.15 s) when its port refuses at once.
    import socket

    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    vault = demo_copy(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WIKIQ_", "OLLAMA_"))}
    env |= {
        "WIKIQ_CACHE_DIR": str(tmp_path / "cache"),
        "WIKIQ_CONFIG_DIR": str(tmp_path / "config"),  # no model configured
        "WIKIQ_EMBED": "off",
        "OLLAMA_HOST": f"127.0.0.1:{closed}",
    }
    code = (
        "import sys; from wikiq.cli import main\n"
        "try:\n    main(sys.argv[1:])\nfinally:\n    print('httpx' in sys.modules, file=sys.stderr)\n"
    )
    ask = [sys.executable, "-c", code, "ask", "How does a gravity assist work?", "--vault", str(vault), "--json"]
    done = subprocess.run(ask, capture_output=True, text=True, env=env, check=True)
    assert json.loads(done.stdout)["citations"]  # answered from the vault, quoting it
    assert done.stderr.split()[-1] == "False"


def test_the_cli_loads_numpy_with_one_blas_thread_unless_told_otherwise(tmp_path: Path) -> None:
    # OpenBLAS's threads spin ~0.1 s after numpy loads; wikiq makes no BLAS call for them.
    vault = demo_copy(tmp_path)
    code = (
        "import os, sys; from wikiq.cli import main\n"
        "try:\n    main(sys.argv[1:])\n"
        "finally:\n    print(os.environ.get('OPENBLAS_NUM_THREADS'), file=sys.stderr)\n"
    )
    search = [sys.executable, "-c", code, "search", "orbit", "--vault", str(vault), "--json"]
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["WIKIQ_CACHE_DIR"] = str(tmp_path / "cache")
    default = subprocess.run(search, capture_output=True, text=True, env=env, check=True)
    chosen = subprocess.run(search, capture_output=True, text=True, env={**env, "OPENBLAS_NUM_THREADS": "2"}, check=True)
    assert default.stderr.split()[-1] == "1"
    assert chosen.stderr.split()[-1] == "2"
