"""The Table API in every commit mode: create, read, commit, retry, conflict,
history, check, checkpoint."""

from __future__ import annotations

import pytest

import deltacommit
from deltacommit import errors


def test_create_then_read_the_snapshot(tables):
    table = tables.new("id:long not null,region:string", ["region"],
                       properties={"delta.appendOnly": "false"}, name="events")
    assert table.mode == tables.mode
    assert table.version() == 0
    snapshot = table.snapshot()
    assert snapshot.version == 0
    assert snapshot.num_files == 0
    assert snapshot.metadata.partition_columns == ["region"]
    assert snapshot.metadata.name == "events"
    # (coordinated tables also name their coordinator here)
    assert snapshot.metadata.configuration["delta.appendOnly"] == "false"
    assert [f["name"] for f in snapshot.schema["fields"]] == ["id", "region"]
    assert snapshot.schema["fields"][0]["nullable"] is False
    assert snapshot.protocol.min_reader_version >= 1
    assert snapshot.protocol.min_writer_version >= 2


def test_commits_are_read_back_with_their_files_and_txn(tables, add):
    table = tables.new()
    first = table.commit([add("a.parquet", 11)], app_id="job", app_version=1)
    assert (first.version, first.already_committed) == (1, False)
    assert first.attempts >= 1
    second = table.commit([add("b.parquet", 22)], operation="WRITE", app_id="job", app_version=2)
    assert second.version == 2
    files = {f["path"]: f for f in table.snapshot().files()}
    assert set(files) == {"a.parquet", "b.parquet"}
    assert files["b.parquet"]["size"] == 22
    assert files["a.parquet"]["partition_values"] == {}
    assert files["a.parquet"]["deletion_vector"] is None
    assert table.snapshot().txn_version("job") == 2
    assert table.snapshot().txn_version("other") is None
    # Another handle reads the same table.
    other = tables.open(table.uri)
    assert other.version() == 2
    assert other.snapshot(1).num_files == 1


def test_a_retry_with_the_same_app_version_is_recognised(tables, add):
    table = tables.new()
    table.commit([add("a.parquet")], app_id="loader", app_version=7)
    again = table.commit([add("a-again.parquet")], app_id="loader", app_version=7)
    assert again.already_committed
    assert again.version == 1
    assert table.version() == 1
    assert [f["path"] for f in table.snapshot().files()] == ["a.parquet"]


def test_removing_a_file_another_writer_removed_is_a_conflict(tables, add):
    table = tables.new()
    table.commit([add("a.parquet")])
    remove = {"remove": {"path": "a.parquet", "deletionTimestamp": 1, "dataChange": True}}
    winner = tables.open(table.uri).commit([remove], operation="DELETE")
    with pytest.raises(deltacommit.ConflictError) as raised:
        table.commit([remove], operation="DELETE", read_version=1)
    assert raised.value.conflict_type == "ConcurrentDeleteRead"  # removing it read it
    assert raised.value.winning_version == winner.version
    assert isinstance(raised.value, deltacommit.Error)
    assert table.version() == winner.version


def test_a_read_partition_changed_by_another_writer_is_a_conflict(tables, add):
    table = tables.new("id:long,region:string", ["region"])
    tables.open(table.uri).commit([add("region=eu/x.parquet", partition_values={"region": "eu"})])
    with pytest.raises(deltacommit.ConflictError) as raised:
        table.commit([add("region=eu/y.parquet", partition_values={"region": "eu"})],
                     read_version=0, read_predicates=[{"region": "eu"}], isolation="Serializable")
    assert raised.value.conflict_type == "ConcurrentAppend"
    # A read of another partition is rebased over the same commit.
    ok = table.commit([add("region=us/z.parquet", partition_values={"region": "us"})],
                      read_version=0, read_predicates=[{"region": ["us", None]}],
                      isolation="Serializable")
    assert ok.version == 2 and ok.rebases == 1


def test_history_check_and_checkpoint(tables, add):
    table = tables.new()
    for i in range(3):
        table.commit([add(f"f{i}.parquet")], operation="WRITE")
    history = table.history()
    assert [h["version"] for h in history] == [3, 2, 1, 0]
    assert history[0]["operation"] == "WRITE"
    assert [h["version"] for h in table.history(limit=2)] == [3, 2]
    report = table.check()
    assert report.sound, report.problems
    assert (report.first_version, report.latest_version) == (0, 3)
    assert report.snapshot is not None and report.snapshot.num_files == 3
    info = table.checkpoint()
    assert info.version == 3
    assert info.num_of_add_files == 3
    assert tables.open(table.uri).snapshot().num_files == 3


def test_the_cli_reads_what_python_wrote(local_tables, add):
    import subprocess

    from conftest import cli_path

    table = local_tables.new()
    table.commit([add("a.parquet")])
    out = subprocess.run([cli_path(), "snapshot", table.uri, "--json"], check=True,
                         capture_output=True, text=True).stdout
    assert '"version":1' in out
