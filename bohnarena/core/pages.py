"""Pages built from Jinja2 templates, every value escaped unless it is
markup built here: autoescaping is on, and every character of a value that
is not printable is escaped as :func:`.untrusted.lines` does, so a bot's
name, note or fault text and a league's name show as text on any page, and
a template is text a page shows only as itself (``{{7*7}}`` in a name is
not evaluated).

Each folder that writes pages keeps its templates in its ``templates/``;
they extend ``base.html`` here (the layout: the Content-Security-Policy, the
title, the style, the body), which a site can extend too."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from .untrusted import lines

__all__ = ["Markup", "join", "markup", "render"]


def _text(value: Any) -> Any:
    """A value as a page holds it: a string's characters that are not
    printable written as escapes (markup is left as it is)."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return lines(value)
    return value


def markup(structure: str, *fields: Any, **named: Any) -> Markup:
    """``structure`` (literal markup, written here: never a bot's text) with
    its ``{}`` fields filled by escaped text, or by markup as it is."""
    return Markup(structure).format(*map(_text, fields), **{k: _text(v) for k, v in named.items()})


def join(parts: Iterable[Any], separator: str = "") -> Markup:
    """``parts`` joined by the markup ``separator``, each escaped unless markup."""
    return Markup(separator).join(map(_text, parts))


@cache
def environment(package: str) -> jinja2.Environment:
    """The templates of ``package`` (its ``templates/``), over the layout here."""
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.PackageLoader(package, "templates"), jinja2.PackageLoader(__package__)]
        ),
        autoescape=True,
        finalize=_text,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(package: str, name: str, **context: Any) -> str:
    """The page ``name`` of ``package``'s templates, filled with ``context``."""
    return environment(package).get_template(name).render(**context)
