"""docs/rules.md stands alone: it names the rule texts and quotes them word
for word (checked against the texts when BOHNARENA_RULE_TEXTS names their
folder; a clone of the project does not have them)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[2] / "docs" / "rules.md"
QUOTE = re.compile(r'^> (\d{3}): "(.*)"$', re.M)


def quotes() -> list[tuple[str, str]]:
    return QUOTE.findall(DOC.read_text("utf-8"))


def test_rules_doc_names_the_texts_and_links_nowhere_outside_the_project() -> None:
    text = DOC.read_text("utf-8")
    assert "../shared" not in text and "shared/rules" not in text
    cited = {number for number, _ in quotes()}
    assert cited == {"000", "001", "002", "003"}
    for number in cited:
        assert re.search(rf"\| {number} \(`{number}_[0-9a-f]{{16}}\.txt`\)", text)


@pytest.mark.skipif(
    not os.environ.get("BOHNARENA_RULE_TEXTS"), reason="the rule texts are not in the project"
)
def test_every_quote_is_in_its_rule_text_word_for_word() -> None:
    folder = Path(os.environ["BOHNARENA_RULE_TEXTS"])
    for number, quote in quotes():
        (path,) = folder.glob(f"{number}_*.txt")
        source = path.read_text("utf-8")
        at = 0
        for piece in quote.split(" [...] "):  # an elision
            found = source.find(piece, at)
            assert found >= 0, f"{number} does not say: {piece!r}"
            at = found + len(piece)
