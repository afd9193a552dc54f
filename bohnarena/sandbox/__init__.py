"""Bots outside the engine's process: the JSON-lines channel, the bot-side
host, process and bubblewrap isolation."""
