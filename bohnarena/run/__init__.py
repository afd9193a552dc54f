"""A run: provenance, dispatch, workers, execution backends, finished matches in order, replay."""
