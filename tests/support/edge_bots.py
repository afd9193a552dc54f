"""Bots with a known edge over the planner, for `bohnarena compare` tests."""

from bohnarena.bohnanza import SeatView
from bohnarena_bots.planner import PlannerBot


class Squanderer(PlannerBot):
    """The planner, but it makes room by harvesting the field that pays
    least (the planner harvests where it loses least): about 2 coins a
    match worse."""

    def make_room(self, view: SeatView, card: int) -> int:
        fields = view.my_fields
        return min(view.harvestable(), key=lambda f: (view.coins_for(*fields[f]), fields[f][1]))
