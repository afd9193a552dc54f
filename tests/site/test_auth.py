"""The site's cookies and names, without a server: a CSRF field is its
browser's own; an uploaded file's name never reaches a path."""

import pytest

from bohnarena.site import auth

from .conftest import MISSING

KEY = b"k" * 32


def test_a_csrf_field_is_its_own_browsers():
    mine, theirs = auth.new_csrf_cookie(), auth.new_csrf_cookie()
    field = auth.csrf_field(KEY, mine)
    assert auth.csrf_ok(KEY, mine, field)
    assert not auth.csrf_ok(KEY, theirs, field)
    assert not auth.csrf_ok(KEY, None, field) and not auth.csrf_ok(KEY, mine, None)
    assert not auth.csrf_ok(KEY, mine, mine)


def test_bearer():
    assert auth.bearer("Bearer abc") == "abc" and auth.bearer("bearer  abc ") == "abc"
    for header in (None, "", "Basic abc", "Bearer", "Bearer   "):
        assert auth.bearer(header) is None


@pytest.mark.skipif(bool(MISSING), reason=f"needs the site extra ({', '.join(MISSING)})")
def test_an_uploaded_name_is_its_last_plain_component():
    from bohnarena.site.upload import BadUpload, safe_name

    assert safe_name("../../x-1.0-py3-none-any.whl") == "x-1.0-py3-none-any.whl"
    assert safe_name("C:\\\\Users\\\\me\\\\bot.py") == "bot.py"
    assert safe_name("sbot-1.0.tar.gz") == "sbot-1.0.tar.gz"
    for name in ("..", "../", ".pth.py", "bot", "bot.exe", "a b.py", "é.py", "x\x00.py", "-" * 200):
        with pytest.raises(BadUpload):
            safe_name(name)
