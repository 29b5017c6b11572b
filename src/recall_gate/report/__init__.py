"""Reports rendered from results and comparisons: Markdown, plain text and JSON (pure)."""
