"""Text that tries to become markup on a page (tests/hostile/test_markup.py):
a script, an attribute broken out of, a style element closed, a template
expression; and a bot that writes it in its notes and its faults."""

from bohnarena.bohnanza import Bot

#: Each attack, as a page would take it if it ever took text as markup.
ATTACKS = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'><img src=x onerror=alert(3)>",
    "</style>",
    "{{7*7}}",
)
EVIL = " ".join(ATTACKS)


class MarkupBot(Bot):
    """Notes the attacks at its first choice of each turn and raises them
    at its first in seat 1 (its answer is a fault; the default is played)."""

    def plant_second(self, view):
        self.note("note " + EVIL)
        if view.seat == 1:
            raise RuntimeError("fault " + EVIL)
        return False
