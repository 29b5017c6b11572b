"""What a retriever's failure was, in words, and whether asking again may help.

Retriever code is the user's: it may raise anything, including the
``BaseException`` family (``sys.exit(0)`` in a script turned into a module, a
stray ``KeyboardInterrupt``). Each is caught where it happens and named, so no
path through ``capture`` ends with the process exiting on the retriever's say.

A failure is *transient* when asking again may succeed: a connection error, a
timeout, an HTTP 429 or 5xx. The common clients (requests, httpx, openai,
aiohttp, urllib) are recognised by the shape of their exceptions — class names
and a status code — never by importing them.
"""

from __future__ import annotations

__all__ = ["EXIT_FIX", "describe", "is_transient"]

# Retriever code that exits would end the capture without a verdict: it is named instead.
EXIT_FIX = (
    "retriever code must return or raise an exception, never exit the process: "
    "remove the sys.exit() (e.g. move a script's top-level code under "
    '`if __name__ == "__main__":`), then capture again; nothing was written'
)

# Class names (anywhere in the exception's MRO) of errors that are worth asking again.
_TRANSIENT_NAMES = frozenset(
    {
        # builtins
        "ConnectionError",
        "TimeoutError",
        # requests / urllib3
        "Timeout",
        "ReadTimeout",
        "ConnectTimeout",
        "ChunkedEncodingError",
        "ProtocolError",
        "NewConnectionError",
        "MaxRetryError",
        # httpx
        "TransportError",
        "TimeoutException",
        "NetworkError",
        "RemoteProtocolError",
        # openai / anthropic-style SDKs
        "APIConnectionError",
        "APITimeoutError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        # aiohttp
        "ClientConnectionError",
        "ServerTimeoutError",
        "ServerDisconnectedError",
    }
)
_TOO_MANY_REQUESTS = 429


def _status_code(exc: BaseException) -> int | None:
    """The HTTP status an exception carries: ``.status_code`` (httpx, openai),
    ``.status`` (aiohttp), ``.code`` (urllib), or on its ``.response``."""
    for holder in (exc, getattr(exc, "response", None)):
        if holder is None:
            continue
        for attr in ("status_code", "status", "code"):
            value = getattr(holder, attr, None)
            if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
                return value
    return None


def is_transient(exc: BaseException) -> bool:
    """Whether asking the same query again may succeed (network, timeout, 429, 5xx)."""
    if not isinstance(exc, Exception):
        return False
    status = _status_code(exc)
    if status is not None:
        return status == _TOO_MANY_REQUESTS or status >= 500
    return any(cls.__name__ in _TRANSIENT_NAMES for cls in type(exc).__mro__)


def describe(exc: BaseException) -> str:
    """The failure as a phrase: ``raised ValueError: …``, ``called sys.exit(0)``."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    text = str(exc)
    name = type(exc).__name__
    return f"raised {name}: {text}" if text else f"raised {name}"
