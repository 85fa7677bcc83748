"""`wikiq search` and `wikiq eval` on the demo vault, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_wikiq
from wikiq.text.glossary import chinese_english

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-vault"
QUESTIONS = ROOT / "examples" / "demo-questions.jsonl"


def test_search_json_is_the_design_contract() -> None:
    res = run_wikiq("search", "Hohmann transfer orbit", "--vault", str(DEMO), "--json", "-k", "3")
    assert res.code == 0, res.stderr
    data = json.loads(res.stdout)
    assert list(data) == ["query", "vault", "wiki_folder", "arm", "covered", "pure_llm", "seeds", "results", "timings_ms", "coverage", "sources"]
    assert data["covered"] == "yes"
    assert data["vault"] == str(DEMO.resolve()) and data["wiki_folder"] == "wiki"
    assert data["arm"] == "Lex+PPR" and data["pure_llm"] is False
    assert data["results"][0]["path"] == "concepts/hohmann-transfer-orbit"
    assert len(data["results"]) == 3
    assert data["results"][0]["score"] == 1.0


def test_search_explain_shows_matched_words_seeds_and_signals() -> None:
    res = run_wikiq("search", "嫦娥四号在哪里着陆？", "--vault", str(DEMO), "--explain")
    assert res.code == 0, res.stderr
    assert "Seeds" in res.stdout and "rank graph" in res.stdout
    assert "covered: yes  probability" in res.stdout and "text_coverage" in res.stdout
    assert "best_part –" in res.stdout  # a clause's share is worked out only when refused
    assert "name_context –" in res.stdout  # and a name's clause only beside an unknown name
    assert "嫦娥" in res.stdout
    # A Chinese question over an English vault: the glossary's channel is shown too.
    assert "rank translated" in res.stdout or chinese_english() is None


def test_uncovered_question_says_so() -> None:
    res = run_wikiq("search", "What is a good sourdough starter recipe?", "--vault", str(DEMO), "--json")
    data = json.loads(res.stdout)
    assert data["arm"] == "LLM+KB" and data["pure_llm"] is True and data["covered"] == "no"
    # The decision shows its inputs, and the closest pages are still listed for an agent.
    assert data["coverage"]["probability"] < data["coverage"]["thresholds"]["not_covered"]
    assert "text_coverage" in data["coverage"]["features"]
    assert data["results"] and all(r["path"] for r in data["results"])


def test_eval_reports_every_metric_in_one_process() -> None:
    res = run_wikiq("eval", str(QUESTIONS), "--vault", str(DEMO), "--json")
    assert res.code == 0, res.stderr
    data = json.loads(res.stdout)
    overall = data["overall"]
    for key in ("n", "recall@5", "recall@10", "all_gold@5", "mrr", "abstain_acc", "p50_ms", "p95_ms"):
        assert key in overall
    assert overall["n"] == sum(1 for line in QUESTIONS.read_text().splitlines() if line.strip())
    assert overall["recall@5"] >= 0.9 and overall["abstain_acc"] >= 0.8
    assert "uncovered" in data["by_kind"] and "zh" in data["by_kind"]
    assert sum(overall["covered"].values()) == overall["n"]
    assert data["by_kind"]["uncovered"]["covered"]["no"] >= 8
    first = data["per_question"][0]
    assert set(first) == {"id", "arm", "covered", "pure_llm", "results", "sources", "ms"}


def test_eval_ablation_and_bad_retriever_name() -> None:
    lexical = run_wikiq("eval", str(QUESTIONS), "--vault", str(DEMO), "--json", "--retriever", "lexical")
    assert lexical.code == 0
    full = run_wikiq("eval", str(QUESTIONS), "--vault", str(DEMO), "--json")
    assert json.loads(lexical.stdout)["overall"]["recall@5"] < json.loads(full.stdout)["overall"]["recall@5"]
    bad = run_wikiq("eval", str(QUESTIONS), "--vault", str(DEMO), "--retriever", "magic")
    assert bad.code != 0 and "Unknown --retriever 'magic'" in bad.stderr and "Traceback" not in bad.stderr


def test_malformed_questions_file_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "a", "question": "x", "gold": []}\nnot json\n')
    res = run_wikiq("eval", str(bad), "--vault", str(DEMO))
    assert res.code != 0 and f"{bad}:2" in res.stderr and "Traceback" not in res.stderr


def test_piped_eval_table_keeps_every_column_header_whole() -> None:
    res = run_wikiq("eval", str(QUESTIONS), "--vault", str(DEMO))
    assert res.code == 0, res.stderr
    header = res.stdout.splitlines()[0].split()
    assert header == ["set", "n", "recall@5", "recall@10", "all_gold@5", "mrr", "abstain_acc", "false_abstain", "p50_ms", "p95_ms", "covered", "y/u/n"]


def test_explain_fits_an_80_column_terminal_without_splitting_words() -> None:
    res = run_wikiq("search", "Hohmann transfer orbit", "--vault", str(DEMO), "--explain", env={"COLUMNS": "80"})
    assert res.code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    header = next(line for line in lines if line.split()[:3] == ["#", "score", "page"])
    assert header.split()[3:] == ["lex", "body", "lead", "ppr", "out", "cent"]
    assert any("concepts/hohmann-transfer-orbit" in line for line in lines)
