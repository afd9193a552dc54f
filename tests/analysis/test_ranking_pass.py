"""One ranking pass (issue 23, part 2): a run's matches are rated once, as
they finish; its report reads nothing back; the rating curve it keeps lets
`rank` and `report` on the finished directory skip TrueSkill, and only for
exactly the matches it was rated on."""

import json
from dataclasses import replace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.analysis import results as results_module
from bohnarena.analysis.results import read_results
from bohnarena.cli import cli
from bohnarena.rating import skill
from bohnarena.rating.curvefile import _KEY, NAME
from bohnarena.report.html import build
from bohnarena.run.dispatch import run_league
from bohnarena.store import manifest
from tests.support.leagues import run_until

pytestmark = pytest.mark.slow  # every test here plays leagues: `pytest -m slow` runs them


def no_trueskill(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("TrueSkill was replayed")

    monkeypatch.setattr(skill, "rate_table", refuse)


@pytest.fixture
def finished(league, tmp_path):
    out = tmp_path / "out"
    summary = run_league(league(deals=4), out, workers=1, progress=False)
    assert summary.complete and (out / NAME).is_file()
    return out, summary


def test_the_runs_report_and_rank_on_its_directory_rate_nothing_again(finished, monkeypatch):
    out, summary = finished
    no_trueskill(monkeypatch)
    read = read_results(out)  # the kept curve: counted, not rated
    assert read.ranking.to_csv() == summary.ranking.to_csv()
    assert (read.curve.mu == summary.results.curve.mu).all()
    assert (read.matches.match_id == summary.results.matches.match_id).all()
    build(summary.results, resamples=20)  # the run's own: nothing read, nothing rated
    ranked = CliRunner().invoke(cli, ["rank", str(out), "--resamples", "20"])
    assert ranked.exit_code == 0, ranked.output


def test_without_the_curve_the_same_ranking_is_rated_again(finished):
    out, summary = finished
    kept = read_results(out)
    (out / NAME).unlink()
    again = read_results(out)
    assert again.ranking.to_csv() == kept.ranking.to_csv() == summary.ranking.to_csv()
    assert (again.curve.mu == kept.curve.mu).all() and (again.curve.sigma == kept.curve.sigma).all()


def rewrite(out, change):
    table = pq.read_table(out / NAME)
    facts = json.loads(table.schema.metadata[_KEY])
    table = change(table, facts)
    pq.write_table(table.replace_schema_metadata({_KEY: json.dumps(facts).encode()}), out / NAME)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda t, f: f["parts"].update(dict.fromkeys(f["parts"], "0" * 64)) or t,
            id="rated from other matches files",
        ),
        pytest.param(
            lambda t, f: (
                f.update(bots=["x", *f["bots"][1:]])
                or t.rename_columns(["match_id", "mu:x", "sigma:x", *t.column_names[3:]])
            ),
            id="a bot the league lacks",
        ),
        pytest.param(lambda t, f: t.slice(1), id="a match missing"),
    ],
)
def test_a_curve_that_is_not_of_these_matches_is_not_used(finished, monkeypatch, change):
    out, summary = finished
    rewrite(out, lambda t, f: t.set_column(1, t.field(1), [[99.0] * len(t)]))  # forged ratings
    rewrite(out, change)
    rated = []
    real = results_module.Results.__init__

    def spy(self, bots, kept=None):
        real(self, bots, kept)
        rated.append(self.kept is None)

    monkeypatch.setattr(results_module.Results, "__init__", spy)
    assert read_results(out).ranking.to_csv() == summary.ranking.to_csv()
    assert rated[-1]  # rated afresh


def test_a_resumed_run_keeps_a_curve_of_all_its_matches(league, tmp_path):
    path = league(deals=4, extra="[run]\nbatch_size = 2\n")
    out = tmp_path / "out"
    first, _ = run_until(path, out, 4)
    assert first.stopped and not first.complete
    whole = run_league(path, out, workers=1, progress=False)
    assert whole.complete and whole.played < 12
    kept = read_results(out)
    assert len(kept.curve.mu) == kept.matches.n == 12
    (out / NAME).unlink()
    assert read_results(out).ranking.to_csv() == kept.ranking.to_csv() == whole.ranking.to_csv()


def test_a_curve_edited_with_its_metadata_kept_is_rated_again(finished):
    """Two bots' columns swapped, the file's metadata kept: the last bot's
    ratings under the first's name. rank and report rate the matches again
    and put the right bot first."""
    out, summary = finished
    first, last = summary.ranking.rows()[0]["bot"], summary.ranking.rows()[-1]["bot"]
    table = pq.read_table(out / NAME)
    metadata = table.schema.metadata
    names = table.column_names
    swap = {f"{k}:{first}": f"{k}:{last}" for k in ("mu", "sigma")}
    swap |= {v: k for k, v in swap.items()}
    table = table.rename_columns([swap.get(n, n) for n in names]).select(names)
    pq.write_table(table.replace_schema_metadata(metadata), out / NAME)
    assert read_results(out).ranking.to_csv() == summary.ranking.to_csv()
    ranked = CliRunner().invoke(cli, ["rank", str(out), "--resamples", "20", "--format", "csv"])
    assert ranked.exit_code == 0, ranked.output
    assert ranked.output.splitlines()[1].split(",")[0] == first, ranked.output


def test_a_curve_of_an_edited_matches_file_is_rated_again(finished):
    """A part edited and its manifest line rewritten (generation kept): the
    curve was rated from the file as it was, and is not used."""
    out, _ = finished
    (part,) = (out / "matches").glob("part-*.parquet")
    table = pq.read_table(part)
    kept = read_results(out)
    ranks = table.column("ranks").to_pylist()
    ranks[0] = ranks[0][::-1]  # the first match's places turned round
    at = table.schema.get_field_index("ranks")
    column = pa.array(ranks, table.schema.field(at).type)
    pq.write_table(table.set_column(at, table.schema.field(at), column), part)
    m = manifest.parse((out / manifest.NAME).read_text())
    m.live[part.name] = replace(m.live[part.name], matches=manifest.describe(part))
    (out / manifest.NAME).write_text(m.text())  # (its generation kept)
    again = read_results(out)
    (out / NAME).unlink()
    assert (again.curve.mu == read_results(out).curve.mu).all()
    assert not (again.curve.mu == kept.curve.mu).all()
