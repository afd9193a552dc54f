"""Shared test marks."""

import shutil

import pytest

#: Tests that run a bot in the bubblewrap sandbox; they skip, saying why, where it is missing.
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="needs bubblewrap (Debian package bubblewrap)")
