"""The release and the package as users get it: the workflows' own commands, run.

PyPI and GitHub's releases cannot be reached from a test, so:

- the release's publish job is checked against what trusted publishing needs
  (`id-token: write` on that job only, the `pypi` environment; see PyPI's
  "Publishing with a Trusted Publisher" and pypa/gh-action-pypi-publish);
- the release's build commands are held equal to the package workflow's, and
  the package workflow's commands run here (``integration``): build the sdist
  and the wheel, `twine check`, install the wheel from dist/ into a fresh venv
  (no ``-e``) and capture with a plain retriever — extracted from the workflow
  file, so the test and the workflow cannot drift;
- the release's notes step runs on small CHANGELOGs: the section of the tag's
  version, nothing else; a tag that does not name the version, or a version
  without a section, fails the release before anything is published.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from act_harness import copy_checkout

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
# GitHub's `run:` default shell on Linux runners.
SHELL = ("bash", "--noprofile", "--norc", "-eo", "pipefail")


def load(name: str) -> dict[str, Any]:
    data = YAML(typ="safe").load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def step(job: dict[str, Any], name: str) -> str:
    """The ``run:`` script of the job's step called ``name``."""
    found = [s["run"] for s in job["steps"] if s.get("name") == name and "run" in s]
    assert len(found) == 1, f"no single step {name!r} with a run: script"
    script = found[0]
    assert isinstance(script, str)
    return script


def _environment(**extra: str) -> dict[str, str]:
    """This process's environment minus an enclosing runner's and this venv's."""
    prefixes = ("GITHUB_", "ACTIONS_", "RUNNER_", "INPUT_", "RECALL_GATE_", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.pop("PYTHONPATH", None)
    return {**env, **extra}


# -- the release --------------------------------------------------------------------


def test_only_the_publish_job_may_mint_an_oidc_token_in_the_pypi_environment() -> None:
    jobs = load("release.yml")["jobs"]
    publish = jobs["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert [s["uses"].split("@")[0] for s in publish["steps"]] == [
        "actions/download-artifact",
        "pypa/gh-action-pypi-publish",
    ]
    for name, job in jobs.items():
        if name != "publish":
            assert "id-token" not in job.get("permissions", {}), name


def test_the_github_release_comes_after_the_publish_with_contents_write_only() -> None:
    release = load("release.yml")["jobs"]["github-release"]
    assert release["permissions"] == {"contents": "write"}
    assert "publish" in release["needs"]
    script = step(release, "Create the release with the CHANGELOG notes")
    assert "--verify-tag" in script
    assert "--notes-file notes/notes.md" in script


def test_the_release_builds_with_the_commands_the_package_workflow_runs() -> None:
    name = "Build the sdist and the wheel, check them"
    released = step(load("release.yml")["jobs"]["build"], name)
    packaged = step(load("package.yml")["jobs"]["wheel"], name)
    assert released == packaged


def test_the_release_runs_on_version_tags_only() -> None:
    data: dict[Any, Any] = load("release.yml")
    on = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}


NOTES_STEP = "Check the tag and extract the release notes"

CHANGELOG = """\
# Changelog

## [Unreleased]

### Added
- Something not released yet.

## [0.2.0] - 2026-12-04

### Added
- `mode: capture` in the action.

### Security
- The base branch judges.

## [0.1.0] - 2026-01-01

### Added
- The first version.
"""


def run_notes(tmp_path: Path, *, version: str, tag: str, changelog: str = CHANGELOG) -> Any:
    """The release's notes step, in a folder holding a pyproject.toml and CHANGELOG.md."""
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "recall-gate"\nversion = "{version}"\n', encoding="utf-8"
    )
    (tmp_path / "CHANGELOG.md").write_text(changelog, encoding="utf-8")
    script = step(load("release.yml")["jobs"]["build"], NOTES_STEP)
    python = Path(sys.executable).parent
    return subprocess.run(
        [*SHELL, "-c", script],
        cwd=tmp_path,
        env=_environment(GITHUB_REF_NAME=tag, PATH=f"{python}{os.pathsep}{os.environ['PATH']}"),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_release_notes_are_the_changelog_section_of_the_tag_version(tmp_path: Path) -> None:
    done = run_notes(tmp_path, version="0.2.0", tag="v0.2.0")
    assert done.returncode == 0, done.stdout + done.stderr
    notes = (tmp_path / "notes" / "notes.md").read_text(encoding="utf-8")
    assert notes.strip() == (
        "### Added\n- `mode: capture` in the action.\n\n### Security\n- The base branch judges."
    )


def test_the_oldest_section_runs_to_the_end_of_the_changelog(tmp_path: Path) -> None:
    done = run_notes(tmp_path, version="0.1.0", tag="v0.1.0")
    assert done.returncode == 0, done.stdout + done.stderr
    notes = (tmp_path / "notes" / "notes.md").read_text(encoding="utf-8")
    assert notes.strip() == "### Added\n- The first version."


def test_a_tag_that_does_not_name_the_version_fails_the_release(tmp_path: Path) -> None:
    done = run_notes(tmp_path, version="0.2.0", tag="v0.2.1")
    assert done.returncode == 1
    assert "::error title=release::the tag v0.2.1 does not name the version" in done.stdout
    assert not (tmp_path / "notes").exists()


def test_a_version_without_a_changelog_section_fails_the_release(tmp_path: Path) -> None:
    done = run_notes(tmp_path, version="0.3.0", tag="v0.3.0")
    assert done.returncode == 1
    assert "CHANGELOG.md has no section '## [0.3.0]'" in done.stdout


def test_a_version_that_only_prefixes_another_finds_no_section(tmp_path: Path) -> None:
    changelog = CHANGELOG.replace("## [0.1.0]", "## [0.2.01]")
    done = run_notes(tmp_path, version="0.2.0", tag="v0.2.0", changelog=changelog)
    assert done.returncode == 0, done.stdout + done.stderr
    notes = (tmp_path / "notes" / "notes.md").read_text(encoding="utf-8")
    assert "The first version" not in notes


def test_this_changelog_gives_the_notes_once_unreleased_is_named_after_the_version(
    tmp_path: Path,
) -> None:
    """The release process renames [Unreleased] to the version: then the notes are
    that section, whole, and nothing of an older one."""
    version = _project_version()
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.count("## [Unreleased]") == 1
    version_heading = re.compile(rf"^## \[{re.escape(version)}\] - .+$", re.MULTILINE)
    heading = version_heading.search(text)
    if heading is None:  # not released yet: name [Unreleased] after the version, as a release does
        released = text.replace(
            "## [Unreleased]", f"## [Unreleased]\n\n## [{version}] - 2026-12-04"
        )
        heading = version_heading.search(released)
        assert heading is not None
    else:  # released: its section is already in this CHANGELOG
        released = text
    done = run_notes(tmp_path, version=version, tag=f"v{version}", changelog=released)
    assert done.returncode == 0, done.stdout + done.stderr
    notes = (tmp_path / "notes" / "notes.md").read_text(encoding="utf-8")
    section = released[heading.end() :].split("\n## ", 1)[0]
    assert notes.strip() == section.strip()
    assert "### " in notes


# -- the package workflow, run ---------------------------------------------------------


def _source_tree(target: Path) -> Path:
    """The repository's files (tracked and new, not ignored): what a checkout holds."""
    return copy_checkout(target)


@pytest.mark.integration
@pytest.mark.timeout(1200)
def test_the_package_workflow_builds_installs_the_wheel_and_captures_with_it(
    tmp_path: Path,
) -> None:
    job = load("package.yml")["jobs"]["wheel"]
    uses = [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python"]
    scripts = [s["run"] for s in job["steps"] if "run" in s]
    assert len(scripts) == 2, "build + check, then install the wheel and capture"
    checkout = _source_tree(tmp_path / "checkout")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    # setup-python's stand-in: a fresh interpreter of its own, first on the PATH.
    python = tmp_path / "setup-python"
    subprocess.run([sys.executable, "-m", "venv", str(python)], check=True)
    env = _environment(
        RUNNER_TEMP=str(runner_temp),
        PATH=f"{python / 'bin'}{os.pathsep}{os.environ['PATH']}",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    logs = []
    for script in scripts:
        done = subprocess.run(
            [*SHELL, "-c", script],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        logs.append(done.stdout + done.stderr)
        assert done.returncode == 0, "\n".join(logs)[-6000:]
    built = sorted(p.name for p in (checkout / "dist").iterdir())
    version = _project_version()
    assert built == [
        f"recall_gate-{version}-py3-none-any.whl",
        f"recall_gate-{version}.tar.gz",
    ]
    log = logs[1]
    venv = runner_temp / "wheel-venv"
    assert f"recall_gate imported from the wheel: {venv}/" in log
    assert f"recall-gate {version}" in log
    assert not list(venv.glob("lib/python*/site-packages/__editable__*"))
    assert not list(venv.glob("lib/python*/site-packages/*.egg-link"))
    consumer = runner_temp / "consumer"
    assert (consumer / "capture.jsonl").stat().st_size > 0
    assert (consumer / "results.json").stat().st_size > 0
    assert "retrieval_hit_at_k" in (consumer / "results.json").read_text(encoding="utf-8")


def _project_version() -> str:
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as handle:
        version = tomllib.load(handle)["project"]["version"]
    assert isinstance(version, str)
    return version
