import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.fixture
def league(tmp_path):
    """Write a league file; returns its path."""

    def make(name="t", edition="classic", players=3, deals=2, seed=5, bots=None, extra=""):
        bots = bots or {"trader": "trader", "planner": "planner", "random": "random"}
        lines = "\n".join(f'{k} = "{v}"' for k, v in bots.items())
        text = (
            textwrap.dedent(f"""\
            name = "{name}"
            edition = "{edition}"
            players = {players}
            deals = {deals}
            seed = {seed}
            """)
            + extra
            + f"\n[bots]\n{lines}\n"
        )
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        return path

    return make


def hostile(name: str) -> str:
    return f"{HERE / 'hostile_bots.py'}:{name}"
