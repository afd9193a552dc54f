"""Golden playthroughs: seeded matches whose full transcripts are stored
beside this file. A rules change shows up as a readable diff of them.

Both games play through the same mechanism (``game``: the card game or
the dice game). Regenerate them on purpose (after a deliberate rules
change, with a bump of that game's RULES_VERSION) with:

    python -m tests.golden.playthroughs
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Golden:
    name: str
    edition: str
    seed: int
    bots: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    shows: tuple[str, ...] = ()  # record kinds this playthrough exists to show
    game_name: str = "bohnanza"
    ends_in_draft: bool = False  # the last run-out happens while a draft draws

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}.txt"

    @property
    def game(self) -> Any:  # Game, with the replay methods both games have
        return get_game(self.game_name)

    def rules(self) -> Any:
        return self.game.rules(self.edition, len(self.bots), self.options)

    def play(self) -> tuple[list[tuple[Any, ...]], list[str]]:
        game, rules = self.game, self.rules()
        bots = [load_bot(b, game.bot_base)() for b in self.bots]
        _, records = game.play(rules, self.seed, bots)
        head = [
            f"# {self.name}: {self.edition}, seed {self.seed}, bots {', '.join(self.bots)}"
            + (f", options {self.options}" if self.options else "")
        ]
        return records, head + list(game.replay_lines(rules, self.seed, records, self.bots))


GOLDEN = [
    Golden(
        "classic-4p-ends-in-phase-2",
        "classic",
        8963783824838420066,  # found by search: trader's play decides where the end falls
        ("trader-0.2", "planner", "random", "trader-0.2"),
        shows=("traded", "reshuffled"),
    ),
    Golden(
        "anniversary-3p-jumping-draft",
        "anniversary",
        0,
        ("trader-0.2", "planner", "trader-0.2"),
        {"extra_bean": "jumping"},
        shows=("draft_card", "picked", "draft_coin"),
    ),
    Golden(
        "riogrande-4p-third-field",
        "riogrande",
        0,
        ("planner", "trader-0.2", "planner", "random"),
        shows=("bought_field",),
    ),
    Golden("riogrande-3p-two-exhaustions", "riogrande", 1, ("trader-0.2", "planner", "random")),
    Golden(
        "wuerfel-3p-greedy-and-random",
        "standard",
        0,
        ("wuerfel-greedy", "wuerfel-random", "wuerfel-greedy"),
        shows=("rolled", "set_aside", "fulfilled", "redeemed", "drew"),
        game_name="wuerfel",
    ),
    Golden(
        "wuerfel-5p-overview-card",
        "standard",
        5,
        ("wuerfel-greedy",) * 5,
        shows=("overview",),
        game_name="wuerfel",
    ),
    Golden(
        "wuerfel-2p-no-early-stop",
        "standard",
        0,
        ("wuerfel-random", "wuerfel-greedy"),
        {"early_stop": False},
        game_name="wuerfel",
    ),
    # Issue 13's reproductions: the draw pile runs out for the last time
    # during a Jumping Bean draft, and the game ends there (000, "End of the Game").
    *(
        Golden(
            f"anniversary-3p-jumping-ends-{what}",
            "anniversary",
            seed,
            bots,
            {"extra_bean": "jumping"},
            shows=("draft_card", "exhausted"),
            ends_in_draft=True,
        )
        for what, seed, bots in (
            ("one-card-draft", 4949426990230361776, ("planner", "random", "random")),
            ("one-card-draft-2", 11534118754833929857, ("random", "random", "trader-0.2")),
            ("draft-in-phase-3", 16534747258774421329, ("random", "planner", "random")),
            ("draft-while-trading", 13797736980442333622, ("trader-0.2", "planner", "random")),
        )
    ),
]


# (they play "trader-0.2": the trader as they were made with it, before its
# defaults were tuned; a bot's new defaults are no reason to regenerate them)


def main() -> None:
    for g in GOLDEN:
        _, lines = g.play()
        g.path.write_text("\n".join(lines) + "\n", "utf-8")
        print(f"wrote {g.path} ({len(lines)} lines)")


if __name__ == "__main__":
    main()
