"""Old paths kept for bot authors: bots served over HTTP now live in
:mod:`bohnarena.external.http`."""
