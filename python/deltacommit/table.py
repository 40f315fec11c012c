"""Tables: open, read, commit, append, checkpoint, query, check."""

from __future__ import annotations

import decimal
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _deltacommit
from .errors import ConflictError, InvalidArgumentError

__all__ = [
    "Table",
    "Snapshot",
    "Protocol",
    "Metadata",
    "CommitResult",
    "AppendResult",
    "DeleteResult",
    "CheckpointInfo",
    "CheckReport",
    "QueryResult",
    "create",
]

PathLike = Union[str, "os.PathLike[str]"]
# One Delta action as its JSON object, e.g. {"add": {"path": ..., ...}}.
ActionDict = Mapping[str, Any]
# A disjunction of conjunctions: each dict maps a partition column to the
# value (or the values) it must have; None is a null partition value.
ReadPredicate = Mapping[str, Union[Optional[str], Sequence[Optional[str]]]]

_COMMIT_MODES = ("local", "s3-conditional", "s3-dynamodb", "service", "coordinated", "unity-catalog")


@dataclass(frozen=True)
class Protocol:
    """The table's protocol action, in delta-rs's words."""

    min_reader_version: int
    min_writer_version: int
    reader_features: Optional[List[str]]
    writer_features: Optional[List[str]]
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Metadata:
    """The table's metaData action, in delta-rs's words."""

    id: str
    name: Optional[str]
    description: Optional[str]
    partition_columns: List[str]
    created_time: Optional[int]
    configuration: Dict[str, str]
    schema_string: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class CommitResult:
    """What a commit did.

    ``version`` is the version written, or for ``already_committed`` the
    version at which the table was seen to hold this ``app_id`` /
    ``app_version`` already (it landed at or before it). ``attempts`` counts
    the writes tried and ``rebases`` the concurrent commits rebased over;
    ``assigned`` says the commit service chose the version for a blind
    append, sharing it with ``merged - 1`` other appends.
    """

    version: int
    attempts: int
    rebases: int
    already_committed: bool = False
    assigned: bool = False
    merged: int = 0


@dataclass(frozen=True)
class AppendResult(CommitResult):
    """A committed append: the rows written and the data files added."""

    rows: int = 0
    files: List[Dict[str, Any]] = field(default_factory=list, repr=False)


@dataclass(frozen=True)
class DeleteResult:
    """What ``Table.delete`` did. ``version`` is ``None`` when no row
    matched (nothing was committed). ``files_read`` counts the data files
    fetched to match rows: none for a predicate on partition columns
    alone. A file whose every row matched is in ``files_removed``; others
    got a deletion vector (``files_with_deletion_vectors``) or were
    rewritten (``files_rewritten``). ``change_data_files`` counts the change
    data files written (tables with ``delta.enableChangeDataFeed``)."""

    version: Optional[int]
    rows_deleted: int
    files_read: int
    files_removed: int
    files_with_deletion_vectors: int
    files_rewritten: int
    change_data_files: int = 0
    attempts: int = 0
    rebases: int = 0
    already_committed: bool = False
    assigned: bool = False
    merged: int = 0


@dataclass(frozen=True)
class CheckpointInfo:
    """A checkpoint written: its version, rows (actions), bytes, parts."""

    version: int
    size: int
    size_in_bytes: int
    num_of_add_files: int
    parts: int
    key: str


@dataclass(frozen=True)
class CheckReport:
    """What ``Table.check()`` found. ``sound`` when ``problems`` is empty."""

    first_version: int
    latest_version: int
    commits_checked: int
    unrecognized_files: int
    problems: List[str]
    snapshot: Optional["Snapshot"] = field(repr=False, default=None)

    @property
    def sound(self) -> bool:
        return not self.problems


class QueryResult:
    """Rows of ``Table.query``: ``columns``, their DuckDB ``types``
    (``"BIGINT"``, ``"DECIMAL(38,10)"``, ...) and ``rows`` (tuples, values as
    JSON gives them: int, float, str, bool, None, lists and dicts; a
    ``DECIMAL`` column's values as :class:`decimal.Decimal`, every digit
    kept). With ``output=``, ``rows`` is empty and ``rows_written`` says how
    many rows went to the file."""

    def __init__(
        self,
        columns: List[str],
        types: List[str],
        rows: List[Tuple[Any, ...]],
        rows_written: Optional[int] = None,
    ):
        self.columns = columns
        self.types = types
        self.rows = rows
        self.rows_written = rows_written

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"QueryResult(columns={self.columns!r}, rows={len(self.rows)})"

    def to_dicts(self) -> List[Dict[str, Any]]:
        """Each row as a dict keyed by column name."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (needs pandas)."""
        import pandas  # only when asked: pandas is optional

        return pandas.DataFrame.from_records(self.rows, columns=self.columns)


class Snapshot:
    """One version of a table: immutable, safe to share between threads."""

    def __init__(self, native: Any):
        self._native = native

    def __repr__(self) -> str:
        return f"Snapshot(version={self.version}, files={self._native.num_files})"

    @property
    def version(self) -> int:
        return self._native.version

    @property
    def protocol(self) -> Protocol:
        raw = json.loads(self._native.protocol_json())
        return Protocol(
            raw["minReaderVersion"],
            raw["minWriterVersion"],
            raw.get("readerFeatures"),
            raw.get("writerFeatures"),
            raw,
        )

    @property
    def metadata(self) -> Metadata:
        raw = json.loads(self._native.metadata_json())
        return Metadata(
            raw["id"],
            raw.get("name"),
            raw.get("description"),
            list(raw.get("partitionColumns", [])),
            raw.get("createdTime"),
            dict(raw.get("configuration", {})),
            raw["schemaString"],
            raw,
        )

    @property
    def schema(self) -> Dict[str, Any]:
        """Delta's schema JSON: {"type": "struct", "fields": [...]}."""
        return json.loads(self.metadata.schema_string)

    @property
    def num_files(self) -> int:
        return self._native.num_files

    @property
    def size_in_bytes(self) -> int:
        return self._native.size_in_bytes

    def files(self) -> List[Dict[str, Any]]:
        """The active files: path (URI-encoded, relative to the table),
        size, partition_values, modification_time, data_change, stats (a
        dict, or None), deletion_vector (the descriptor, or None), tags."""
        return [_file_dict(json.loads(text)) for text in self._native.files_json()]

    def txn_version(self, app_id: str) -> Optional[int]:
        """The latest ``app_version`` committed with ``app_id``, or None."""
        return self._native.txn_version(app_id)

    @property
    def app_versions(self) -> Dict[str, int]:
        return dict(self._native.app_versions)


def _file_dict(add: Dict[str, Any]) -> Dict[str, Any]:
    stats = add.get("stats")
    return {
        "path": add["path"],
        "size": add["size"],
        "partition_values": add.get("partitionValues", {}),
        "modification_time": add.get("modificationTime"),
        "data_change": add.get("dataChange"),
        "stats": json.loads(stats) if stats else None,
        "deletion_vector": add.get("deletionVector"),
        "tags": add.get("tags"),
    }


def _options(
    mode: Optional[str],
    storage_options: Optional[Mapping[str, str]],
    service_url: Optional[str],
    service_token: Optional[str],
    catalog_url: Optional[str],
    catalog_token: Optional[str],
    extra: Mapping[str, Any],
) -> Any:
    options = _deltacommit._TableOptions()
    options.mode = mode
    if storage_options is not None:
        bad = [k for k, v in storage_options.items() if not isinstance(k, str) or not isinstance(v, str)]
        if bad:
            raise InvalidArgumentError(
                f"storage_options: keys and values must be strings ({bad[0]!r})", "InvalidArgument"
            )
        options.storage_options = dict(storage_options)
    options.service_url = service_url or ""
    options.service_token = service_token or ""
    options.catalog_url = catalog_url or ""
    options.catalog_token = catalog_token or ""
    for key, value in extra.items():
        if key in ("connect_timeout", "request_timeout"):
            setattr(options, key + "_ms", int(float(value) * 1000))
        elif key in (
            "endpoint_url",
            "region",
            "profile",
            "service_endpoint",
            "create_dynamodb_table",
            "catalog_send_credentials",
            "auto_checkpoint",
        ):
            setattr(options, key, value)
        else:
            raise TypeError(f"unknown option {key!r}")
    return options


def _predicates(read_predicates: Optional[Iterable[ReadPredicate]]) -> List[Dict[str, List[Optional[str]]]]:
    out = []
    for conjunction in read_predicates or []:
        out.append(
            {
                column: [values] if values is None or isinstance(values, str) else list(values)
                for column, values in conjunction.items()
            }
        )
    return out


def _result(outcome: Dict[str, Any], cls: type = CommitResult, **extra: Any) -> Any:
    if outcome["result"] == "conflict":
        raise ConflictError(
            outcome["conflict_message"],
            outcome["conflict_type"],
            outcome["winning_version"],
            outcome["conflict_detail"],
        )
    return cls(
        version=outcome["version"],
        attempts=outcome["attempts"],
        rebases=outcome["rebases"],
        already_committed=outcome["result"] == "already_committed",
        assigned=outcome["assigned"],
        merged=outcome["merged"],
        **extra,
    )


class Table:
    """A Delta table, opened by URI: a local path or file://, s3:// (s3a://,
    s3n://), or uc://catalog.schema.table for a catalog-managed table.

    ``mode`` is the commit mode: ``local``, ``s3-conditional``,
    ``s3-dynamodb``, ``service``, ``coordinated`` or ``unity-catalog``
    (unset: ``local`` for local tables; for s3:// what ``storage_options``
    ask, as in delta-rs: ``AWS_S3_LOCKING_PROVIDER=dynamodb`` is
    ``s3-dynamodb``, else ``s3-conditional``). ``storage_options`` takes
    delta-rs's names (``AWS_ENDPOINT_URL``, ``AWS_REGION``,
    ``AWS_S3_LOCKING_PROVIDER``, ``DELTA_DYNAMO_TABLE_NAME``,
    ``AWS_ALLOW_HTTP``, ...) and Delta Spark's DynamoDB keys.

    Other keyword options: ``endpoint_url``, ``region``, ``profile``,
    ``service_endpoint``, ``create_dynamodb_table``,
    ``catalog_send_credentials``, ``auto_checkpoint`` (default True),
    ``connect_timeout`` and ``request_timeout`` (seconds).

    Opening reads nothing from the table; the first read does. A Table keeps
    the latest snapshot it read and brings it up to date incrementally, so a
    long-lived writer never reads a commit twice. It may be shared by
    threads: every call releases the GIL while it waits on a store.
    """

    def __init__(
        self,
        uri: PathLike,
        *,
        mode: Optional[str] = None,
        storage_options: Optional[Mapping[str, str]] = None,
        service_url: Optional[str] = None,
        service_token: Optional[str] = None,
        catalog_url: Optional[str] = None,
        catalog_token: Optional[str] = None,
        **options: Any,
    ):
        native_options = _options(
            mode, storage_options, service_url, service_token, catalog_url, catalog_token, options
        )
        self._native = _deltacommit.open_table(os.fspath(uri), native_options)

    @classmethod
    def open(cls, uri: PathLike, **options: Any) -> "Table":
        """The same as ``Table(uri, **options)``."""
        return cls(uri, **options)

    def __repr__(self) -> str:
        return f"Table({self.uri!r}, mode={self.mode!r})"

    @property
    def uri(self) -> str:
        """An absolute path for a local table, else s3://bucket/prefix."""
        return self._native.uri

    @property
    def mode(self) -> str:
        """The commit mode the table was opened with."""
        return self._native.mode

    # -- reading -----------------------------------------------------------

    def version(self) -> int:
        """The latest version (brings the held snapshot up to date)."""
        return self.update().version

    def update(self) -> Snapshot:
        """Reads the commits after the held version and returns the latest
        snapshot (delta-rs: ``update_incremental``)."""
        return Snapshot(self._native.update())

    def snapshot(self, version: Optional[int] = None) -> Snapshot:
        """The latest snapshot, or the one at ``version`` (time travel)."""
        return Snapshot(self._native.snapshot(version))

    def history(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The commits, newest first: each commitInfo as a dict with its
        ``version`` (as delta-rs's ``history``), at most ``limit``."""
        if limit is not None and limit < 1:
            raise InvalidArgumentError(f"limit {limit} must be at least 1", "InvalidArgument")
        out = []
        for entry in self._native.history(limit or 0):
            info = json.loads(entry["commit_info_json"]) if entry["commit_info_json"] else {}
            info["version"] = entry["version"]
            out.append(info)
        return out

    def check(self) -> CheckReport:
        """Validates the log: contiguous versions, every commit readable,
        the protocol supported. Defects are ``problems`` in the report."""
        r = self._native.check()
        snapshot = Snapshot(r["snapshot"]) if r["snapshot"] is not None else None
        return CheckReport(
            r["first_version"],
            r["latest_version"],
            r["commits_checked"],
            r["unrecognized_files"],
            list(r["problems"]),
            snapshot,
        )

    def query(
        self,
        sql: str,
        *,
        version: Optional[int] = None,
        output: Optional[PathLike] = None,
        format: Optional[str] = None,
        overwrite: bool = False,
    ) -> QueryResult:
        """Runs ``sql`` (DuckDB's dialect) over the active files, seen as a
        view named ``t``. ``.to_pandas()`` on the result gives a DataFrame.

        Several statements (``;``) run in order and the last one answers; a
        statement that is not a query (``COPY ... TO``, ``EXPLAIN``, ``SET``)
        runs as written. With ``output`` the rows go to that local file
        (``format`` ``"parquet"``, ``"csv"`` or ``"json"`` lines; default: from
        its extension), whole or not at all; an existing file is kept unless
        ``overwrite``."""
        columns, types, rows, written = self._native.query(
            sql,
            version,
            True,
            None if output is None else os.fspath(output),
            format or "",
            overwrite,
        )
        types = list(types)
        return QueryResult(
            list(columns), types, [_row_values(cells[0], types) for cells in rows], written
        )

    # -- writing -----------------------------------------------------------

    def commit(
        self,
        actions: Union[str, Iterable[ActionDict]],
        *,
        operation: str = "WRITE",
        isolation: str = "WriteSerializable",
        app_id: Optional[str] = None,
        app_version: Optional[int] = None,
        read_predicates: Optional[Iterable[ReadPredicate]] = None,
        read_whole_table: bool = False,
        read_version: Optional[int] = None,
        max_attempts: Optional[int] = None,
    ) -> CommitResult:
        """Commits ``actions`` as one transaction; commitInfo is written for you.

        ``actions`` are Delta actions as dicts (``{"add": {...}}``,
        ``{"remove": {...}}``, ``{"txn": ...}``, ``{"metaData": ...}``, ...)
        or their JSON lines. A concurrent commit is rebased over when Delta's
        rules allow, else :class:`~deltacommit.errors.ConflictError` is
        raised. ``read_predicates`` (partition values, e.g.
        ``[{"region": "eu"}]``) and ``read_whole_table`` say what the actions
        depend on; removed files always count as read. With ``app_id`` and
        ``app_version`` a retry is recognised (``already_committed``).
        """
        if isinstance(actions, str):
            text = actions
        else:
            text = "".join(json.dumps(a, separators=(",", ":")) + "\n" for a in actions)
        outcome = self._native.commit(
            text,
            operation,
            isolation,
            app_id,
            app_version,
            _predicates(read_predicates),
            read_whole_table,
            max_attempts,
            read_version,
        )
        return _result(outcome)

    def append(
        self,
        data: Union[PathLike, Sequence[PathLike], Any],
        *,
        partition_by: Optional[Sequence[str]] = None,
        format: Optional[str] = None,
        app_id: Optional[str] = None,
        app_version: Optional[int] = None,
        max_attempts: Optional[int] = None,
        memory_limit: str = "1GB",
    ) -> AppendResult:
        """Appends rows: CSV, JSON-lines or Parquet files (a path or a list),
        or a pandas DataFrame. They are converted to Parquet data files that
        match the table's schema (partitioned as the table is, with
        statistics) and committed as one blind append. ``partition_by``, if
        given, must be the table's partition columns. Data files of an append
        that did not commit are removed. A DataFrame is handed over column by
        column (NumPy buffers, or each value's text), without pyarrow."""
        if partition_by is not None:
            table_columns = self.update().metadata.partition_columns
            if list(partition_by) != table_columns:
                raise InvalidArgumentError(
                    f"partition_by {list(partition_by)} differs from the table's partition "
                    f"columns {table_columns}",
                    "InvalidArgument",
                )
        with tempfile.TemporaryDirectory(prefix="deltacommit-append-") as staging:
            inputs, columns = _append_inputs(data, format, staging)
            outcome = self._native.append(
                inputs, columns, app_id, app_version, max_attempts, memory_limit
            )
        files = [_file_dict(json.loads(text)) for text in outcome["adds_json"]]
        return _result(outcome, AppendResult, rows=outcome["rows"], files=files)

    def delete(
        self,
        predicate: str,
        *,
        app_id: Optional[str] = None,
        app_version: Optional[int] = None,
        max_attempts: Optional[int] = None,
        memory_limit: str = "1GB",
    ) -> DeleteResult:
        """Deletes the rows for which ``predicate`` (an SQL condition in
        DuckDB's dialect over the table's columns, as after ``WHERE``;
        ``"true"`` for every row) holds, as one commit: with deletion
        vectors where the table enables them (``delta.enableDeletionVectors``),
        by rewriting the files otherwise. A concurrent commit that changed
        data it read raises :class:`ConflictError` and nothing is deleted."""
        d = self._native.delete(predicate, app_id, app_version, max_attempts, memory_limit)
        counts = {
            k: d[k]
            for k in (
                "rows_deleted",
                "files_read",
                "files_removed",
                "files_with_deletion_vectors",
                "files_rewritten",
                "change_data_files",
            )
        }
        if d["result"] == "nothing_matched":
            return DeleteResult(version=None, **counts)
        return _result(d, DeleteResult, **counts)

    def checkpoint(self, version: Optional[int] = None) -> CheckpointInfo:
        """Writes a checkpoint of the latest version (or ``version``), then
        ``_last_checkpoint``."""
        i = self._native.checkpoint(version)
        return CheckpointInfo(
            i["version"], i["size"], i["size_in_bytes"], i["num_of_add_files"], i["parts"], i["key"]
        )


def _append_inputs(
    data: Any, format: Optional[str], staging: str
) -> Tuple[List[Tuple[str, str]], Optional[List[Tuple[str, str, Any, Any]]]]:
    """The files to append, and a DataFrame's columns (or None)."""
    if isinstance(data, (str, os.PathLike)):
        return [(os.fspath(data), format or "")], None
    if _is_dataframe(data):
        columns = _frame_columns(data)
        if columns is not None:
            return [], columns
        # Nested values (dicts, lists) go as JSON lines (ISO dates, nulls
        # kept) in a private directory; the schema's types apply on conversion.
        # JSON keeps 15 significant digits of a float (pandas' most).
        path = os.path.join(staging, "dataframe.json")
        data.to_json(path, orient="records", lines=True, date_format="iso", date_unit="us",
                     double_precision=15)
        return [(path, "json")], None
    if isinstance(data, Sequence) and not isinstance(data, (bytes, bytearray)):
        paths = list(data)
        if not paths:
            raise InvalidArgumentError("append: no files given", "InvalidArgument")
        for p in paths:
            if not isinstance(p, (str, os.PathLike)):
                raise TypeError(f"append: {p!r} is not a path")
        return [(os.fspath(p), format or "") for p in paths], None
    raise TypeError(
        f"append takes a path, a list of paths or a pandas DataFrame, not {type(data).__name__}"
    )


def _cell_text(value: Any) -> str:
    """An object column's value as text its column's type casts from."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return "".join(f"\\x{b:02x}" for b in value)  # DuckDB's BLOB escapes
    if hasattr(value, "isoformat"):  # date, datetime, time, pandas Timestamp
        return value.isoformat()
    return str(value)  # Decimal keeps every digit; bool, int, float


def _frame_columns(frame: Any) -> Optional[List[Tuple[str, str, Any, Any]]]:
    """A DataFrame's columns as the native side takes them: NumPy arrays of
    int64, float64, bool or int64 microseconds (UTC) with a null mask, or the
    text of each value; None when a column holds nested values (dicts,
    lists), which go as JSON instead."""
    import numpy
    import pandas.api.types as types

    columns: List[Tuple[str, str, Any, Any]] = []
    for name in frame.columns:
        if not isinstance(name, str):
            raise InvalidArgumentError(
                f"DataFrame column {name!r}: column names must be strings", "InvalidArgument"
            )
        series = frame[name]
        nulls = series.isna().to_numpy(dtype=bool)
        dtype = series.dtype
        if types.is_bool_dtype(dtype):
            values = series.fillna(False).to_numpy(dtype=bool)
            columns.append((name, "bool", values, nulls))
        elif types.is_integer_dtype(dtype):
            if types.is_unsigned_integer_dtype(dtype) and len(series) and series.max() > 2**63 - 1:
                raise InvalidArgumentError(
                    f"DataFrame column {name!r}: a value above 2**63 - 1 fits no Delta integer",
                    "InvalidArgument",
                )
            values = series.fillna(0).to_numpy(dtype=numpy.int64)
            columns.append((name, "int64", values, nulls))
        elif types.is_float_dtype(dtype):
            values = series.to_numpy(dtype=numpy.float64, na_value=numpy.nan)
            columns.append((name, "float64", values, nulls))
        elif types.is_datetime64_any_dtype(dtype):
            if getattr(dtype, "tz", None) is not None:
                series = series.dt.tz_convert("UTC").dt.tz_localize(None)
            micros = series.to_numpy(dtype="datetime64[us]").astype(numpy.int64)
            columns.append((name, "timestamp_us", micros, nulls))
        else:
            cells = series.tolist()
            if any(isinstance(v, (dict, list, tuple)) for v in cells):
                return None
            text = [None if null else _cell_text(v) for v, null in zip(cells, nulls)]
            columns.append((name, "string", text, None))
    return columns


def _is_dataframe(data: Any) -> bool:
    t = type(data)
    return t.__name__ == "DataFrame" and t.__module__.split(".")[0] == "pandas"


class _Pairs(list):
    """A JSON object as its (key, value) pairs, in order, duplicates kept."""


def _plain(value: Any) -> Any:
    if isinstance(value, _Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _floats(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, _Pairs):
        return _Pairs((k, _floats(v)) for k, v in value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


def _row_values(text: Optional[str], types: Sequence[str]) -> Tuple[Any, ...]:
    # Pairs, not a dict: a query may name two columns alike. Numbers with a
    # fraction are read as Decimal, every digit kept, and stay so in DECIMAL
    # columns; elsewhere they become floats.
    pairs = json.loads(text or "{}", object_pairs_hook=_Pairs, parse_float=decimal.Decimal)
    values = []
    for i, (_, v) in enumerate(pairs):
        exact = i < len(types) and types[i].startswith("DECIMAL")
        values.append(_plain(v if exact else _floats(v)))
    return tuple(values)


def create(
    uri: PathLike,
    schema: Union[str, Mapping[str, Any]],
    partition_by: Optional[Sequence[str]] = None,
    properties: Optional[Mapping[str, str]] = None,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    **options: Any,
) -> Table:
    """Creates a table (writes version 0) and returns it opened.

    ``schema`` is Delta's schema JSON (a dict or its text) or the compact
    ``"id:long not null,region:string,amount:decimal(10,2)"``;
    ``properties`` are table properties (``delta.checkpointInterval``,
    ``delta.feature.X=supported``, ...). ``options`` are those of
    :class:`Table`. Raises AlreadyExistsError when the table has a log.
    """
    table = Table(uri, **options)
    spec = _deltacommit._NewTable()
    spec.schema = schema if isinstance(schema, str) else json.dumps(schema)
    spec.partition_columns = list(partition_by or [])
    spec.configuration = dict(properties or {})
    spec.name = name
    spec.description = description
    _result(table._native.create(spec))
    return table
