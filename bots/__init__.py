"""Bots shipped with bohnarena; each is registered as a plugin (entry point
group ``bohnarena.bots``) in pyproject.toml."""
