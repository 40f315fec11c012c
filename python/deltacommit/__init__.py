"""deltacommit: safe concurrent commits to Delta Lake tables, from Python.

    import deltacommit
    table = deltacommit.create("/tmp/events", "id:long,region:string", partition_by=["region"])
    table.append("rows.csv")
    table.commit([{"add": {...}}], app_id="job-7", app_version=3)
    table.query("SELECT region, count(*) FROM t GROUP BY region").to_pandas()

Tables are opened by URI (local, s3://, uc://) with one of the commit modes
(local, s3-conditional, s3-dynamodb, service, coordinated, unity-catalog);
storage options take delta-rs's names. Errors are deltacommit.errors.Error
and its subclasses. docs/python.md in the repository has every call by
example.
"""

from . import errors
from .errors import (
    AlreadyExistsError,
    ConflictError,
    CredentialsError,
    DataLossError,
    DeltaCommitWarning,
    Error,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    UnknownOutcomeError,
    UnsupportedError,
)
from .table import (
    AppendResult,
    CheckpointInfo,
    CheckReport,
    CommitResult,
    Metadata,
    Protocol,
    QueryResult,
    Snapshot,
    Table,
    create,
)

__version__ = "0.1.0"

__all__ = [
    "Table",
    "Snapshot",
    "Protocol",
    "Metadata",
    "CommitResult",
    "AppendResult",
    "CheckpointInfo",
    "CheckReport",
    "QueryResult",
    "create",
    "errors",
    "Error",
    "InvalidArgumentError",
    "NotFoundError",
    "AlreadyExistsError",
    "FailedPreconditionError",
    "CredentialsError",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "UnsupportedError",
    "DataLossError",
    "UnavailableError",
    "ResourceExhaustedError",
    "UnknownOutcomeError",
    "InternalError",
    "ConflictError",
    "DeltaCommitWarning",
]
