"""A submission's requirements read as pip reads them (PEP 508, by
``packaging``): where a regular expression took the wrong name, skipped a
requirement that holds or kept one that does not."""

import pytest

from bohnarena.ladder.metadata import check_requirements, normalized, project, requirement_name
from bohnarena.ladder.unpack import SubmissionError

ALLOWED = ("bohnarena_bots",)


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("bohnarena-bots[http,extra]>=1.0", "bohnarena-bots"),  # its own extras
        ("bohnarena-bots @ https://example.org/b-1.0-py3-none-any.whl", "bohnarena-bots"),
        ("bohnarena-bots@https://example.org/b.whl ; python_version >= '3'", "bohnarena-bots"),
        ("\t bohnarena-bots  ( >= 1.0 , < 2 )  ;  python_version>='3'", "bohnarena-bots"),
        ('requests; extra != "test"', "requests"),  # holds with no extra: the regex skipped it
        ('requests; python_version >= "3" or extra == "test"', "requests"),
        ('requests; extra == "test"', None),  # only under an extra
        ('requests; python_version < "3"', None),  # pip would not install it: it was refused
        ('requests; extra == "test" and python_version >= "3"', None),
    ],
)
def test_a_requirement_is_read_as_pip_reads_it(line, name):
    assert requirement_name(line) == name


@pytest.mark.parametrize("line", ['"requests"', "-requests", "requests-", "https://x.org/r.whl"])
def test_a_requirement_that_is_not_pep_508_is_refused_in_one_line(line):
    """The regex found no name in the first two and skipped them unchecked."""
    with pytest.raises(SubmissionError, match="is not valid") as e:
        requirement_name(line)
    assert "\n" not in str(e.value) and repr(line) in str(e.value)


def test_names_compare_normalised(tmp_path):
    assert normalized("Bohnarena_Bots") == normalized("bohnarena.bots") == "bohnarena-bots"
    assert normalized("BOHNARENA__-._bots") == "bohnarena-bots"
    check_requirements(["Bohnarena.Bots", "BOHNARENA_bots", "BohnArena"], ALLOWED)


def test_a_requirement_the_regex_skipped_is_checked(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = [\'requests; extra != "test"\', '
        "\"numpy; python_version < '3'\", 'Bohnarena_Bots[http]>=0.1']\n"
    )
    found = project(tmp_path)
    assert found.requirements == ["requests", "Bohnarena_Bots"]
    with pytest.raises(SubmissionError, match="requires requests, which the ladder does not"):
        check_requirements(found.requirements, ALLOWED)
