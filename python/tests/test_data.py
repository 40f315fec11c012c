"""append and query: files, a pandas DataFrame, and the rows read back."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest

import deltacommit


def write(path, text):
    path.write_text(text)
    return path


def test_append_files_then_query_gives_their_figures(tables, tmp_path):
    table = tables.new("id:long,region:string,amount:double", ["region"])
    csv = write(tmp_path / "rows.csv", "id,region,amount\n1,eu,9.5\n2,us,3.0\n3,eu,1.25\n")
    jsonl = write(tmp_path / "more.json", '{"id":4,"region":"ap","amount":7}\n')
    first = table.append(csv)
    assert (first.version, first.rows) == (1, 3)
    assert sorted(f["partition_values"]["region"] for f in first.files) == ["eu", "us"]
    assert all(f["stats"]["numRecords"] >= 1 for f in first.files)
    second = table.append([jsonl], partition_by=["region"], app_id="loader", app_version=1)
    assert (second.version, second.rows) == (2, 1)
    result = table.query(
        "SELECT region, count(*) AS n, sum(amount) AS total FROM t GROUP BY region ORDER BY region")
    assert result.columns == ["region", "n", "total"]
    assert result.rows == [("ap", 1, 7.0), ("eu", 2, 10.75), ("us", 1, 3.0)]
    assert table.query("SELECT count(*) AS n FROM t", version=1).rows == [(3,)]


def test_a_dataframe_is_appended_and_read_back_as_one(local_tables):
    pandas = pytest.importorskip("pandas")
    table = local_tables.new("id:long,name:string,price:double,day:date")
    frame = pandas.DataFrame({
        "id": [1, 2, 3],
        "name": ["a", None, "c"],
        "price": [1.5, 2.25, None],
        "day": pandas.to_datetime(["2026-01-02", "2026-02-03", "2026-03-04"]).date,
    })
    result = table.append(frame)
    assert result.rows == 3
    back = table.query("SELECT id, name, price, CAST(day AS VARCHAR) AS day FROM t ORDER BY id")
    assert back.rows == [(1, "a", 1.5, "2026-01-02"), (2, None, 2.25, "2026-02-03"),
                         (3, "c", None, "2026-03-04")]
    df = back.to_pandas()
    assert list(df.columns) == ["id", "name", "price", "day"]
    assert df["id"].tolist() == [1, 2, 3]


def test_a_dataframe_goes_column_by_column_keeping_every_type(local_tables):
    pandas = pytest.importorskip("pandas")
    table = local_tables.new(
        "id:long,small:integer,price:double,ok:boolean,ts:timestamp,day:date,"
        "amount:decimal(12,2),b:binary,name:string"
    )
    frame = pandas.DataFrame({
        "id": pandas.array([1, None, 3], dtype="Int64"),  # nullable integers
        "small": numpy_ints(pandas, [7, 8, 9]),
        "price": [1.5, float("nan"), 3.0],  # NaN is a missing value
        "ok": pandas.array([True, None, False], dtype="boolean"),
        # Time zones are converted to UTC; microseconds kept.
        "ts": pandas.to_datetime(
            ["2024-01-01 10:00:00.123456+01:00", None, "2024-06-01 00:00:00+00:00"], utc=True),
        "day": [datetime.date(2024, 2, 29), None, datetime.date(1969, 12, 31)],
        "amount": [Decimal("12345678.91"), None, Decimal("-0.05")],  # every digit
        "b": [b"\x00\xff", None, b"ab"],
        "name": ["\u00fc", None, "c"],
    })
    assert table.append(frame).rows == 3
    rows = table.query(
        "SELECT id, small, price, ok, CAST(ts AS VARCHAR), CAST(day AS VARCHAR), amount, hex(b), "
        "name FROM t ORDER BY small").rows
    assert rows == [
        (1, 7, 1.5, True, "2024-01-01 09:00:00.123456+00", "2024-02-29", Decimal("12345678.91"),
         "00FF", "\u00fc"),
        (None, 8, None, None, None, None, None, None, None),
        (3, 9, 3.0, False, "2024-06-01 00:00:00+00", "1969-12-31", Decimal("-0.05"), "6162", "c"),
    ]


def test_a_dataframe_with_nested_values_and_a_wrong_one(local_tables):
    pandas = pytest.importorskip("pandas")
    table = local_tables.new('{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,'
                             '"metadata":{}},{"name":"tags","type":{"type":"array","elementType":'
                             '"string","containsNull":true},"nullable":true,"metadata":{}}]}')
    assert table.append(pandas.DataFrame({"id": [1], "tags": [["a", "b"]]})).rows == 1
    assert table.query("SELECT id, tags FROM t").rows == [(1, ["a", "b"])]
    with pytest.raises(deltacommit.InvalidArgumentError, match="has no column \"id\""):
        table.append(pandas.DataFrame({"other": [1]}))
    with pytest.raises(deltacommit.InvalidArgumentError, match="2\\*\\*63 - 1"):
        table.append(pandas.DataFrame({"id": numpy_ints(pandas, [2**64 - 1], "uint64")}))
    assert table.version() == 1


def numpy_ints(pandas, values, dtype="int32"):
    import numpy
    return numpy.array(values, dtype=dtype)


def test_query_rows_keep_duplicate_names_and_nested_values(local_tables, tmp_path):
    table = local_tables.new("id:long")
    table.append(write(tmp_path / "r.json", '{"id":1}\n'))
    result = table.query("SELECT id, id, {'k': [1, 2]} AS s FROM t")
    assert result.columns == ["id", "id", "s"]
    assert result.rows == [(1, 1, {"k": [1, 2]})]
    assert result.to_dicts() == [{"id": 1, "s": {"k": [1, 2]}}]


def test_a_wrong_partition_by_commits_nothing(local_tables, tmp_path):
    table = local_tables.new("id:long,region:string", ["region"])
    rows = write(tmp_path / "r.csv", "id,region\n1,eu\n")
    with pytest.raises(deltacommit.InvalidArgumentError, match="partition_by"):
        table.append(rows, partition_by=["id"])
    assert table.version() == 0


def test_appending_no_rows_commits_nothing(local_tables, tmp_path):
    table = local_tables.new("id:long")
    with pytest.raises(deltacommit.InvalidArgumentError, match="is empty"):
        table.append(write(tmp_path / "empty.json", ""))
    assert table.version() == 0
    with pytest.raises(TypeError, match="append takes"):
        table.append(42)


def test_query_keeps_every_digit_of_a_decimal(local_tables, tmp_path):
    table = local_tables.new("id:long,amount:decimal(38,10),ratio:double")
    table.append(write(tmp_path / "r.csv", "id,amount,ratio\n1,12345678901234567890.1234567890,0.5\n"))
    result = table.query("SELECT amount, ratio, {'d': amount} AS s FROM t")
    assert result.types[0] == "DECIMAL(38,10)"
    assert result.rows == [(Decimal("12345678901234567890.1234567890"), 0.5,
                            {"d": 12345678901234567890.1234567890})]
    assert isinstance(result.rows[0][1], float)


def test_query_writes_its_rows_to_a_file_whole(local_tables, tmp_path):
    table = local_tables.new("id:long,region:string")
    table.append(write(tmp_path / "r.csv", "id,region\n1,eu\n2,us\n3,eu\n"))
    out = tmp_path / "eu.csv"
    result = table.query("SELECT id FROM t WHERE region = 'eu' ORDER BY id", output=out)
    assert result.rows_written == 2 and result.rows == []
    assert out.read_text() == "id\n1\n3\n"
    with pytest.raises(deltacommit.InvalidArgumentError, match="exists already"):
        table.query("SELECT 1 AS x", output=out)
    assert out.read_text() == "id\n1\n3\n"
    replaced = table.query("SELECT 1 AS x", output=out, overwrite=True)
    assert replaced.rows_written == 1 and out.read_text() == "x\n1\n"
    parquet = tmp_path / "all.data"
    assert table.query("SELECT * FROM t", output=parquet, format="parquet").rows_written == 3
    back = table.query(f"SELECT count(*) AS n FROM read_parquet('{parquet}')")
    assert back.rows == [(3,)]
    copied = table.query(f"COPY (SELECT * FROM t) TO '{tmp_path / 'c.json'}' (FORMAT json)")
    assert copied.rows == [(3,)]
    assert len((tmp_path / "c.json").read_text().splitlines()) == 3


def test_delete_marks_rows_with_deletion_vectors_then_removes_whole_files(tables, tmp_path):
    table = tables.new(
        "id:long,region:string",
        ["region"],
        properties={"delta.enableDeletionVectors": "true", "delta.columnMapping.mode": "name"},
    )
    table.append(write(tmp_path / "rows.csv", "id,region\n1,eu\n2,eu\n3,eu\n4,us\n5,us\n"))
    marked = table.delete("id % 2 = 0")
    assert (marked.version, marked.rows_deleted) == (2, 2)
    assert (marked.files_read, marked.files_with_deletion_vectors, marked.files_rewritten) == (2, 2, 0)
    files = table.update().files()
    assert all(f["deletion_vector"]["storageType"] == "u" for f in files)
    # A predicate on the partition column alone reads no data file.
    whole = table.delete("region = 'us'")
    assert (whole.rows_deleted, whole.files_read, whole.files_removed) == (1, 0, 1)
    nothing = table.delete("id > 100")
    assert (nothing.version, nothing.rows_deleted) == (None, 0)
    assert table.query("SELECT id FROM t ORDER BY id").rows == [(1,), (3,)]
    assert [e["operation"] for e in table.history(2)] == ["DELETE", "DELETE"]


def test_delete_rewrites_files_without_deletion_vectors(local_tables, tmp_path):
    table = local_tables.new("id:long,name:string")
    table.append(write(tmp_path / "rows.csv", "id,name\n1,a\n2,b\n3,c\n"))
    result = table.delete("name <> 'b'")
    assert (result.rows_deleted, result.files_rewritten) == (2, 1)
    assert table.query("SELECT id, name FROM t").rows == [(2, "b")]
    with pytest.raises(deltacommit.InvalidArgumentError, match="not found"):
        table.delete("nope = 1")
    with pytest.raises(deltacommit.InvalidArgumentError, match="no condition"):
        table.delete("  ")
