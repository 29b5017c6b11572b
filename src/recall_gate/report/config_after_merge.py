"""The report's sentence for a config only the pull request has (pure).

In a pull request the config is found in the base's tree from the working
directory up; a ``recall-gate.yaml`` the pull request adds nearer to it is not
the base's, so it never judges: the report names it and says it applies after
merge. Callers pass the pieces already styled for their surface.
"""

from __future__ import annotations

__all__ = ["config_after_merge_sentence"]


def config_after_merge_sentence(*, added: str, judging: str | None, ref: str) -> str:
    """``added``: the pull request's nearer config; ``judging``: the base's config
    that judges instead (``None``: the base has none on the path)."""
    judged_by = (
        f"the base's config {judging}"
        if judging
        else "the default settings (the base has no config)"
    )
    return (
        f"adds {added}, nearer the working directory than the base's config: it applies "
        f"after merge. This run is judged by {judged_by} at {ref}."
    )
