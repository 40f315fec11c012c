# Types of the native module (python/src/); the public API is deltacommit.table.
from typing import Any, Dict, List, Optional, Tuple

class _TableOptions:
    mode: Optional[str]
    endpoint_url: str
    region: str
    profile: str
    storage_options: Dict[str, str]
    create_dynamodb_table: bool
    service_url: str
    service_token: str
    service_endpoint: str
    catalog_url: str
    catalog_token: str
    catalog_send_credentials: bool
    auto_checkpoint: bool
    connect_timeout_ms: int
    request_timeout_ms: int
    def __init__(self) -> None: ...

class _NewTable:
    schema: str
    partition_columns: List[str]
    configuration: Dict[str, str]
    name: Optional[str]
    description: Optional[str]
    def __init__(self) -> None: ...

class _Snapshot:
    version: int
    num_files: int
    size_in_bytes: int
    app_versions: Dict[str, int]
    in_commit_timestamp: Optional[int]
    def protocol_json(self) -> str: ...
    def metadata_json(self) -> str: ...
    def files_json(self) -> List[str]: ...
    def txn_version(self, app_id: str) -> Optional[int]: ...

class _Table:
    uri: str
    mode: str
    def update(self) -> _Snapshot: ...
    def snapshot(self, version: Optional[int] = None) -> _Snapshot: ...
    def create(self, spec: _NewTable) -> Dict[str, Any]: ...
    def commit(
        self,
        actions_jsonl: str,
        operation: str,
        isolation: str,
        app_id: Optional[str],
        app_version: Optional[int],
        read_predicates: List[Dict[str, List[Optional[str]]]],
        read_whole_table: bool,
        max_attempts: Optional[int],
        read_version: Optional[int],
    ) -> Dict[str, Any]: ...
    def append(
        self,
        inputs: List[Tuple[str, str]],
        frame_columns: Optional[List[Tuple[str, str, Any, Any]]],
        app_id: Optional[str],
        app_version: Optional[int],
        max_attempts: Optional[int],
        memory_limit: str,
    ) -> Dict[str, Any]: ...
    def delete(
        self,
        predicate: str,
        app_id: Optional[str],
        app_version: Optional[int],
        max_attempts: Optional[int],
        memory_limit: str,
    ) -> Dict[str, Any]: ...
    def checkpoint(self, version: Optional[int] = None) -> Dict[str, Any]: ...
    def history(self, limit: int) -> List[Dict[str, Any]]: ...
    def check(self) -> Dict[str, Any]: ...
    def query(
        self,
        sql: str,
        version: Optional[int],
        json_rows: bool,
        output: Optional[str],
        format: str,
        overwrite: bool,
    ) -> Tuple[List[str], List[str], List[List[Optional[str]]], Optional[int]]: ...

def open_table(uri: str, options: _TableOptions) -> _Table: ...
