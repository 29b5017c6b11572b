"""The judge reads the pull request as data: every step of the action that judges runs
from a new empty folder outside the checkout, with no folder of the checkout on PATH
and each tool's configuration discovery off (action/judge-environment.sh,
docs/security.md "What the judge's tools read").

The step scripts run here as the runner runs them (bash, their env), started inside a
checkout that carries every planted file of tests/planted_checkout.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from planted_checkout import judge_markers, plant

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "action" / "judge-environment.sh"
REAL_UV = shutil.which("uv") or str(Path(sys.executable).parent / "uv")


def _steps() -> list[dict[str, Any]]:
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return list(action["runs"]["steps"])


def _step(step_id: str) -> dict[str, Any]:
    [step] = [s for s in _steps() if s.get("id") == step_id]
    return step


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The pull request's checkout (the workspace), every planted file in it."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    plant(workspace, tmp_path / "markers")
    return workspace


def _runner_env(tmp_path: Path, workspace: Path, **extra: str) -> dict[str, str]:
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    output = tmp_path / "output"
    output.touch()
    return {
        "HOME": str(home),
        "RUNNER_TEMP": str(temp),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_JOB": "judge",
        **extra,
    }


def _sourced(tmp_path: Path, workspace: Path, report: str, **env: str) -> str:
    """What ``report`` (bash) prints after sourcing the script, started in WORKSPACE."""
    done = subprocess.run(
        ["bash", "-c", f'set -euo pipefail\n. "{SCRIPT}"\n{report}'],
        cwd=workspace,
        env=_runner_env(tmp_path, workspace, **env),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_no_folder_of_the_checkout_stays_on_the_path(tmp_path: Path, checkout: Path) -> None:
    (tmp_path / "link").symlink_to(checkout / "evil-bin")
    system = os.environ["PATH"]
    path = (
        f"evil-bin::.:{checkout / 'evil-bin'}:{tmp_path / 'link'}:{checkout}/../workspace:{system}"
    )

    printed = _sourced(tmp_path, checkout, 'printf "%s" "$PATH"', PATH=path)

    kept = [p for p in system.split(":") if p.startswith("/") and Path(p).is_dir()]
    assert printed == ":".join(kept)


def test_the_judge_works_in_a_new_empty_folder_of_the_runners_temp(
    tmp_path: Path, checkout: Path
) -> None:
    printed = _sourced(
        tmp_path, checkout / "evil-bin", "pwd -P; ls -A | wc -l", PATH=os.environ["PATH"]
    )

    folder, entries = printed.split()
    assert Path(folder).parent == (tmp_path / "runner-temp").resolve()
    assert entries == "0"
    assert not Path(folder).is_relative_to(checkout)


def test_recall_gate_is_told_the_working_directory_it_no_longer_starts_in(
    tmp_path: Path, checkout: Path
) -> None:
    (checkout / "docs").mkdir()
    printed = _sourced(
        tmp_path,
        checkout,
        'printf "%s" "$RECALL_GATE_WORKING_DIRECTORY"',
        PATH=os.environ["PATH"],
        RG_WORKING_DIRECTORY="docs",
    )
    assert printed == str((checkout / "docs").resolve())


def test_each_tools_discovery_is_switched_off(tmp_path: Path, checkout: Path) -> None:
    printed = _sourced(
        tmp_path,
        checkout,
        "env",
        PATH=os.environ["PATH"],
        PYTHONPATH=str(checkout),
        PYTHONSTARTUP=str(checkout / "sitecustomize.py"),
        UV_CONFIG_FILE=str(checkout / "uv.toml"),
    )
    env = dict(line.split("=", 1) for line in printed.splitlines() if "=" in line)
    kept = {"PYTHONNOUSERSITE", "PYTHONSAFEPATH"}  # set by the script
    assert [name for name in env if name.startswith("PYTHON") and name not in kept] == []
    assert env["PYTHONNOUSERSITE"] == "1"
    assert (env["UV_NO_CONFIG"], env["UV_PYTHON_DOWNLOADS"]) == ("1", "never")
    assert env["UV_PYTHON_PREFERENCE"] == "only-system"
    assert "UV_CONFIG_FILE" not in env
    assert env["PIP_CONFIG_FILE"] == "/dev/null"
    assert (env["GIT_CONFIG_NOSYSTEM"], env["GIT_CONFIG_GLOBAL"]) == ("1", "/dev/null")
    configured = {
        (env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"])
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert ("core.hooksPath", "/dev/null") in configured
    assert ("safe.directory", str(checkout.resolve())) in configured


def test_every_step_that_judges_sources_the_judge_environment_or_runs_builtins_only() -> None:
    sourced = '. "${GITHUB_ACTION_PATH%/}/action/judge-environment.sh"'
    for step_id in ("plan", "judge", "evaluate", "report", "comment"):
        assert sourced in _step(step_id)["run"], step_id
    for step_id in ("judge", "evaluate", "report", "comment"):
        assert _step(step_id)["env"]["RG_WORKING_DIRECTORY"] == "${{ inputs.working-directory }}"
    enforce = _steps()[-1]
    assert enforce["name"] == "Enforce the verdict"
    assert enforce["working-directory"] == "${{ runner.temp }}"
    # No command but shell builtins: nothing found through PATH.
    words = set(re.findall(r"^\s*([a-z_]+)\b", enforce["run"], re.MULTILINE))
    assert words <= {"case", "fail", "if", "fi", "echo", "exit", "error", "pass", "esac"}, words


def test_the_judge_installs_from_a_folder_of_its_own_with_no_installer_configuration() -> None:
    judge = _step("judge")
    assert judge["working-directory"] == "${{ runner.temp }}"
    script = judge["run"]
    assert script.count("--no-config") == 3  # uv venv, and both uv pip installs
    assert "--no-python-downloads" in script
    assert "--python-preference only-system" in script
    assert script.count("-I -m pip install --isolated") == 2
    assert judge["env"]["RG_PYTHON"] == "${{ steps.plan.outputs.python }}"


def _bash(script: str, cwd: Path, env: dict[str, str]) -> str:
    """SCRIPT's exit code and what it printed, as one line of text for a message."""
    done = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    return f"exit {done.returncode}: {done.stdout}{done.stderr}"


def _plan_then_install(
    tmp_path: Path, workspace: Path, *, installer: str, path: str
) -> tuple[str, str]:
    """The plan step, then the judge's install step, as the runner runs them in the
    judge job, started in WORKSPACE (``uv pip install`` does nothing: no network); how
    the install ended, and the steps' outputs."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    (tools / "uv").write_text(
        f'#!/bin/sh\nif [ "$1" = pip ]; then exit 0; fi\nexec "{REAL_UV}" "$@"\n',
        encoding="utf-8",
    )
    (tools / "uv").chmod(0o755)
    env = _runner_env(tmp_path, workspace, PATH=f"{path}:{tools}:{os.environ['PATH']}")
    plan = _step("plan")
    plan_env = {
        **dict.fromkeys(plan["env"], ""),
        "RG_ROLE": "judge",
        "RG_ARTIFACTS": "c.jsonl",
        "RG_TRUST_PR_CODE": "false",
        "RG_TOKEN_GIVEN": "false",
        "RG_PYTHON": "python3",
        "RG_WORKING_DIRECTORY": ".",
    }
    planned = _bash(plan["run"], workspace, {**env, **plan_env})
    assert planned.startswith("exit 0:"), planned
    outputs = dict(
        line.split("=", 1) for line in Path(env["GITHUB_OUTPUT"]).read_text().splitlines()
    )
    assert outputs["python"].startswith("/")
    judge_env = {
        "RG_PYTHON": outputs["python"],
        "RG_INSTALLER": installer,
        "RG_SOURCE_HASH": outputs["source-hash"],
        "RG_WORKING_DIRECTORY": ".",
    }
    installed = _bash(_step("judge")["run"], workspace, {**env, **judge_env})
    return installed, Path(env["GITHUB_OUTPUT"]).read_text()


def test_a_planted_uv_toml_is_live_when_uv_is_started_in_the_checkout(
    tmp_path: Path, checkout: Path
) -> None:
    """The control: the judge's uv command before the fix, started in the checkout, runs
    the interpreter the pull request's uv.toml names (issue 40)."""
    home = tmp_path / "home"
    done = subprocess.run(
        [REAL_UV, "venv", "--quiet", "--python", "python3", str(tmp_path / "venv")],
        cwd=checkout,
        env={
            **os.environ,
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "GITHUB_JOB": "judge",
            "RG_INSTALLER": "uv",
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert judge_markers(tmp_path / "markers") == ["uv-toml-python job=judge rg=yes"], done.stderr


def test_the_judges_install_by_uv_runs_no_planted_file_of_the_checkout(
    tmp_path: Path, checkout: Path
) -> None:
    """Started in the checkout, with its planted programs on PATH (a relative entry and
    an absolute one), the plan and the install run none of them (pip's install, which
    needs the network, is the act test's: tests/action/test_planted_checkout_act.py)."""
    installed, outputs = _plan_then_install(
        tmp_path, checkout, installer="uv", path=f"evil-bin:{checkout / 'evil-bin'}"
    )
    assert judge_markers(tmp_path / "markers") == [], installed
    assert installed.startswith("exit 0:"), installed
    venv = Path(re.findall(r"^cli=(.*)/bin/recall-gate$", outputs, re.MULTILINE)[0])
    config = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    assert ".uv-toml-python" not in config
    assert str(checkout) not in config


def test_every_interpreter_the_action_starts_runs_isolated_from_its_working_folder() -> None:
    """`python -m venv`, `python -m pip` and `python -c` put the working folder first on
    sys.path: in a checkout, its `venv/`, `pip/` or any module the code imports would run
    (run and score modes install recall-gate in the working directory). -I keeps it off."""
    starts = []
    for step in _steps():
        starts += re.findall(
            r'"\$(?:RG_PYTHON|venv/bin/python)"((?: -[A-Za-z]+)*) (?:-m \w+|-c )', step["run"]
        )
    assert len(starts) >= 8
    assert all("-I" in flags.split() for flags in starts), starts


def test_the_install_of_run_and_score_modes_reads_no_uv_configuration_of_the_checkout(
    tmp_path: Path, checkout: Path
) -> None:
    """One job in score (or run) mode installs recall-gate alone, in the working directory:
    the pull request's uv.toml is not uv's configuration there (capture mode's is the
    team's own: its dependencies may need it)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "uv").write_text(
        f'#!/bin/sh\nif [ "$1" = pip ]; then exit 0; fi\nexec "{REAL_UV}" "$@"\n',
        encoding="utf-8",
    )
    (tools / "uv").chmod(0o755)
    install = next(s for s in _steps() if s.get("id") == "install")
    env = {
        **_runner_env(tmp_path, checkout, PATH=f"{tools}:{os.environ['PATH']}"),
        **dict.fromkeys(install["env"], ""),
        "RG_MODE": "score",
        "RG_INSTALLER": "uv",
        "RG_PYTHON": "python3",
        "RG_VENV": str(tmp_path / "venv"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    ran = _bash(install["run"], checkout, env)

    assert judge_markers(tmp_path / "markers") == [], ran
    config = (tmp_path / "venv" / "pyvenv.cfg").read_text(encoding="utf-8")
    assert ".uv-toml-python" not in config, ran


def test_no_library_of_the_checkout_is_on_a_loader_search_path(
    tmp_path: Path, checkout: Path
) -> None:
    (checkout / "lib").mkdir()
    system = f"{tmp_path}:/usr/lib"
    printed = _sourced(
        tmp_path,
        checkout,
        'printf "%s\\n%s" "$LD_LIBRARY_PATH" "$LD_PRELOAD"',
        PATH=os.environ["PATH"],
        LD_LIBRARY_PATH=f"lib:{checkout / 'lib'}::{system}",
        LD_PRELOAD=f"{checkout / 'lib' / 'evil.so'} lib/evil.so",
    )
    assert printed.split("\n") == [system, ""]


def test_a_path_folder_whose_name_holds_a_space_stays(tmp_path: Path, checkout: Path) -> None:
    spaced = tmp_path / "My Tools"
    spaced.mkdir()
    printed = _sourced(tmp_path, checkout, 'printf "%s" "$PATH"', PATH=f"{spaced}:/usr/bin")
    assert printed == f"{spaced}:/usr/bin"
