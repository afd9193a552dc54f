"""A ladder's participants' tokens: shown once, kept as their hash alone,
revoked at once, each touching only the entries its pattern names."""

import pytest

from bohnarena.ladder.tokens import TOKENS, Holder, TokenBook, TokenError


def everything_under(ladder):
    return b"".join(p.read_bytes() for p in ladder.rglob("*") if p.is_file())


def test_a_token_is_kept_as_its_hash_alone(ladder):
    book = TokenBook(ladder)
    token = book.add("ann")
    assert len(token) >= 40
    assert token.encode() not in everything_under(ladder)
    assert (ladder / TOKENS).stat().st_mode & 0o077 == 0
    assert book.holder(token) == Holder("ann", "ann")
    assert book.holders() == [Holder("ann", "ann")]


def test_unknown_tokens_find_no_one(ladder):
    book = TokenBook(ladder)
    assert book.holder("anything") is None  # no tokens file yet
    token = book.add("ann")
    for wrong in ("", token[:-1], token + "x", token.upper(), "\ud800", "x" * 100_000):
        assert book.holder(wrong) is None


def test_a_revoked_token_is_refused_at_once(ladder):
    book, other = TokenBook(ladder), TokenBook(ladder)  # (another process's book)
    ann, bob = book.add("ann"), book.add("bob")
    assert other.holder(ann) is not None
    book.revoke("ann")
    assert other.holder(ann) is None and other.holder(bob) == Holder("bob", "bob")
    with pytest.raises(TokenError, match="'ann' holds no token"):
        book.revoke("ann")
    assert book.holder(book.add("ann")) == Holder("ann", "ann")  # a new one for ann works
    assert book.holder(ann) is None  # (the old one stays dead)


def test_a_pattern_names_the_entries_a_holder_touches(ladder):
    book = TokenBook(ladder)
    team = book.holder(book.add("team", "team-*"))
    assert team is not None
    assert team.may_touch("team-a") and team.may_touch("team-")
    assert not team.may_touch("team") and not team.may_touch("TEAM-a")
    ann = book.holder(book.add("ann"))
    assert ann is not None and ann.may_touch("ann") and not ann.may_touch("ann2")


@pytest.mark.parametrize(
    "name, entries, match",
    [
        ("bad name", None, "holder name"),
        ("a.b", None, "holder name"),
        ("../x", None, "holder name"),
        ("ann", "a/b", "--entries"),
        ("ann", "", "--entries"),
        ("ann", "a b", "--entries"),
    ],
)
def test_bad_names_are_refused(ladder, name, entries, match):
    with pytest.raises(TokenError, match=match):
        TokenBook(ladder).add(name, entries)
    assert not (ladder / TOKENS).exists()


def test_one_token_a_holder(ladder):
    book = TokenBook(ladder)
    book.add("ann")
    with pytest.raises(TokenError, match="holds a token already"):
        book.add("ann")
    assert len(book.holders()) == 1
