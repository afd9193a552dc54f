"""``python -m bohnarena.sandbox.host WIRE SPEC`` as older docs named it: a
re-export of :mod:`bohnarena.external.host`, the bot side of the protocol."""

from ..external.host import Host, main, private_stdio, serve

__all__ = ["Host", "main", "private_stdio", "serve"]

if __name__ == "__main__":
    main()
