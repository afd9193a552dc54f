"""``python -m bohnarena.host WIRE SPEC`` as the docs for bot authors have
always named it: the bot side of the JSON-lines protocol lives in
:mod:`bohnarena.external.host` (a re-export only; the sandbox runs that one)."""

from .core.wire import Wire, wire_of
from .external.host import Host, main, private_stdio, serve

__all__ = ["Host", "Wire", "main", "private_stdio", "serve", "wire_of"]

if __name__ == "__main__":
    main()
