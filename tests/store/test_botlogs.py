"""A bot's stderr split by match (store/botlogs.py): the engine's index is
what splits it, never a line the bot prints."""

import os
import threading

from bohnarena.store import botlogs


def bot_writes(log, text):
    """What a bot's process does: its stderr is the log, opened to append."""
    with open(log, "ab") as f:
        f.write(text.encode())


def test_each_match_reads_what_was_written_after_its_line(tmp_path):
    log = botlogs.log_path(tmp_path, "b")
    for m in (3, 4, 9):
        botlogs.mark(log, m)
        bot_writes(log, f"said in {m}\n" * m)
    for m in (3, 4, 9):
        found = botlogs.stderr_of(tmp_path, "b", m)
        assert found.text == f"said in {m}\n" * m and found.size == len(found.text)
    assert botlogs.stderr_of(tmp_path, "b", 5) is None
    assert botlogs.stderr_of(tmp_path, "other", 3) is None
    assert "--- match 9 ---" in botlogs.newest(tmp_path, "b").text


def test_a_forged_line_is_the_bots_own_text(tmp_path):
    """A bot that prints the engine's line for another match (and one whose
    text ends without a newline) has it read as its own text of this match."""
    log = botlogs.log_path(tmp_path, "b")
    botlogs.mark(log, 1)
    bot_writes(log, "mine\n--- match 2 ---\nforged\n--- match 1 ---\nno newline")
    botlogs.mark(log, 2)
    bot_writes(log, "honest 2\n")
    assert botlogs.stderr_of(tmp_path, "b", 1).text == (
        "mine\n--- match 2 ---\nforged\n--- match 1 ---\nno newline"
    )
    assert botlogs.stderr_of(tmp_path, "b", 2).text == "honest 2\n"


def test_the_end_only_and_the_last_play_of_a_match(tmp_path):
    log = botlogs.log_path(tmp_path, "b")
    botlogs.mark(log, 7)
    bot_writes(log, "first try\n")
    botlogs.mark(log, 7)  # played again (a retried batch)
    bot_writes(log, "x" * 100 + "END")
    found = botlogs.stderr_of(tmp_path, "b", 7, limit=10)
    assert found.text == "x" * 7 + "END" and found.size == 103 and found.shown_from == 93


def test_an_index_that_does_not_match_its_log_reads_nothing(tmp_path):
    log = botlogs.log_path(tmp_path, "b")
    botlogs.mark(log, 1)
    bot_writes(log, "text\n")
    log.write_bytes(b"replaced\n" * 3)
    assert botlogs.stderr_of(tmp_path, "b", 1) is None
    with open(log.with_suffix(".idx"), "ab") as f:
        f.write(b'{"match_id": 1, "at": 0, "ti')  # cut short by a crash: left out
    assert botlogs.stderr_of(tmp_path, "b", 1) is None


def test_each_worker_and_thread_has_a_log_of_its_own(tmp_path):
    names = {botlogs.worker(), botlogs.worker()}
    seen = []
    thread = threading.Thread(target=lambda: seen.append(botlogs.worker()))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:  # a forked worker: a name of its own though its parent had one
        os._exit(0 if botlogs.worker() not in names | set(seen) else 1)
    assert os.waitpid(pid, 0)[1] == 0
    assert len(names) == 1 and seen[0] not in names
    assert botlogs.worker().startswith(f"{os.getpid()}-")


def test_results_written_before_keep_their_one_log(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.log").write_bytes(b"old\n" * 5)
    found = botlogs.newest(tmp_path, "b", limit=8)
    assert found.text == "old\nold\n" and found.size == 20 and found.shown_from == 12
    assert botlogs.stderr_of(tmp_path, "b", 0) is None
    assert botlogs.newest(tmp_path, "nobody") is None
