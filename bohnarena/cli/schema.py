"""``bohnarena schema``: a game's JSON-lines protocol as JSON Schema."""

from __future__ import annotations

from pathlib import Path

import click

from ..core.errors import UsageError
from ..core.game import get_game
from .group import (
    cli,
    echo,
    game_option,
)


@cli.command("schema")
@game_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    help="Write it to this file (the published copies: docs/protocol.schema.json "
    "for the card game, docs/wuerfel.schema.json for the dice game).",
)
@click.option("--check", is_flag=True, help="With --out: fail if the file is not up to date.")
def schema_command(game: str, out: str | None, check: bool) -> None:
    """The JSON Schema of a game's JSON-lines bot protocol (every message
    both ways), generated from the code that speaks it."""
    import importlib

    from ..core.protocol_schema import schema_text

    g = get_game(game)
    protocol = getattr(importlib.import_module(g.wire), "protocol", None) if g.wire else None
    if protocol is None:
        raise UsageError(f"the game {game!r} publishes no JSON-lines protocol schema")
    if check and out is None:
        raise UsageError("--check needs --out FILE: the file to compare with")
    text = schema_text(protocol())
    if out is None:
        echo(text, nl=False)
        return
    path = Path(out)
    try:
        if not check:
            path.write_text(text, "utf-8")
            return
        current = path.read_text("utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot {'read' if check else 'write'} {out}: {e}") from None
    if current != text:
        raise click.ClickException(
            f"{out} is stale: run bohnarena schema --game {game} --out {out}"
        )
