"""Old paths kept for bot authors: the sandbox and every bot run outside
the worker now live in :mod:`bohnarena.external`."""
