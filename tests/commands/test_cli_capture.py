"""`recall-gate capture`: a user's retriever from MODULE:FACTORY, run over the
cases, written atomically, scored like `score`. Bad input exits 2 with one
message naming the case, field and fix, and leaves no artifacts file."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from recall_gate.cli import main
from synthetic_kb import write_kb

APP = '''
from pathlib import Path

DOCS = Path(__file__).parent / "docs"

def search(query, k):
    """A plain retriever: file names whose text shares a word with the query."""
    words = set(query.lower().split())
    hits = []
    for path in sorted(DOCS.rglob("*.md")):
        shared = len(words & set(path.read_text(encoding="utf-8").lower().split()))
        if shared:
            hits.append({"metadata": {"source": str(path)}, "score": float(shared)})
    return sorted(hits, key=lambda h: -h["score"])[:k]

def build():
    return search

def broken_query(query, k):
    if "Rechnung" in query:
        raise ConnectionError("embedding API unreachable")
    return search(query, k)

def no_ids(query, k):
    return [{"text": "a document without any id field"}]

def page_urls(query, k):  # a site search's answer, and a KB that is no site's content folder
    return ["https://docs.example.org/en/billing/"]

def not_a_retriever():
    return 42

def failing_factory():
    raise RuntimeError("OPENAI_API_KEY is not set")

def big_metadata(query, k):
    hits = search(query, k)
    for hit in hits[:1]:
        hit["metadata"]["text"] = "x" * 4096
    return hits
'''


def cli(cwd: Path, *argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(argv), environ={}, stdout=stdout, stderr=stderr, cwd=cwd)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = write_kb(tmp_path)
    (root / "shop_rag.py").write_text(APP, encoding="utf-8")
    (root / "recall-gate.yaml").write_text("k: 3\nkb: docs\ncases: cases.yaml\n", encoding="utf-8")
    sys.modules.pop("shop_rag", None)  # this test's own copy, not a previous test's
    return root


def test_capture_writes_a_self_contained_capture_and_prints_the_score(app: Path) -> None:
    code, out, err = cli(app, "capture", "--retriever", "shop_rag:build", "--out", "a.jsonl")
    assert code == 0, err
    assert "recall-gate: captured 6 cases at k = 3 with shop_rag.search (callable) → a.jsonl" in err
    assert "recall-gate default: REPORT-ONLY" in out
    assert "recall@3" in out
    lines = [json.loads(line) for line in (app / "a.jsonl").read_text().splitlines()]
    assert lines[0]["retriever"] == {
        "adapter": "callable",
        "name": "shop_rag.search",
        "params": {"k": 3},
    }
    assert "retriever" not in lines[1]
    first = lines[0]
    assert first["case_id"] == "en-1"
    # The retriever's own metadata is kept beside the card it maps to; a path in
    # it relative to the project (here no repository: the KB's folder).
    assert first["retrieved"][0] == {
        "id": "en/refills",
        "score": 4.0,
        "metadata": {"source": "en/refills.md"},
    }
    assert (first["language"], first["case_type"], first["must_cite_one_of"]) == (
        "en",
        "golden",
        ["en/refills"],
    )
    # `score` of that file alone reports the same numbers as the capture did.
    code, scored, _ = cli(app, "score", "--artifacts", "a.jsonl")
    assert code == 0
    assert scored.split("\n\n", 1)[1] == out.split("\n\n", 1)[1]


def test_capture_works_from_another_folder_with_the_config_at_the_project_root(
    app: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    config = str(app / "recall-gate.yaml")
    argv = ["capture", "--config", config, "--retriever", "shop_rag:build", "--out", "a.jsonl"]
    code, out, err = cli(elsewhere, *argv)
    assert code == 0, err
    assert (elsewhere / "a.jsonl").is_file()  # --out is relative to where you are
    assert "KB:       " in out


def test_the_label_and_id_field_are_recorded(app: Path) -> None:
    argv = ["--retriever", "shop_rag:search", "--out", "a.jsonl", "--label", "keyword v1"]
    code, _, err = cli(app, "capture", *argv, "--id-from", "metadata.source", "--json", "r.json")
    assert code == 0, err
    retriever = json.loads((app / "r.json").read_text())["provenance"]["retriever"]
    assert retriever["label"] == "keyword v1"
    assert retriever["params"] == {"k": 3, "id_from": "metadata.source"}


BAD = {
    "module does not import": (
        "nowhere.rag:build",
        "--retriever nowhere.rag:build: cannot import 'nowhere.rag': ModuleNotFoundError: "
        "No module named 'nowhere'\n  fix: run from the project folder or pass --config",
    ),
    "no such factory": (
        "shop_rag:make",
        "--retriever shop_rag:make: module 'shop_rag' has no attribute 'make'\n"
        "  fix: define make in shop_rag",
    ),
    "not MODULE:FACTORY": ("shop_rag", "--retriever 'shop_rag': expected MODULE:FACTORY"),
    "factory raises": (
        "shop_rag:failing_factory",
        "--retriever shop_rag:failing_factory: calling failing_factory() raised RuntimeError: "
        "OPENAI_API_KEY is not set",
    ),
    "no retriever": (
        "shop_rag:not_a_retriever",
        "builtins.int is no retriever recall-gate can drive\n"
        "  fix: return a LangChain retriever or vector store, a LlamaIndex retriever or index, "
        "a Haystack retriever component (run(query, top_k)), or a function (query, k) -> list",
    ),
    "raises on a query": (
        "shop_rag:broken_query",
        "case 'de-1': the retriever raised ConnectionError: embedding API unreachable "
        "(query 'wie kann ich meine Rechnung bezahlen'; 4 attempts)\n"
        "  fix: make the retriever answer this query",
    ),
    "no mappable id": (
        "shop_rag:no_ids",
        "case 'en-1', document 1: no field maps to a KB card (tried metadata.card_id: absent;",
    ),
    "page URLs, a KB that publishes none": (
        "shop_rag:page_urls",
        "case 'en-1', document 1: 'https://docs.example.org/en/billing/' is a page URL and the "
        "KB publishes no URLs to map it to a card (tried metadata.card_id: absent;",
    ),
}


@pytest.mark.parametrize(("spec", "message"), BAD.values(), ids=BAD.keys())
def test_bad_retriever_input_exits_2_with_one_message_and_no_artifacts_file(
    app: Path, spec: str, message: str
) -> None:
    (app / "old.jsonl").write_text("untouched\n", encoding="utf-8")
    for out in ("a.jsonl", "old.jsonl"):
        code, stdout, err = cli(app, "capture", "--retriever", spec, "--out", out)
        assert code == 2
        assert stdout == ""
        assert err.startswith("recall-gate: error: " + message)
        assert "Traceback" not in err
    assert not (app / "a.jsonl").exists()
    assert (app / "old.jsonl").read_text() == "untouched\n"
    assert [p.name for p in app.iterdir() if p.name.startswith(".")] == []


def test_an_unknown_id_field_names_the_field_and_the_fix(app: Path) -> None:
    argv = ["--retriever", "shop_rag:build", "--out", "a.jsonl", "--id-from", "metadata.url"]
    code, _, err = cli(app, "capture", *argv)
    assert code == 2
    assert err.startswith(
        "recall-gate: error: case 'en-1', document 1: --id-from metadata.url: absent\n"
        "  fix: name the field that holds the card id or file path"
    )
    assert not (app / "a.jsonl").exists()


def test_a_gold_typo_fails_before_the_retriever_runs(app: Path) -> None:
    cases = (app / "cases.yaml").read_text().replace("[de/rechnung]", "[de/rechnugn]")
    (app / "cases.yaml").write_text(cases, encoding="utf-8")
    code, _, err = cli(app, "capture", "--retriever", "shop_rag:failing_factory", "--out", "a")
    assert code == 1
    assert "did you mean 'de/rechnung'?" in err
    assert "failing_factory" not in err


def test_capture_needs_only_the_core_install(tmp_path: Path) -> None:
    """Importing the capture command and API pulls in no framework and no model."""
    probe = (
        "import sys, recall_gate, recall_gate.commands.capturing, recall_gate.retrievers.factory\n"
        "heavy = {'langchain_core', 'llama_index', 'haystack', 'torch', 'chromadb',\n"
        "         'sentence_transformers'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.strip() == "[]"


def test_a_callable_that_returns_no_list_names_the_case(app: Path) -> None:
    (app / "odd_rag.py").write_text("def search(query, k):\n    return 'en/refills'\n")
    sys.modules.pop("odd_rag", None)
    code, _, err = cli(app, "capture", "--retriever", "odd_rag:search", "--out", "a.jsonl")
    assert code == 2
    assert err.startswith(
        "recall-gate: error: odd_rag.search() returned a str, not a list\n"
        "  fix: return a list of card ids or file paths"
    )
    assert not (app / "a.jsonl").exists()


def test_the_retriever_and_its_label_may_live_in_the_config(app: Path) -> None:
    (app / "recall-gate.yaml").write_text(
        "k: 3\nkb: docs\ncases: cases.yaml\n"
        "capture: {retriever: 'shop_rag:build', label: shop-v2}\n",
        encoding="utf-8",
    )
    code, _, err = cli(app, "capture", "--out", "a.jsonl")
    assert code == 0, err
    first = json.loads((app / "a.jsonl").read_text().splitlines()[0])
    assert first["retriever"]["name"] == "shop_rag.search"
    assert first["retriever"]["label"] == "shop-v2"


def test_capture_without_a_retriever_anywhere_exits_2_saying_where_to_put_one(app: Path) -> None:
    code, _, err = cli(app, "capture", "--out", "a.jsonl")
    assert code == 2
    assert err == (
        "recall-gate: error: capture needs the retriever to run\n"
        "  fix: pass --retriever MODULE:FACTORY (e.g. app.rag:build_retriever), or set "
        "`capture: {retriever: MODULE:FACTORY}` in recall-gate.yaml\n"
    )
    assert not (app / "a.jsonl").exists()


def test_no_score_writes_the_capture_and_judges_nothing(app: Path) -> None:
    """The capture job of a two-job PR check: the file, and no score, comparison or verdict."""
    (app / "recall-gate.yaml").write_text(
        "k: 3\nkb: docs\ncases: cases.yaml\ngate: {floors: {hit: 1.0}}\n", encoding="utf-8"
    )
    code, out, err = cli(
        app, "capture", "--retriever", "shop_rag:build", "--out", "a.jsonl", "--no-score"
    )
    assert code == 0, err  # a floor of 1.0 would fail: nothing was judged
    assert out == ""
    assert "captured 6 cases" in err
    assert len((app / "a.jsonl").read_text().splitlines()) == 6


@pytest.mark.parametrize(
    "flag", [["--json", "r.json"], ["--comparison-json", "c.json"], ["--min-hit", "0.5"]]
)
def test_no_score_refuses_a_flag_only_scoring_honours(app: Path, flag: list[str]) -> None:
    code, _, err = cli(
        app, "capture", "--retriever", "shop_rag:build", "--out", "a.jsonl", "--no-score", *flag
    )
    assert code == 2
    assert "--no-score with" in err
    assert "fix:" in err
    assert not (app / "a.jsonl").exists()


def test_metadata_over_the_cap_is_left_out_with_one_note(app: Path) -> None:
    code, _, err = cli(app, "capture", "--retriever", "shop_rag:big_metadata", "--out", "a.jsonl")
    assert code == 0, err
    lines = [json.loads(line) for line in (app / "a.jsonl").read_text().splitlines()]
    answered = [line["retrieved"] for line in lines if line["retrieved"]]
    assert err.count("recall-gate: note: the metadata of") == 1
    assert (
        f"note: the metadata of {len(answered)} retrieved document(s) is not in the capture: "
        "over 2,048 bytes of JSON, or not JSON (each item keeps at most that much)"
    ) in err
    assert all("metadata" not in items[0] for items in answered)
    assert all("metadata" in item for items in answered for item in items[1:])
