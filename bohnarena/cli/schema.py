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
@click.option(
    "--compare",
    "of_compare",
    is_flag=True,
    help="The schema of `compare --format json` instead (docs/compare.schema.json).",
)
def schema_command(game: str, out: str | None, check: bool, of_compare: bool) -> None:
    """The JSON Schema of a game's JSON-lines bot protocol (every message
    both ways), generated from the code that speaks it; with --compare, of
    `compare --format json`."""
    if check and out is None:
        raise UsageError("--check needs --out FILE: the file to compare with")
    if of_compare:
        from .verdict import schema_text as compare_schema

        text = compare_schema()
    else:
        text = protocol_text(game)
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
            f"{out} is stale: run bohnarena schema "
            f"{'--compare' if of_compare else f'--game {game}'} --out {out}"
        )


def protocol_text(game: str) -> str:
    import importlib

    from ..core.protocol_schema import schema_text

    g = get_game(game)
    protocol = getattr(importlib.import_module(g.wire), "protocol", None) if g.wire else None
    if protocol is None:
        raise UsageError(f"the game {game!r} publishes no JSON-lines protocol schema")
    return schema_text(protocol())
