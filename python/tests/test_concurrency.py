"""Many writers on one table: threads sharing one Table, and separate Python
processes, in every commit mode. Versions must be contiguous and each
commit in the log once. Through the commit service, blind appends may share
a version (group commit): every version from 1 to the latest is one that
some commit was told it landed in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import deltacommit

WRITER = r"""
import json, sys
import deltacommit
uri, writer, commits, options = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
table = deltacommit.Table(uri, **options)
for i in range(commits):
    add = {"add": {"path": f"p{writer}-{i}.parquet", "partitionValues": {}, "size": 1,
                   "modificationTime": 1, "dataChange": True}}
    print(table.commit([add], app_id=f"writer-{writer}", app_version=i).version)
"""


def expect_each_once(table: deltacommit.Table, paths: set, apps: dict, landed: list) -> None:
    snapshot = table.update()
    assert len(landed) == len(paths)
    assert set(landed) == set(range(1, snapshot.version + 1))
    if table.mode not in ("service", "coordinated"):
        assert snapshot.version == len(paths)
    assert {f["path"] for f in snapshot.files()} == paths
    for app, version in apps.items():
        assert snapshot.txn_version(app) == version
    history = table.history()
    assert [h["version"] for h in history] == list(range(snapshot.version, -1, -1))
    assert table.check().sound


def test_threads_share_one_table(tables):
    table = tables.new()
    threads, errors, landed = [], [], []

    def write(w: int) -> None:
        try:
            for i in range(10):
                add = {"add": {"path": f"t{w}-{i}.parquet", "partitionValues": {}, "size": 1,
                               "modificationTime": 1, "dataChange": True}}
                landed.append(table.commit([add], app_id=f"thread-{w}", app_version=i).version)
        except Exception as e:  # reported below, with the thread's name
            errors.append(f"thread {w}: {e!r}")

    for w in range(4):
        threads.append(threading.Thread(target=write, args=(w,)))
        threads[-1].start()
    for t in threads:
        t.join()
    assert errors == []
    expect_each_once(table, {f"t{w}-{i}.parquet" for w in range(4) for i in range(10)},
                     {f"thread-{w}": 9 for w in range(4)}, landed)


def test_eight_processes_append_25_commits_each(tables):
    table = tables.new()
    options = tables.options(table.uri)
    options.pop("create_dynamodb_table", None)
    env = dict(os.environ)
    processes = [
        subprocess.Popen([sys.executable, "-c", WRITER, table.uri, str(w), "25", json.dumps(options)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for w in range(8)
    ]
    failures, landed = [], []
    for w, p in enumerate(processes):
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            failures.append(f"writer {w} exited {p.returncode}: {err[-2000:]}")
        landed += [int(line) for line in out.split()]
    assert failures == []
    expect_each_once(table, {f"p{w}-{i}.parquet" for w in range(8) for i in range(25)},
                     {f"writer-{w}": 24 for w in range(8)}, landed)
