"""Ctrl-C during a long call: the call runs to its end with the GIL released,
then KeyboardInterrupt is raised. The table holds the whole append, never a
part, and its log stays sound."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import deltacommit

CHILD = r"""
import sys
import deltacommit
table = deltacommit.Table(sys.argv[1])
print("appending", flush=True)
table.append(sys.argv[2])
print("returned", flush=True)
"""


def test_an_interrupted_append_lands_whole_or_not_at_all(local_tables, tmp_path):
    table = local_tables.new("id:long,name:string")
    rows = 2_000_000
    with open(tmp_path / "big.csv", "w") as f:
        f.write("id,name\n")
        f.writelines(f"{i},name-{i}\n" for i in range(rows))
    child = subprocess.Popen([sys.executable, "-c", CHILD, table.uri, str(tmp_path / "big.csv")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "appending"
    time.sleep(0.3)  # DuckDB is converting now
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=300)
    assert child.returncode != 0
    assert "KeyboardInterrupt" in err
    assert "returned" not in out  # raised as the call returned, before the next line
    snapshot = table.update()
    counted = table.query("SELECT count(*) FROM t").rows[0][0] if snapshot.num_files else 0
    # The signal came while the call ran (it had not returned), and the call
    # ran to its end: the whole append is committed.
    assert (snapshot.version, counted) == (1, rows)
    assert table.check().sound


def test_other_threads_run_while_a_call_waits(local_tables, tmp_path):
    """The GIL is released inside the call: the main thread keeps counting
    while another thread's append runs (with the GIL held it could not)."""
    import threading

    table = local_tables.new("id:long,name:string")
    with open(tmp_path / "rows.csv", "w") as f:
        f.write("id,name\n")
        f.writelines(f"{i},name-{i}\n" for i in range(500_000))
    inside, done = threading.Event(), threading.Event()

    def append():
        inside.set()
        table.append(tmp_path / "rows.csv")
        done.set()

    worker = threading.Thread(target=append)
    worker.start()
    inside.wait()
    counted = 0
    while not done.is_set():
        counted += 1
    worker.join()
    assert table.version() == 1
    # Millions here (10 million on this machine); with the GIL held the main
    # thread would count only in the switch intervals before the call began.
    assert counted > 1_000_000, counted
