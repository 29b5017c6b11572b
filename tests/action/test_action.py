"""Static checks of action.yml: inputs only through `env:`, zizmor clean.

The docs' inputs and outputs tables and the registry's blocks of action.yml are
generated (`make generate`; tests/test_generated_files.py fails when they are
stale); the README's quick-start workflow is checked here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
README = ROOT / "README.md"
EXAMPLE_WORKFLOWS = ROOT / "examples" / "workflows"
ACTION_DOCS = ROOT / "docs" / "reference" / "action.md"
WORKFLOWS = ROOT / ".github" / "workflows"

# The contract of docs/reference/action.md ("Inputs"); more inputs may exist, none of these
# may go.
CONTRACT_INPUTS = {
    "mode",
    "config",
    "cases",
    "artifacts",
    "k",
    "profile",
    "baseline",
    "baseline-ref",
    "min-hit",
    "min-recall",
    "min-ndcg",
    "max-regression",
    "comment",
    "github-token",
    "working-directory",
}
CONTRACT_OUTPUTS = {
    "hit",
    "recall",
    "ndcg",
    "n",
    "verdict",
    "regressions",
    "results-json",
    "report-markdown",
}
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_INPUT_REF = re.compile(r"\binputs\.([A-Za-z0-9_-]+)")


def load_yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def action() -> dict[str, Any]:
    data = load_yaml(ACTION)
    assert isinstance(data, dict)
    return data


def steps() -> list[dict[str, Any]]:
    return list(action()["runs"]["steps"])


def readme_section(text: str, name: str) -> str | None:
    found = re.search(rf"<!-- {name}:start -->\n(.*?)\n?<!-- {name}:end -->", text, re.DOTALL)
    return found.group(1).strip() if found else None


# -- action.yml ----------------------------------------------------------------


def test_action_is_composite_of_run_steps_only() -> None:
    runs = action()["runs"]
    assert runs["using"] == "composite"
    for step in runs["steps"]:
        assert "uses" not in step, f"remote or nested action inside action.yml: {step}"
        assert "run" in step
        assert step.get("shell") == "bash", f"{step.get('name')}: set `shell: bash`"


def test_no_expression_inside_any_run_block() -> None:
    examples = sorted(EXAMPLE_WORKFLOWS.glob("*.yml"))
    assert examples, "the example workflows the docs show are checked too"
    for path in [ACTION, *sorted(WORKFLOWS.glob("*.yml")), *examples]:
        data = load_yaml(path)
        blocks = (
            data["runs"]["steps"]
            if path == ACTION
            else [s for job in data["jobs"].values() for s in job.get("steps", [])]
        )
        for step in blocks:
            assert "${{" not in str(step.get("run", "")), (
                f"{path.name}: step {step.get('name')!r} expands an expression inside `run:`; "
                "pass the value through `env:` instead"
            )


def test_every_input_reaches_the_steps_through_env_or_a_condition() -> None:
    used_in_env: set[str] = set()
    used_elsewhere: set[str] = set()
    for step in steps():
        for value in (step.get("env") or {}).values():
            used_in_env.update(_INPUT_REF.findall(str(value)))
        for key in ("if", "working-directory"):
            used_elsewhere.update(_INPUT_REF.findall(str(step.get(key, ""))))
    declared = set(action()["inputs"])
    unused = declared - used_in_env - used_elsewhere
    assert not unused, f"inputs declared but never passed to a step: {sorted(unused)}"
    undeclared = (used_in_env | used_elsewhere) - declared
    assert not undeclared, f"steps read undeclared inputs: {sorted(undeclared)}"
    # Conditions and the working directory are evaluated by the runner, never by a shell.
    assert used_elsewhere <= {"comment", "fail-on-gate", "working-directory"}


def test_contract_inputs_and_outputs_exist_and_inputs_are_optional() -> None:
    data = action()
    assert set(data["inputs"]) >= CONTRACT_INPUTS
    assert set(data["outputs"]) >= CONTRACT_OUTPUTS
    for name, spec in data["inputs"].items():
        assert re.fullmatch(r"[a-z][a-z0-9-]*", name), f"{name}: inputs are kebab-case"
        assert not spec.get("required", False), f"{name}: every input is optional"
        assert spec.get("description"), f"{name}: document the input"
    # Empty: the config's profile, else "default" (an explicit input wins over the config).
    assert data["inputs"]["profile"]["default"] == ""
    assert "else `default`" in data["inputs"]["profile"]["description"]
    assert data["inputs"]["comment"]["default"] == "true"
    # Empty: the workflow token, which only the comment step receives (`github.token`
    # there): an input default would reach every step under act (nektos/act#2874).
    assert data["inputs"]["github-token"]["default"] == ""
    assert data["inputs"]["role"]["default"] == ""
    assert data["inputs"]["trust-pr-code"]["default"] == "false"
    for name in ("min-hit", "min-recall", "min-ndcg", "max-regression"):
        assert data["inputs"][name]["default"] == "", f"{name}: empty means inactive"


def test_outputs_come_from_steps_that_exist() -> None:
    ids = {step.get("id") for step in steps()}
    for name, spec in action()["outputs"].items():
        step_output = r"steps\.[a-z-]+\.outputs\.[a-z-]+"
        found = re.fullmatch(rf"\$\{{\{{ {step_output}( \|\| {step_output})* \}}\}}", spec["value"])
        assert found, f"{name}: value must be a step output"
        for step_id in re.findall(r"steps\.([a-z-]+)\.", spec["value"]):
            assert step_id in ids, f"{name}: no step with id {step_id}"


def test_the_token_is_masked_and_only_the_comment_step_gets_it() -> None:
    """No step that installs or runs code under test holds the token: the plan step
    sees only whether one was given, the comment step alone its value."""
    holders = [
        step["name"]
        for step in steps()
        for value in (step.get("env") or {}).values()
        if "github-token" in str(value) or "github.token" in str(value)
    ]
    assert holders == ["Plan the job", "Comment on the pull request"]
    plan = steps()[0]
    assert plan["env"]["RG_TOKEN_GIVEN"] == "${{ inputs.github-token != '' }}"
    comment = next(s for s in steps() if s.get("id") == "comment")
    assert comment["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token || github.token }}"
    assert '::add-mask::$GITHUB_TOKEN"' in comment["run"]
    assert "set -x" not in "".join(str(s.get("run", "")) for s in steps())


def test_the_comment_step_cannot_fail_the_action() -> None:
    comment = next(s for s in steps() if s.get("id") == "comment")
    assert "if ! " in comment["run"]
    assert "::warning" in comment["run"]
    assert "set -e" not in comment["run"].replace("set -uo pipefail", "")
    last = steps()[-1]
    assert last["name"] == "Enforce the verdict"


@pytest.mark.parametrize(
    ("verdict", "fail_on_gate", "code"),
    [
        ("pass", "true", 0),
        ("report-only", "true", 0),
        ("fail", "true", 1),
        ("fail", "false", 0),
        ("error", "true", 2),
        ("error", "false", 2),  # an evaluation that did not run is never a pass
        ("", "true", 2),  # nor is a job that reached no verdict
        ("", "false", 2),
    ],
)
def test_the_last_step_enforces_the_verdict_and_never_passes_without_one(
    verdict: str, fail_on_gate: str, code: int
) -> None:
    last = steps()[-1]
    # Skipped only in the capture role, which judges nothing (its capture step fails
    # the job when the capture does not complete).
    assert last["if"] == "${{ steps.plan.outputs.role != 'capture' }}"
    done = subprocess.run(
        ["bash", "-c", last["run"]],
        env={**os.environ, "RG_VERDICT": verdict, "RG_FAIL_ON_GATE": fail_on_gate},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == code, done.stdout + done.stderr


# -- the docs and the README ------------------------------------------------------


def test_readme_quickstart_is_the_two_job_check_with_no_token_where_pr_code_runs() -> None:
    """The capture job runs the pull request's code with no permissions and no token
    input; the judge job needs it, alone may comment, and installs nothing of the PR."""
    text = README.read_text(encoding="utf-8") if README.is_file() else ""
    block = readme_section(text, "quickstart") or ""
    fenced = re.fullmatch(r"```yaml\n(.*)\n```", block, re.DOTALL)
    assert fenced, "README.md: put the quick-start workflow in a ```yaml fence between markers"
    assert fenced.group(1) + "\n" in (ROOT / "examples/workflows/pr-check.yml").read_text(), (
        "the README's workflow is examples/workflows/pr-check.yml, which the act tests run"
    )
    workflow = YAML(typ="safe").load(fenced.group(1))
    assert workflow["permissions"] == {}
    capture, judge = workflow["jobs"]["capture"], workflow["jobs"]["judge"]
    assert capture["permissions"] == {}
    assert judge["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert judge["needs"] == "capture"
    for job, role in ((capture, "capture"), (judge, "judge")):
        checkout = next(
            s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")
        )
        assert checkout["with"]["persist-credentials"] is False
        [gate] = [s for s in job["steps"] if "recall-gate@" in str(s.get("uses", ""))]
        assert gate["with"]["role"] == role
        assert set(gate.get("with", {})) <= set(action()["inputs"])
        assert not any("run" in s and "${{" in s["run"] for s in job["steps"])
    assert "token" not in json.dumps(capture).lower()
    assert not {"requirements", "install-command", "retriever"} & set(gate["with"])


# -- zizmor ------------------------------------------------------------------------


def test_zizmor_reports_no_findings() -> None:
    zizmor = shutil.which("zizmor") or str(Path(sys.executable).parent / "zizmor")
    if not Path(zizmor).exists():
        pytest.fail("zizmor is not installed: `make install` installs the dev extra")
    done = subprocess.run(
        [
            zizmor,
            "--offline",
            "--min-severity",
            "low",
            "action.yml",
            ".github/workflows",
            *sorted(str(p.relative_to(ROOT)) for p in EXAMPLE_WORKFLOWS.glob("*.yml")),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def test_the_action_passes_the_resolved_settings_under_the_names_the_cli_reads() -> None:
    from recall_gate.settings import ENVIRONMENT

    passed = {
        name: str(value)
        for step in steps()
        for name, value in (step.get("env") or {}).items()
        if name.startswith("RECALL_GATE_")
    }
    assert set(passed) <= set(ENVIRONMENT.values()), "the CLI would ignore these"
    for dest, name in ENVIRONMENT.items():
        if name in passed:
            flag = dest.replace("_", "-")
            assert passed[name] == f"${{{{ inputs.{flag} }}}}", f"{name} carries the `{flag}` input"


def test_the_floor_inputs_and_metric_outputs_are_the_registrys() -> None:
    from recall_gate.core.metric_registry import GATED_METRICS
    from recall_gate.settings.gate_settings import GATE_SETTINGS

    data = action()
    (evaluate,) = [s for s in steps() if s.get("id") == "evaluate"]
    others = {"min-group-n", *(g.input for g in GATE_SETTINGS)}
    floors = {name for name in data["inputs"] if name.startswith("min-") and name not in others}
    assert floors == {m.floor_flag for m in GATED_METRICS}, "one floor input per gated metric"
    for spec in GATED_METRICS:
        assert evaluate["env"][spec.floor_env] == f"${{{{ inputs.{spec.floor_flag} }}}}"
        assert data["outputs"][spec.name]["value"] == (
            f"${{{{ steps.report.outputs.{spec.name} }}}}"
        ), f"the output `{spec.name}` of the registry's metric {spec.key}"


def test_every_gate_setting_of_the_settings_table_is_an_input_the_evaluate_step_passes() -> None:
    from recall_gate.settings.gate_settings import GATE_SETTINGS

    data = action()
    (evaluate,) = [s for s in steps() if s.get("id") == "evaluate"]
    for setting in GATE_SETTINGS:
        assert setting.input in data["inputs"], setting.input
        assert data["inputs"][setting.input]["default"] == ""
        assert evaluate["env"][setting.env] == f"${{{{ inputs.{setting.input} }}}}"


def test_the_tolerance_inputs_are_the_registrys_beside_the_one_number_input() -> None:
    from recall_gate.core.metric_registry import GATED_METRICS

    data = action()
    (evaluate,) = [s for s in steps() if s.get("id") == "evaluate"]
    own = {name for name in data["inputs"] if name.startswith("max-regression-")}
    assert own == {m.tolerance_flag for m in GATED_METRICS}, "one tolerance input per metric"
    assert "max-regression" in data["inputs"], "the one number for every metric stays"
    for spec in GATED_METRICS:
        assert evaluate["env"][spec.tolerance_env] == f"${{{{ inputs.{spec.tolerance_flag} }}}}"
        assert data["inputs"][spec.tolerance_flag]["default"] == ""


def test_the_capture_role_sees_every_gate_input_of_the_registry_run_together() -> None:
    """Empty only when no gate input is set: nothing (not even a space) between them."""
    from recall_gate.core.metric_registry import GATED_METRICS

    gate_inputs = steps()[0]["env"]["RG_GATE_INPUTS"]
    named = re.findall(r"\$\{\{ inputs\.([a-z-]+) \}\}", gate_inputs)
    assert "".join(f"${{{{ inputs.{name} }}}}" for name in named) == gate_inputs
    registry = {m.floor_flag for m in GATED_METRICS} | {m.tolerance_flag for m in GATED_METRICS}
    assert registry | {"max-regression", "min-group-n", "require-significance"} <= set(named)


# -- the plan step: roles, and the one-step capture on a pull request ------------------


def _plan(tmp_path: Path, **inputs: str) -> tuple[int, str, dict[str, str]]:
    """The plan step's script as the runner runs it, with INPUTS as its env."""
    plan = steps()[0]
    assert plan["id"] == "plan"
    output = tmp_path / "output"
    output.write_text("")
    env = dict.fromkeys(plan["env"], "")
    env.update(
        {"RG_TRUST_PR_CODE": "false", "RG_TOKEN_GIVEN": "false", "RG_PYTHON": "python3"},
        **inputs,
    )
    done = subprocess.run(
        ["bash", "-c", plan["run"]],
        env={
            **os.environ,
            **env,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_ACTION_PATH": str(ROOT),
            "RUNNER_TEMP": str(tmp_path),
        },
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done.returncode, done.stdout + done.stderr, outputs


@pytest.mark.parametrize("event", ["pull_request", "pull_request_target", "merge_group"])
def test_the_one_step_capture_on_a_pull_request_is_refused_without_the_opt_in(
    tmp_path: Path, event: str
) -> None:
    code, log, _ = _plan(tmp_path, RG_MODE="capture", GITHUB_EVENT_NAME=event)
    assert code == 2
    assert "::error title=recall-gate::" in log
    assert "two-job PR check" in log
    assert "trust-pr-code: true" in log


def test_the_one_step_capture_with_the_opt_in_captures_then_judges(tmp_path: Path) -> None:
    code, log, outputs = _plan(
        tmp_path, RG_MODE="capture", GITHUB_EVENT_NAME="pull_request", RG_TRUST_PR_CODE="true"
    )
    assert code == 0, log
    assert outputs["capture"] == "true"
    assert outputs["judge"] == "true"
    assert re.fullmatch(r"[0-9a-f]{64}", outputs["source-hash"])


@pytest.mark.parametrize("event", ["push", "workflow_dispatch", "schedule"])
def test_the_one_step_capture_outside_a_pull_request_needs_no_opt_in(
    tmp_path: Path, event: str
) -> None:
    code, log, outputs = _plan(tmp_path, RG_RETRIEVER="app:search", GITHUB_EVENT_NAME=event)
    assert code == 0, log
    assert outputs["mode"] == "capture"


@pytest.mark.parametrize(
    ("inputs", "named"),
    [
        ({"RG_TOKEN_GIVEN": "true"}, "takes no 'github-token'"),
        ({"RG_GATE_INPUTS": "0.8"}, "judges nothing"),
        ({"RG_ARTIFACTS": "c.jsonl"}, "judges nothing"),
        ({"RG_MODE": "score"}, "not mode: score"),
    ],
)
def test_the_capture_role_refuses_what_only_a_judge_uses(
    tmp_path: Path, inputs: dict[str, str], named: str
) -> None:
    code, log, _ = _plan(
        tmp_path, RG_ROLE="capture", RG_MODE=inputs.pop("RG_MODE", "capture"), **inputs
    )
    assert code == 2
    assert named in log


@pytest.mark.parametrize(
    "name", ["RG_RETRIEVER", "RG_REQUIREMENTS", "RG_INSTALL_COMMAND", "RG_VENV"]
)
def test_the_judge_role_refuses_anything_of_the_pull_request(tmp_path: Path, name: str) -> None:
    code, log, _ = _plan(tmp_path, RG_ROLE="judge", RG_ARTIFACTS="c.jsonl", **{name: "x"})
    assert code == 2
    assert "installs and runs nothing of the pull request" in log


def test_the_judge_role_refuses_a_score_made_elsewhere(tmp_path: Path) -> None:
    code, log, _ = _plan(tmp_path, RG_ROLE="judge", RG_ARTIFACTS="c.jsonl", RG_RESULTS="r.json")
    assert code == 2
    assert "takes no 'results'" in log


def test_the_judge_role_needs_the_capture_and_scores_it(tmp_path: Path) -> None:
    code, log, _ = _plan(tmp_path, RG_ROLE="judge")
    assert code == 2
    assert "needs 'artifacts'" in log
    code, log, outputs = _plan(tmp_path, RG_ROLE="judge", RG_ARTIFACTS="c.jsonl")
    assert code == 0, log
    assert (outputs["mode"], outputs["capture"], outputs["judge"]) == ("score", "false", "true")


def test_an_unknown_role_is_refused(tmp_path: Path) -> None:
    code, log, _ = _plan(tmp_path, RG_ROLE="referee")
    assert code == 2
    assert "'role' must be 'capture', 'judge' or empty" in log
