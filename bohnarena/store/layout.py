"""Every name in a results directory (docs/logs.md): the one place they are
spelled, so whatever reads or writes one names it from here."""

#: The run's facts: seeds, versions, bots, source hashes.
RUN_JSON = "run.json"
#: A secret seed and its salt while unrevealed: private (mode 0600), never
#: published; run.json holds only its commitment (docs/fairness.md).
SECRET = "secret.json"
#: The seed and salt revealed after the league (public, beside run.json).
REVEAL = "reveal.json"
#: The league file as the run was started (a grown league's latest).
LEAGUE = "league.toml"
#: The committed parts, one line each (store/manifest.py).
MANIFEST = "manifest.jsonl"
#: The chain of what was played: a link a commit, only appended (store/chain.py).
CHAIN = "chain.jsonl"
#: The rating curve (rating/curvefile.py).
RATINGS = "ratings.parquet"
#: What the ids in the logs are called (store/names.py).
NAMES = "names.parquet"
#: The HTML report.
REPORT = "report.html"
#: Each bot's faults at the end of a run.
ERRORS = "errors.json"
#: The run log.
RUN_LOG = "run.log"
#: The ranking, in each of its formats.
RANKING_CSV = "ranking.csv"
RANKING_JSON = "ranking.json"
RANKING_MD = "ranking.md"
#: Each bot's stderr, a folder a bot (``bots/<bot>/``, store/botlogs.py):
#: a log a worker (``<worker>.log``: what its processes write, a line
#: before each match) and its index (``<worker>.idx``: where each match
#: begins, which no bot writes). Results written before: ``bots/<bot>.log``.
BOT_LOGS = "bots"
BOT_LOG = ".log"
BOT_INDEX = ".idx"
#: The folders of Parquet parts: one row per match, per record, per timed
#: decision, per decision put to a seat that plays in words.
MATCHES = "matches"
MOVES = "moves"
TIMING = "timing"
EXCHANGES = "exchanges"
#: Every table, the match table first; the side tables that hang off it.
TABLES = (MATCHES, MOVES, TIMING, EXCHANGES)
SIDES = (MOVES, TIMING, EXCHANGES)
#: The tables every run has, made when it starts; the exchanges appear
#: with the first seat that plays in words.
UP_FRONT = (MATCHES, MOVES, TIMING)
