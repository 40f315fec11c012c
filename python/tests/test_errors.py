"""Bad input: each raises the class of its cause, with the CLI's message, and
leaves the table as it was."""

from __future__ import annotations

import os
import subprocess

import pytest

import deltacommit
from conftest import cli_path


def cli_error(*args: str) -> str:
    """What the CLI prints after "error: " for the same call."""
    done = subprocess.run([cli_path(), *args], capture_output=True, text=True)
    assert done.returncode != 0
    line = [l for l in done.stderr.splitlines() if l.startswith("error: ")][0]
    return line[len("error: "):]


def test_a_missing_table_is_not_found_with_the_clis_message(local_root):
    missing = str(local_root / "no-such-table")
    with pytest.raises(deltacommit.NotFoundError) as raised:
        deltacommit.Table(missing).version()
    assert str(raised.value) == cli_error("snapshot", missing)
    assert raised.value.code == "NotFound"
    assert isinstance(raised.value, LookupError)


@pytest.mark.parametrize("actions, says", [
    ("{not json", "actions"),
    ('{"frobnicate":{}}', "frobnicate"),
    ('{"add":{"path":"../escape.parquet","partitionValues":{},"size":1,'
     '"modificationTime":1,"dataChange":true}}', "escape.parquet"),
    ('{"add":{"path":"%2E%2E/escape.parquet","partitionValues":{},"size":1,'
     '"modificationTime":1,"dataChange":true}}', "escape.parquet"),
    ('{"add":{"path":"/abs.parquet","partitionValues":{},"size":1,'
     '"modificationTime":1,"dataChange":true}}', "abs.parquet"),
])
def test_bad_actions_are_invalid_arguments_and_commit_nothing(local_tables, actions, says):
    table = local_tables.new()
    with pytest.raises(deltacommit.InvalidArgumentError, match=None) as raised:
        table.commit(actions)
    assert says in str(raised.value)
    assert isinstance(raised.value, ValueError)
    assert table.version() == 0
    # The CLI refuses the same actions with the same words (naming its
    # flag, `--actions -`, where Python names the argument).
    done = subprocess.run([cli_path(), "commit", table.uri, "--actions", "-"], input=actions + "\n",
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert raised.value.message.removeprefix("actions: ") in done.stderr


def test_unknown_options_are_named(local_root):
    with pytest.raises(deltacommit.InvalidArgumentError, match="not a commit mode"):
        deltacommit.Table(str(local_root / "x"), mode="s4-magic")
    with pytest.raises(deltacommit.InvalidArgumentError, match="deltacommit.nope"):
        deltacommit.Table("s3://bucket/x", storage_options={"deltacommit.nope": "1"})
    with pytest.raises(deltacommit.InvalidArgumentError, match="only for s3://"):
        deltacommit.Table(str(local_root / "x"), storage_options={"AWS_REGION": "eu-west-1"})
    with pytest.raises(TypeError, match="frobnicate"):
        deltacommit.Table(str(local_root / "x"), frobnicate=True)


def test_bad_commit_arguments_are_named(local_tables, add):
    table = local_tables.new()
    with pytest.raises(deltacommit.InvalidArgumentError, match="isolation"):
        table.commit([add("a.parquet")], isolation="Whatever")
    with pytest.raises(deltacommit.InvalidArgumentError, match="app_id and app_version"):
        table.commit([add("a.parquet")], app_id="job")
    with pytest.raises(deltacommit.InvalidArgumentError, match="max_attempts"):
        table.commit([add("a.parquet")], max_attempts=0)
    with pytest.raises(deltacommit.InvalidArgumentError, match="read predicate"):
        table.commit([add("a.parquet")], read_predicates=[{"not_a_column": "x"}])
    assert table.version() == 0


def test_creating_twice_is_already_exists(local_tables):
    table = local_tables.new()
    with pytest.raises(deltacommit.AlreadyExistsError):
        deltacommit.create(table.uri, "id:long")
    with pytest.raises(deltacommit.InvalidArgumentError, match="unknown type"):
        deltacommit.create(table.uri + "-2", "id:money")


def test_a_time_travel_past_the_log_is_named(local_tables):
    table = local_tables.new()
    with pytest.raises(deltacommit.Error) as raised:
        table.snapshot(5)
    assert "5" in str(raised.value)


def test_a_wrong_secret_is_a_credentials_error_naming_its_source(local_root):
    from conftest import new_uri, require

    require("AWS_ENDPOINT_URL_S3", "DELTACOMMIT_TEST_BUCKET", "AWS_ACCESS_KEY_ID")
    uri = new_uri("s3-conditional", local_root)
    wrong = {"AWS_ACCESS_KEY_ID": os.environ["AWS_ACCESS_KEY_ID"],
             "AWS_SECRET_ACCESS_KEY": "not-the-secret-0123456789"}
    with pytest.raises(deltacommit.CredentialsError) as raised:
        deltacommit.create(uri, "id:long", storage_options=wrong)
    assert "storage options" in str(raised.value)
    assert "not-the-secret" not in str(raised.value)
    with pytest.raises(deltacommit.NotFoundError):
        deltacommit.Table(uri).version()  # nothing was written


def test_credentials_and_endpoint_as_delta_rs_storage_options(local_root, monkeypatch):
    from conftest import new_uri, require

    require("AWS_ENDPOINT_URL_S3", "DELTACOMMIT_TEST_BUCKET", "AWS_SECRET_ACCESS_KEY")
    uri = new_uri("s3-conditional", local_root)
    given = {"AWS_ACCESS_KEY_ID": os.environ["AWS_ACCESS_KEY_ID"],
             "AWS_SECRET_ACCESS_KEY": os.environ["AWS_SECRET_ACCESS_KEY"],
             "AWS_ENDPOINT_URL": os.environ["AWS_ENDPOINT_URL_S3"],
             "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL_S3",
                 "AWS_ALLOW_HTTP", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    table = deltacommit.create(uri, "id:long", storage_options=given)
    assert table.commit([{"add": {"path": "a.parquet", "partitionValues": {}, "size": 1,
                                  "modificationTime": 1, "dataChange": True}}]).version == 1
    with pytest.raises(deltacommit.InvalidArgumentError, match="aws_secret_access_key is missing"):
        deltacommit.Table(uri, storage_options={"AWS_ACCESS_KEY_ID": "x"})


def test_expired_credentials_are_a_credentials_error_saying_so(local_root, monkeypatch):
    from conftest import new_uri, require

    require("AWS_ENDPOINT_URL_S3", "DELTACOMMIT_TEST_BUCKET", "AWS_ACCESS_KEY_ID")
    uri = new_uri("s3-conditional", local_root)
    monkeypatch.setenv("AWS_CREDENTIAL_EXPIRATION", "2020-01-01T00:00:00Z")
    with pytest.raises(deltacommit.UnauthenticatedError) as raised:
        deltacommit.create(uri, "id:long")
    assert isinstance(raised.value, deltacommit.CredentialsError)
    assert "expired at 2020-01-01T00:00:00Z" in str(raised.value)
    assert "refresh them" in str(raised.value)
    monkeypatch.delenv("AWS_CREDENTIAL_EXPIRATION")
    with pytest.raises(deltacommit.NotFoundError):
        deltacommit.Table(uri).version()  # nothing was written
