"""A bot whose notes try to break out of the viewer page (tests/viewer)."""

from __future__ import annotations

from dataclasses import replace

from bohnarena.bohnanza import Offer, SeatView
from bohnarena_bots.trader import TraderBot

#: Markup that would close the page's data block, add an image that calls
#: home and run a script, if the page ever took a note as markup.
ESCAPE = (
    '</script><img src="http://127.0.0.1:9/leak.png" onerror="document.title=1">'
    "<script>document.title=2</script><!-- \u2028 &amp;"
)


class MarkupNoter(TraderBot):
    def plant(self, view: SeatView, card: int) -> int:
        self.note(ESCAPE)
        return super().plant(view, card)


class MarkupTalker(TraderBot):
    """Says the markup with every offer it makes (table talk)."""

    def propose(self, view: SeatView) -> Offer | None:
        offer = super().propose(view)
        return None if offer is None else replace(offer, say=ESCAPE)
