"""Bots that talk at the table (table talk, issue 49 part 5): the trader's
moves with a message on every offer. ``Talker`` says something hostile
(markup, a terminal escape, a line break, far too long); ``Echo`` repeats
the last thing another seat said, as its view showed it: out of process,
what it says proves the message crossed the wire both ways."""

from __future__ import annotations

from dataclasses import replace

from bohnarena.bohnanza import Offer
from bohnarena_bots.trader import TraderBot

HOSTILE = '<b>deal?</b> <script>alert(1)</script>\x1b[31m\nred & "quoted" ' + "x" * 300


class Talker(TraderBot):
    def propose(self, view):  # type: ignore[no-untyped-def]
        return self._say(view, super().propose(view))

    def offer(self, view):  # type: ignore[no-untyped-def]
        return self._say(view, super().offer(view))

    def _say(self, view, offer: Offer | None) -> Offer | None:  # type: ignore[no-untyped-def]
        return None if offer is None else replace(offer, say=f"turn {view.turn}: {HOSTILE}")


class Echo(Talker):
    def _say(self, view, offer: Offer | None) -> Offer | None:  # type: ignore[no-untyped-def]
        heard = [r.text for r in view.history if r.kind == "said" and r.seat != view.seat]
        if offer is None or not heard:
            return offer
        return replace(offer, say=f"you said {heard[-1][:20]}")
