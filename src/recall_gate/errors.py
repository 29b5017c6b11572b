"""Errors that own their message: what failed, where, and the fix.

The CLI turns a `RecallGateError` into one line on stderr and its exit code;
nothing below the CLI prints or exits. Any other exception that reaches the
CLI is a bug in recall-gate: exit :data:`INTERNAL_ERROR_EXIT`.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "INTERNAL_ERROR_EXIT",
    "CaseFailed",
    "GateFailure",
    "InputError",
    "Interrupted",
    "RecallGateError",
    "is_huge_integer",
]

INTERNAL_ERROR_EXIT: Final = 3


class RecallGateError(Exception):
    """Base error: a message naming the file/field, and a fix."""

    exit_code = 2

    def __init__(self, message: str, *, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        if self.fix:
            return f"{self.message}\n  fix: {self.fix}"
        return self.message


class InputError(RecallGateError):
    """Unusable input or configuration (exit code 2)."""


class CaseFailed(InputError):
    """The retriever failed on one case (``what``: "case", or "logged query"): its
    id and what it raised (``PipelineRuntimeError: …``), kept apart for the
    capture's error file."""

    def __init__(
        self, message: str, *, fix: str, case_id: str, failure: str, what: str = "case"
    ) -> None:
        super().__init__(message, fix=fix)
        self.case_id = case_id
        self.failure = failure
        self.what = what


class GateFailure(RecallGateError):
    """A gate failed: integrity, a set floor, or an enforced regression (exit code 1)."""

    exit_code = 1


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying what had been done when it came (a file written, or not)."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


def is_huge_integer(exc: BaseException) -> bool:
    """Python refusing to read an integer of more than ``sys.get_int_max_str_digits()``
    digits (4,300 by default; a guard against quadratic-time conversion)."""
    return isinstance(exc, ValueError) and "integer string conversion" in str(exc)


def root_cause(exc: BaseException) -> str:
    """The first error of a chain, as ``Type: message`` (what a wrapped import hid).

    transformers' lazy modules, for one, turn any failure inside an import into
    "Could not import module …": the cause is the error worth showing.
    """
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        nxt = exc.__cause__ or exc.__context__
        if nxt is None:
            break
        exc = nxt
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
