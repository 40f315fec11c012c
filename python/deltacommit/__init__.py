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

from . import errors, table
from .errors import *  # noqa: F401,F403 (the names of errors.__all__)
from .table import *  # noqa: F401,F403 (the names of table.__all__)

__version__ = "0.1.0"

__all__ = [*table.__all__, "errors", *errors.__all__]
