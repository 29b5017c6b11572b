"""Adapters: files, datasets, config, results and baseline stores, the Actions
runner files and the GitHub API. The only places their kind of I/O happens."""
