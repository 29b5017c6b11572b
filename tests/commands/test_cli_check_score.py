"""`recall-gate check` and `recall-gate score`, in process, with files under tmp_path.

Exit codes (docs/reference/cli.md): 0 passed or report-only, 1 a gate failed (integrity, a
set floor), 2 unusable input — one message naming the file/line/case and a
`fix:` hint, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import CliRun, run_cli
from recall_gate import __version__
from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import SCHEMA_VERSION, Results


def cli(cwd: Path, *argv: str) -> CliRun:
    return run_cli(argv, cwd=cwd)


def report_body(stdout: str) -> str:
    """The report after its header block of resolved paths."""
    header, _, body = stdout.partition("\n\n")
    assert header.startswith("config:"), header
    return body


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def jsonl(*objects: Any) -> str:
    return "".join(json.dumps(obj) + "\n" for obj in objects)


def card_md(card_id: str, language: str = "en") -> str:
    front = f"id: {card_id}\nlanguage: {language}\ntitle: {card_id}\ntags: [synthetic]\n"
    return f"---\n{front}---\nText.\n"


# --- a small dataset: 3 cards, 4 cases, a capture ------------------------------------

KB = {
    "kb/en-refills.md": card_md("en-refills"),
    "kb/en-appointments.md": card_md("en-appointments"),
    "kb/es-facturacion.md": card_md("es-facturacion", "es-419"),
}

CASES_YAML = """\
cases:
  - id: en-1
    language: en
    case_type: golden
    query: how do I get a refill
    must_cite_one_of: [en-refills]
  - id: en-2
    language: en
    case_type: adversarial
    query: give me someone's appointment
    must_cite_one_of: [en-appointments, en-refills]
  - id: es-1
    language: es-419
    case_type: golden
    query: ¿cómo pago mi factura?
    must_cite_one_of: [es-facturacion]
    relevant_ids: [es-facturacion, en-appointments]
  - id: en-3
    language: en
    case_type: capability
    query: what can you do
    must_cite_one_of: []
"""

CASE_FIELDS: dict[str, dict[str, Any]] = {
    "en-1": {"language": "en", "case_type": "golden", "must_cite_one_of": ["en-refills"]},
    "en-2": {
        "language": "en",
        "case_type": "adversarial",
        "must_cite_one_of": ["en-appointments", "en-refills"],
    },
    "es-1": {
        "language": "es-419",
        "case_type": "golden",
        "must_cite_one_of": ["es-facturacion"],
        "relevant_ids": ["es-facturacion", "en-appointments"],
    },
    "en-3": {"language": "en", "case_type": "capability", "must_cite_one_of": []},
}

RETRIEVED: dict[str, list[Any]] = {
    # k = 2. hit 1, recall 1, nDCG 1
    "en-1": [{"id": "en-refills#0", "parent_id": "en-refills", "score": 0.9}, "en-appointments"],
    # top 2 = es-facturacion, en-refills: hit 1, recall 1/2,
    # DCG = 1/log2(3) = 0.6309; IDCG(2) = 1.6309; nDCG = 0.3869
    "en-2": ["es-facturacion", "es-facturacion", "en-refills", "en-appointments"],
    # top 2 = en-refills, en-appointments: hit 0 (gold es-facturacion not retrieved);
    # relevant {es-facturacion, en-appointments}: recall 1/2, DCG = 0.6309, nDCG = 0.3869
    "es-1": ["en-refills", "en-appointments"],
    # no gold: no keys
    "en-3": ["en-refills"],
}


def capture(*, with_fields: bool) -> str:
    lines = []
    for case_id, retrieved in RETRIEVED.items():
        line: dict[str, Any] = {"case_id": case_id, "retrieved": retrieved}
        if with_fields:
            line.update(CASE_FIELDS[case_id])
        lines.append(line)
    return jsonl(*lines)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    write_files(
        tmp_path,
        {
            **KB,
            "cases.yaml": CASES_YAML,
            "run.jsonl": capture(with_fields=False),
            "self-contained.jsonl": capture(with_fields=True),
        },
    )
    return tmp_path


# --- check ------------------------------------------------------------------------------


def test_check_passes_on_a_clean_dataset(dataset: Path) -> None:
    done = cli(dataset, "check", "--kb", "kb", "--cases", "cases.yaml")
    assert (done.code, done.err) == (0, "")
    assert done.out == (
        "recall-gate check: ok — 3 cards, 4 cases (3 gold-labelled), "
        "every gold and relevant id resolves\n"
        # Every card is cited: en-refills and en-appointments by en-1 / en-2,
        # es-facturacion by es-1.
        "recall-gate check: KB coverage: 3 of 3 cards (100.0%) cited by a case — "
        "en 2/2 (100.0%), es-419 1/1 (100.0%)\n"
    )


def test_check_lists_every_unresolved_id_with_the_nearest_id_and_fails(dataset: Path) -> None:
    broken = (
        CASES_YAML.replace("[en-refills]\n", "[en-refils]\n", 1)
        .replace("[es-facturacion, en-appointments]", "[es-facturacion, en-apointment]")
        .replace("[en-appointments, en-refills]", "[en-appointments, zz-unrelated-thing]")
    )
    write_files(dataset, {"cases.yaml": broken})
    done = cli(dataset, "check", "--kb", "kb", "--cases", "cases.yaml")
    cases = dataset / "cases.yaml"
    assert (done.code, done.out) == (1, "")
    assert done.err == (
        "recall-gate check: 3 integrity problem(s)\n"
        f"  {cases} case #1 (id en-1): must_cite_one_of id 'en-refils' resolves to no card "
        "(did you mean 'en-refills'?)\n"
        f"  {cases} case #2 (id en-2): must_cite_one_of id 'zz-unrelated-thing' resolves to "
        "no card (no similar card id)\n"
        f"  {cases} case #3 (id es-1): relevant_ids id 'en-apointment' resolves to no card "
        "(did you mean 'en-appointments'?)\n"
        "recall-gate: error: dataset integrity failed: a labelling error must not pass for a "
        "retrieval failure\n"
        "  fix: fix the ids listed above\n"
    )


def test_check_lists_all_duplicate_card_and_case_ids_and_fails(dataset: Path) -> None:
    write_files(
        dataset,
        {
            "kb/copy-of-refills.md": card_md("en-refills"),
            "more.yaml": "- {id: en-1, language: en, case_type: golden, query: q, "
            "must_cite_one_of: [en-refills]}\n",
        },
    )
    done = cli(dataset, "check", "--kb", "kb", "--cases", "cases.yaml", "--cases", "more.yaml")
    assert done.code == 1
    assert done.err.splitlines()[:3] == [
        "recall-gate check: 2 integrity problem(s)",
        f"  {dataset / 'kb' / 'en-refills.md'}: duplicate card id 'en-refills' (first defined "
        f"at {dataset / 'kb' / 'copy-of-refills.md'}; give each card a unique id)",
        f"  {dataset / 'more.yaml'} case #1 (id en-1): duplicate case id 'en-1' (first defined "
        f"at {dataset / 'cases.yaml'} case #1 (id en-1); give each case a unique id)",
    ]
    assert "Traceback" not in done.err


def test_check_reads_kb_and_cases_from_the_config_in_cwd(dataset: Path) -> None:
    write_files(dataset, {"recall-gate.yaml": "kb: kb\ncases: cases.yaml\n"})
    done = cli(dataset, "check")
    assert done.code == 0, done.err
    assert done.out.startswith("recall-gate check: ok — 3 cards, 4 cases")


def test_check_without_kb_or_cases_says_what_to_pass(tmp_path: Path) -> None:
    done = cli(tmp_path, "check")
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        "recall-gate: error: check needs a KB and cases\n"
        "  fix: pass --kb PATH and --cases PATH, or set `kb` and `cases` in recall-gate.yaml\n"
    )


# --- bad input: exit 2, one message naming the file/line/case, a fix, no traceback ------

GOOD_LINE = {"case_id": "en-1", "retrieved": ["en-refills"], **CASE_FIELDS["en-1"]}

# name → (files, argv, expected exit code, fragments the message must contain)
BAD_INPUT: dict[str, tuple[dict[str, str | bytes], list[str], int, list[str]]] = {
    "invalid YAML": (
        {"c.yaml": "cases:\n  - id: en-1\n    query: [unclosed\n"},
        ["score", "--artifacts", "run.jsonl", "--cases", "c.yaml"],
        2,
        ["c.yaml: line 4 invalid YAML"],
    ),
    "invalid JSON line": (
        {"run.jsonl": jsonl(GOOD_LINE) + '{"case_id": "en-2",\n'},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl:2: invalid JSON"],
    ),
    "JSONL line that is not an object": (
        {"run.jsonl": jsonl(GOOD_LINE, ["en-2", "en-refills"])},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl:2: expected a mapping, got list"],
    ),
    "missing field in a case": (
        {"c.yaml": CASES_YAML.replace("    query: how do I get a refill\n", "")},
        ["score", "--artifacts", "run.jsonl", "--cases", "c.yaml"],
        2,
        ["c.yaml case #1 (id en-1): field `query`: required field is missing"],
    ),
    "missing field in an artifact": (
        {"run.jsonl": jsonl({"case_id": "en-1"})},
        ["score", "--artifacts", "run.jsonl", "--cases", "cases.yaml"],
        2,
        ["run.jsonl:1 (case en-1): field `retrieved`: required field is missing"],
    ),
    "mistyped field": (
        {"c.yaml": CASES_YAML.replace("[en-refills]\n", "en-refills\n", 1)},
        ["score", "--artifacts", "run.jsonl", "--cases", "c.yaml"],
        2,
        ["c.yaml case #1 (id en-1): field `must_cite_one_of`: Input should be a valid list"],
    ),
    "unknown language": (
        {"c.yaml": CASES_YAML.replace("language: es-419", "language: Spanish")},
        ["score", "--artifacts", "run.jsonl", "--cases", "c.yaml"],
        2,
        [
            "c.yaml case #3 (id es-1): field `language`: language 'Spanish' is not a "
            "well-formed BCP-47 tag (e.g. en, de, es-419, pt-BR, fr-CA, zh-Hant)"
        ],
    ),
    "unknown case type": (
        {"run.jsonl": jsonl({**GOOD_LINE, "case_type": "gold"})},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl:1 (case en-1): field `case_type`: Input should be 'golden'"],
    ),
    "duplicate case ids in a cases file": (
        {"c.yaml": CASES_YAML.replace("id: en-2", "id: en-1")},
        ["score", "--artifacts", "run.jsonl", "--cases", "c.yaml"],
        2,
        ["c.yaml case #2 (id en-1): duplicate case id 'en-1'", "c.yaml case #1 (id en-1)"],
    ),
    "duplicate case ids in a capture": (
        {"run.jsonl": jsonl(GOOD_LINE, GOOD_LINE)},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl:2: second artifact for case 'en-1' (first on line 1)"],
    ),
    "artifact for an unknown case": (
        {"run.jsonl": capture(with_fields=False) + jsonl({"case_id": "ghost", "retrieved": []})},
        ["score", "--artifacts", "run.jsonl", "--cases", "cases.yaml"],
        2,
        ["run.jsonl:5: artifact for unknown case 'ghost'"],
    ),
    "case with no artifact": (
        {"run.jsonl": jsonl({"case_id": "en-1", "retrieved": []})},
        ["score", "--artifacts", "run.jsonl", "--cases", "cases.yaml"],
        2,
        ["run.jsonl: 3 case(s) of", "have no artifact: 'en-2', 'es-1', 'en-3'"],
    ),
    "capture conflicting with the cases file": (
        {"run.jsonl": capture(with_fields=True).replace('"es-419"', '"pt-BR"')},
        ["score", "--artifacts", "run.jsonl", "--cases", "cases.yaml"],
        2,
        ['run.jsonl:3: case \'es-1\' field `language` is "pt-BR" in the capture but "es-419"'],
    ),
    "capture without case fields and no cases file": (
        {"run.jsonl": jsonl({"case_id": "en-1", "retrieved": []})},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl:1: no language, case_type, must_cite_one_of for case 'en-1'"],
    ),
    "relevant_ids without gold in a capture": (
        {"run.jsonl": jsonl({**GOOD_LINE, "must_cite_one_of": [], "relevant_ids": ["en-refills"]})},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl:1: case 'en-1': relevant_ids is set but must_cite_one_of is empty"],
    ),
    "k = 0": ({}, ["score", "--artifacts", "run.jsonl", "--k", "0"], 2, ["--k", "got 0"]),
    "k = -1": ({}, ["score", "--artifacts", "run.jsonl", "--k", "-1"], 2, ["--k", "got -1"]),
    "k = abc": ({}, ["score", "--artifacts", "run.jsonl", "--k", "abc"], 2, ["--k", "'abc'"]),
    "floor 1.5": (
        {},
        ["score", "--artifacts", "run.jsonl", "--min-recall", "1.5"],
        2,
        ["--min-recall", "1.5"],
    ),
    "floor abc": (
        {},
        ["score", "--artifacts", "run.jsonl", "--min-ndcg", "abc"],
        2,
        ["--min-ndcg", "'abc'"],
    ),
    "floor nan": (
        {},
        ["score", "--artifacts", "run.jsonl", "--min-hit", "nan"],
        2,
        ["--min-hit", "nan"],
    ),
    "empty artifacts file": (
        {"run.jsonl": ""},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl: artifacts file is empty"],
    ),
    "empty cases file": (
        {"c.yaml": "\n"},
        ["score", "--artifacts", "run.jsonl", "--cases", "c.yaml"],
        2,
        ["c.yaml: cases file is empty"],
    ),
    "binary file": (
        {"run.jsonl": b"\x1f\x8b\x08\x00\x00\x00\x00\x00"},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["run.jsonl: is a binary file"],
    ),
    "nonexistent path": (
        {},
        ["score", "--artifacts", "missing.jsonl"],
        2,
        ["missing.jsonl: artifacts file not found"],
    ),
    "directory for a file": (
        {},
        ["score", "--artifacts", "kb"],
        2,
        ["kb: is a directory, expected the artifacts file"],
    ),
    "nonexistent KB for check": (
        {},
        ["check", "--kb", "nokb", "--cases", "cases.yaml"],
        2,
        ["nokb: KB file not found"],
    ),
    "unknown language for check": (
        {"c.yaml": CASES_YAML.replace("language: es-419", "language: es_419")},
        ["check", "--kb", "kb", "--cases", "c.yaml"],
        2,
        ["c.yaml case #3 (id es-1): field `language`"],
    ),
    "invalid config in cwd": (
        {"recall-gate.yaml": "k: [\n"},
        ["score", "--artifacts", "run.jsonl"],
        2,
        ["recall-gate.yaml: line 2 invalid YAML"],
    ),
    "unknown flag": ({}, ["score", "--artifacts", "run.jsonl", "--top-k", "3"], 2, ["--top-k"]),
    "unknown command": ({}, ["scroe"], 2, ["invalid choice: 'scroe'"]),
}


@pytest.mark.parametrize(
    ("files", "argv", "code", "fragments"), BAD_INPUT.values(), ids=BAD_INPUT.keys()
)
def test_bad_input_exits_with_one_clear_message(
    dataset: Path,
    files: dict[str, str | bytes],
    argv: list[str],
    code: int,
    fragments: list[str],
) -> None:
    write_files(dataset, files)
    done = cli(dataset, *argv)
    assert done.code == code, done.err
    assert done.out == ""
    assert done.err.startswith("recall-gate: error: ")
    for fragment in fragments:
        assert fragment in done.err
    assert "\n  fix: " in done.err
    assert "Traceback" not in done.err
    assert "errors.pydantic.dev" not in done.err
    assert done.err.count("recall-gate: error:") == 1


# Word for word: user-facing messages are tested verbatim.


def test_message_invalid_json_line(dataset: Path) -> None:
    write_files(dataset, {"run.jsonl": jsonl(GOOD_LINE) + '{"case_id": "en-2",\n'})
    done = cli(dataset, "score", "--artifacts", "run.jsonl")
    assert done.err == (
        f"recall-gate: error: {dataset / 'run.jsonl'}:2: invalid JSON: Expecting property name "
        "enclosed in double quotes (column 20)\n"
        "  fix: write one JSON object per line (JSON Lines)\n"
    )


def test_message_artifact_for_an_unknown_case(dataset: Path) -> None:
    write_files(
        dataset,
        {"run.jsonl": capture(with_fields=False) + jsonl({"case_id": "ghost", "retrieved": []})},
    )
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--cases", "cases.yaml")
    assert done.err == (
        f"recall-gate: error: {dataset / 'run.jsonl'}:5: artifact for unknown case 'ghost'\n"
        f"  fix: add the case to {dataset / 'cases.yaml'}, or drop the line from the capture\n"
    )


def test_message_case_with_no_artifact(dataset: Path) -> None:
    write_files(dataset, {"run.jsonl": jsonl({"case_id": "en-1", "retrieved": []})})
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--cases", "cases.yaml")
    assert done.err == (
        f"recall-gate: error: {dataset / 'run.jsonl'}: 3 case(s) of {dataset / 'cases.yaml'} "
        "have no artifact: 'en-2', 'es-1', 'en-3'\n"
        "  fix: re-run the capture over the whole case set, or remove those cases\n"
    )


def test_message_capture_conflicting_with_the_cases_file(dataset: Path) -> None:
    conflicting = capture(with_fields=True).replace(
        '["es-facturacion"]', '["es-facturacion", "en-refills"]'
    )
    write_files(dataset, {"run.jsonl": conflicting})
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--cases", "cases.yaml")
    assert done.err == (
        f"recall-gate: error: {dataset / 'run.jsonl'}:3: case 'es-1' field `must_cite_one_of` "
        f'is ["es-facturacion", "en-refills"] in the capture but ["es-facturacion"] '
        f"in {dataset / 'cases.yaml'}\n"
        "  fix: re-capture against the current case set (the cases file is the source of truth)\n"
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("0", "must be a positive integer, got 0"),
        ("-1", "must be a positive integer, got -1"),
        ("abc", "expected a positive integer, got 'abc'"),
    ],
)
def test_message_bad_k(dataset: Path, value: str, reason: str) -> None:
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--k", value)
    assert done.err == (
        f"recall-gate: error: recall-gate score: argument --k: {reason}\n"
        "  fix: see `recall-gate score --help`\n"
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [("1.5", "must be in [0, 1], got 1.5"), ("abc", "expected a number in [0, 1], got 'abc'")],
)
def test_message_bad_floor(dataset: Path, value: str, reason: str) -> None:
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--min-hit", value)
    assert done.err == (
        f"recall-gate: error: recall-gate score: argument --min-hit: {reason}\n"
        "  fix: see `recall-gate score --help`\n"
    )


def test_message_nonexistent_path(dataset: Path) -> None:
    done = cli(dataset, "score", "--artifacts", "missing.jsonl")
    assert done.err == (
        f"recall-gate: error: {dataset / 'missing.jsonl'}: artifacts file not found\n"
        "  fix: check the path, or create the artifacts file\n"
    )


def test_message_directory_for_a_file(dataset: Path) -> None:
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--cases", "kb")
    assert done.err == (
        f"recall-gate: error: {dataset / 'kb'}: no .yaml or .jsonl cases files in the directory\n"
        "  fix: point `cases` at a cases file or a directory holding them\n"
    )
    done = cli(dataset, "score", "--artifacts", "kb")
    assert done.err == (
        f"recall-gate: error: {dataset / 'kb'}: is a directory, expected the artifacts file\n"
        "  fix: pass the artifacts file's path\n"
    )


def test_message_binary_file(dataset: Path) -> None:
    write_files(dataset, {"run.jsonl": b"\x00\x01binary"})
    done = cli(dataset, "score", "--artifacts", "run.jsonl")
    assert done.err == (
        f"recall-gate: error: {dataset / 'run.jsonl'}: is a binary file, expected the "
        "artifacts file as text\n"
        "  fix: pass a UTF-8 text file\n"
    )


def test_message_unknown_flag(dataset: Path) -> None:
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--top-k", "3")
    assert done.err == (
        "recall-gate: error: recall-gate score: unrecognized arguments: --top-k 3 "
        "(did you mean --k?)\n"
        "  fix: see `recall-gate score --help`\n"
    )


def test_message_duplicate_case_ids_for_score(dataset: Path) -> None:
    write_files(dataset, {"c.yaml": CASES_YAML.replace("id: en-2", "id: en-1")})
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--cases", "c.yaml")
    cases = dataset / "c.yaml"
    assert done.err == (
        f"recall-gate: error: {cases} case #2 (id en-1): duplicate case id 'en-1' "
        f"(first defined at {cases} case #1 (id en-1); give each case a unique id)\n"
        "  fix: give each case a unique id\n"
    )


# --- score: the happy path ---------------------------------------------------------------


def results_of(path: Path) -> Results:
    return Results.model_validate_json(path.read_text(encoding="utf-8"))


def test_score_a_self_contained_capture(dataset: Path) -> None:
    done = cli(
        dataset, "score", "--artifacts", "self-contained.jsonl", "--k", "2", "--json", "r.json"
    )
    assert (done.code, done.err) == (0, "")
    assert "recall-gate default: REPORT-ONLY" in done.out
    assert "No floor or tolerance is set, so nothing is enforced" in done.out

    raw = json.loads((dataset / "r.json").read_text(encoding="utf-8"))
    assert raw["schema_version"] == SCHEMA_VERSION
    assert raw["k"] == 2
    results = results_of(dataset / "r.json")
    assert results.provenance.tool_version == __version__
    assert results.provenance.dataset_fingerprint.startswith("sha256:")

    by_id = {case.case_id: case for case in results.cases}
    assert list(by_id) == ["en-1", "en-2", "es-1", "en-3"]
    assert by_id["en-1"].ranked_ids == ("en-refills", "en-appointments")  # parent identity
    assert by_id["en-1"].metrics == {HIT: 1.0, RECALL: 1.0, NDCG: 1.0}
    assert by_id["en-2"].ranked_ids == ("es-facturacion", "en-refills")  # de-duplicated
    assert by_id["en-2"].metrics == {
        HIT: 1.0,
        RECALL: 0.5,
        NDCG: pytest.approx(0.386853, abs=1e-6),
    }
    assert by_id["es-1"].metrics == {
        HIT: 0.0,  # on must_cite_one_of
        RECALL: 0.5,  # on relevant_ids
        NDCG: pytest.approx(0.386853, abs=1e-6),
    }
    assert by_id["en-3"].metrics == {}  # empty gold: no keys

    overall = results.aggregates.overall
    assert {key: overall[key].n for key in DEFAULT_METRIC_KEYS} == dict.fromkeys(
        DEFAULT_METRIC_KEYS, 3
    )
    assert overall[HIT].mean == pytest.approx(2 / 3, abs=1e-6)
    assert overall[RECALL].mean == pytest.approx(2 / 3, abs=1e-6)
    by_language = results.aggregates.by_language
    assert by_language["en"][HIT].n == 2  # en-3 carries no keys
    assert by_language["es-419"][HIT].n == 1
    by_type = results.aggregates.by_case_type
    assert by_type["adversarial"][HIT].n == 1
    assert by_type["capability"] == {}


def test_score_with_cases_matches_the_self_contained_capture(dataset: Path) -> None:
    alone = cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--json", "a.json")
    both = cli(
        dataset, "score", "--artifacts", "run.jsonl", "--cases", "cases.yaml", "--json", "b.json"
    )
    # The self-contained capture also agrees with the cases file.
    checked = cli(
        dataset,
        "score",
        "--artifacts",
        "self-contained.jsonl",
        "--cases",
        "cases.yaml",
        "--json",
        "c.json",
    )
    assert (alone.code, both.code, checked.code) == (0, 0, 0)
    a, b, c = (results_of(dataset / name) for name in ("a.json", "b.json", "c.json"))
    # The queries are known only with the cases file (the capture carries none).
    assert a.provenance.queries_fingerprint is None
    assert b.provenance.queries_fingerprint == c.provenance.queries_fingerprint is not None
    provenance = a.provenance.model_copy(
        update={"queries_fingerprint": b.provenance.queries_fingerprint}
    )
    assert a.model_copy(update={"provenance": provenance}) == b == c
    # The same report after the header, which names each run's own cases file.
    assert "cases:" not in alone.out
    assert "cases:    cases.yaml" in both.out
    assert report_body(alone.out) == report_body(both.out) == report_body(checked.out)


def test_score_writes_a_markdown_report_with_n(dataset: Path) -> None:
    done = cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--markdown", "out/r.md")
    assert done.code == 0
    report = (dataset / "out" / "r.md").read_text(encoding="utf-8")
    assert "| group | n | hit@5" in report
    assert "| overall | 3 | " in report
    assert "recall@k is a conservative lower bound" in report


def test_score_json_is_deterministic(dataset: Path) -> None:
    cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--json", "1.json")
    cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--json", "2.json")
    first = (dataset / "1.json").read_bytes()
    assert first == (dataset / "2.json").read_bytes()
    assert first.endswith(b"}\n")


def test_a_floor_above_the_observed_mean_fails_with_exit_1(dataset: Path) -> None:
    # Observed at k = 2: hit 0.667, recall 0.667.
    done = cli(
        dataset, "score", "--artifacts", "self-contained.jsonl", "--k", "2", "--min-hit", "0.9"
    )
    assert done.code == 1
    assert "recall-gate default: FAIL" in done.out
    assert "hit@2 0.667 (n = 3) is below the floor 0.900 (min-hit)" in done.out
    assert "Traceback" not in done.err


def test_floors_below_the_observed_means_pass(dataset: Path) -> None:
    done = cli(
        dataset,
        "score",
        "--artifacts",
        "self-contained.jsonl",
        "--k",
        "2",
        "--min-hit",
        "0.5",
        "--min-recall",
        "0.5",
        "--min-ndcg",
        "0.1",
    )
    assert (done.code, done.err) == (0, "")
    assert "recall-gate default: PASS" in done.out


def test_no_floors_is_report_only_with_exit_0(dataset: Path) -> None:
    # Even a dismal run passes when nothing is enforced: report first.
    write_files(dataset, {"run.jsonl": capture(with_fields=False).replace("en-refills", "zz")})
    done = cli(dataset, "score", "--artifacts", "run.jsonl", "--cases", "cases.yaml")
    assert done.code == 0
    assert "recall-gate default: REPORT-ONLY" in done.out
    assert "No floor or tolerance is set, so nothing is enforced" in done.out


def test_an_empty_floor_flag_is_inactive(dataset: Path) -> None:
    done = cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--min-hit", "")
    assert done.code == 0
    assert "recall-gate default: REPORT-ONLY" in done.out


def test_floors_and_k_come_from_the_config_in_cwd_and_flags_override(dataset: Path) -> None:
    write_files(dataset, {"recall-gate.yaml": "k: 2\ngate:\n  min_hit: 0.9\n"})
    failed = cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--json", "r.json")
    assert failed.code == 1
    assert results_of(dataset / "r.json").k == 2
    overridden = cli(
        dataset, "score", "--artifacts", "self-contained.jsonl", "--min-hit", "0.5", "--k", "3"
    )
    assert overridden.code == 0
    assert "recall@3" in overridden.out


def test_k_defaults_to_5_without_a_config(dataset: Path) -> None:
    cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--json", "r.json")
    assert results_of(dataset / "r.json").k == 5


def test_relative_paths_resolve_against_cwd_not_the_process_directory(
    dataset: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    done = cli(dataset, "score", "--artifacts", "self-contained.jsonl", "--json", "out/r.json")
    assert done.code == 0, done.err
    assert (dataset / "out" / "r.json").is_file()


def test_score_citations_are_classified_and_covered(dataset: Path) -> None:
    lines = [
        {**json.loads(line), "cited": cited}
        for line, cited in zip(
            capture(with_fields=True).splitlines(),
            [["en-refills"], [], ["es-facturacion"], []],
            strict=True,
        )
    ]
    write_files(dataset, {"cited.jsonl": jsonl(*lines)})
    done = cli(dataset, "score", "--artifacts", "cited.jsonl", "--k", "2", "--json", "r.json")
    assert done.code == 0
    results = results_of(dataset / "r.json")
    outcomes = {case.case_id: case.citation_outcome for case in results.cases}
    # en-1 hit + cited → ok; en-2 hit, nothing cited → citation miss;
    # es-1 no gold in top 2 (cited anyway) → retrieval miss; en-3 no gold → none.
    assert outcomes == {
        "en-1": "ok",
        "en-2": "citation_miss",
        "es-1": "retrieval_miss",
        "en-3": None,
    }
    assert results.aggregates.overall["citation_coverage"].n == 3
    assert "ok 1, retrieval miss 1, citation miss 1" in done.out


def test_with_a_baseline_every_surface_tells_a_retrieval_miss_from_a_citation_miss(
    dataset: Path,
) -> None:
    lines = [
        {**json.loads(line), "cited": cited}
        for line, cited in zip(
            capture(with_fields=True).splitlines(),
            [["en-refills"], [], ["es-facturacion"], []],
            strict=True,
        )
    ]
    write_files(dataset, {"cited.jsonl": jsonl(*lines)})
    first = cli(dataset, "score", "--artifacts", "cited.jsonl", "--k", "2", "--json", "r.json")
    assert first.code == 0, first.err
    made = cli(dataset, "baseline", "update", "--results", "r.json", "--reason", "first")
    assert made.code == 0, made.err
    done = cli(
        dataset,
        *("score", "--artifacts", "cited.jsonl", "--k", "2"),
        *("--comment-markdown", "comment.md", "--markdown", "summary.md"),
    )
    assert done.code == 0, done.err
    surfaces = {
        "terminal": done.out,
        "PR comment": (dataset / "comment.md").read_text(encoding="utf-8"),
        "job summary": (dataset / "summary.md").read_text(encoding="utf-8"),
    }
    for name, text in surfaces.items():
        assert "Baseline: " in text, name  # compared with the baseline just made
        assert "ok 1, retrieval miss 1, citation miss 1." in text, name
        # One floor suggestion syntax everywhere: the action input's `with:` line.
        assert "min-hit: 0." in text, name
        assert "--min-hit" not in text, name
