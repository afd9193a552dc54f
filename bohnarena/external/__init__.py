"""Bots that run outside the worker's process: as a process, in the
sandbox (``sandbox/``), as a command, or served over HTTP (``http/``)."""
