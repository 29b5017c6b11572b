"""Developer tools run from a checkout (``make generate``), not by the CLI."""
