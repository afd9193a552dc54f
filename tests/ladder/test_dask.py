"""A ladder on Dask (``ladder run --backend dask``, a local cluster) plays
the same matches, byte for byte, as on the local pool: its first run and
the run after a new version joins."""

import shutil

import pytest

from tests.run.test_run import content

from .builders import file_bot
from .conftest import join, run_ok

pytest.importorskip("distributed")


@pytest.mark.slow
def test_a_ladder_on_dask_plays_the_same_matches_as_on_the_local_pool(processes, tmp_path):
    text = (processes / "ladder.toml").read_text()
    (processes / "ladder.toml").write_text(text.replace('seed = "secret"', "seed = 81234567890123"))
    twin = tmp_path / "twin"
    shutil.copytree(processes, twin)  # the same settings, bots and seed
    bot = file_bot(tmp_path, "Bot4")
    for ladder, options in ((processes, ["--workers", "2"]), (twin, ["--backend", "dask"])):
        run_ok(ladder, 8, 0, *options)
        join(ladder, "eve", bot)
        run_ok(ladder, 32, 8, *options)
    a, b = content(processes / "results"), content(twin / "results")
    assert a[0].num_rows == 40 and a[0].equals(b[0]) and a[1].equals(b[1])
