"""How ``capture`` asks a retriever by default: one home for the numbers the
executor, the config and the flags' help share (see docs/large-evaluation-sets.md)."""

from __future__ import annotations

__all__ = ["DEFAULT_CONCURRENCY", "DEFAULT_RETRIES", "DEFAULT_TIMEOUT"]

# Eight queries in flight: enough to hide an embedding API's latency, few
# enough to stay under the usual per-key rate limits.
DEFAULT_CONCURRENCY = 8
DEFAULT_RETRIES = 3
DEFAULT_TIMEOUT = 60.0  # seconds per attempt
