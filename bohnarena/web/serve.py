"""``python -m bohnarena.web.serve SPEC`` as older docs named it: a
re-export of :mod:`bohnarena.external.http.serve`, the reference service."""

from ..external.http.serve import main, serve

__all__ = ["main", "serve"]

if __name__ == "__main__":
    main()
