"""GitHub's size limits on what recall-gate posts, counted the way GitHub counts.

- Issue/PR comment bodies: the REST API refuses a body above 65,536 characters
  with ``422`` "Body is too long (maximum is 65536 characters)" (create and
  update an issue comment). Characters are Unicode code points; measured
  against github.com, the server's store limit is 262,144 UTF-8 bytes, which a
  body of at most 65,536 code points can never exceed (4 bytes at most each).
- Job summary: "$GITHUB_STEP_SUMMARY upload aborted, supports content up to a
  size of 1024k" (workflow commands docs: adding a job summary).
- Annotations: GitHub shows at most 10 of each level per step.
"""

from __future__ import annotations

__all__ = [
    "COMMENT_BUDGET",
    "COMMENT_MAX_CHARS",
    "MAX_ANNOTATIONS_PER_LEVEL",
    "SUMMARY_MAX_BYTES",
    "comment_length",
]

COMMENT_MAX_CHARS = 65_536
# What the renderer may use: the poster adds a marker and a head-sha stamp.
COMMENT_BUDGET = COMMENT_MAX_CHARS - 1_536
SUMMARY_MAX_BYTES = 1024 * 1024
MAX_ANNOTATIONS_PER_LEVEL = 10


def comment_length(text: str) -> int:
    """A comment body's length as GitHub counts it against COMMENT_MAX_CHARS: code points."""
    return len(text)
