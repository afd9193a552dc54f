"""What run.json keeps and a resume checks (issue 11, point 10): the code a
bot can run, the complete rule set and the data files behind it, and the
interpreter, platform and package versions."""

import json
import shutil
from pathlib import Path

import pytest

from bohnarena.core.errors import UsageError
from bohnarena.run.dispatch import run_league

pytestmark = pytest.mark.slow  # every test here plays leagues: `pytest -m slow` runs them

ROOT = Path(__file__).parents[2]


def test_run_json_records_what_decides_play(league, tmp_path):
    out = tmp_path / "out"
    run_league(league(deals=1), out, workers=1, progress=False)
    meta = json.loads((out / "run.json").read_text())
    assert meta["python"].count(".") == 2 and meta["platform"]
    assert meta["packages"]["bohnarena"]
    assert meta["rules"]["edition"] == "classic" and "max_trade_rounds" in meta["rules"]
    assert set(meta["data"]) == {"editions.toml", "varieties.toml"}


def test_editing_a_module_a_file_bot_could_import_is_noticed_on_resume(tmp_path):
    bots = tmp_path / "mine"
    bots.mkdir()
    (bots / "helper.py").write_text("BIAS = 1\n")
    (bots / "bot.py").write_text("from bohnarena.bohnanza import Bot\nclass B(Bot):\n    pass\n")
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "f"\nplayers = 3\ndeals = 1\nseed = 2\n'
        f'[bots]\nmine = "{bots / "bot.py"}:B"\nplanner = "planner"\nrandom = "random"\n'
    )
    run_league(path, tmp_path / "out", workers=1, progress=False)
    (bots / "helper.py").write_text("BIAS = 2\n")
    with pytest.raises(UsageError, match="source of bot"):
        run_league(path, tmp_path / "out", workers=1, progress=False)


def test_a_dice_deck_file_is_hashed_and_an_edit_refuses_the_resume(tmp_path):
    deck = tmp_path / "deck.toml"
    shutil.copy(ROOT / "bohnarena" / "wuerfel" / "data" / "harvest_cards.toml", deck)
    path = tmp_path / "w.toml"
    path.write_text(
        'name = "w"\ngame = "wuerfel"\nedition = "standard"\nplayers = 3\ndeals = 1\n'
        f'seed = 2\n[rules]\ndeck_file = "{deck}"\n'
        '[bots]\ngreedy = "wuerfel-greedy"\nrandom = "wuerfel-random"\n'
    )
    out = tmp_path / "out"
    run_league(path, out, workers=1, progress=False)
    assert str(deck) in json.loads((out / "run.json").read_text())["data"]
    deck.write_text(deck.read_text() + "\n# an edit\n")
    with pytest.raises(UsageError, match="data files changed"):
        run_league(path, out, workers=1, progress=False)
