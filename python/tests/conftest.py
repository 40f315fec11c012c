"""Fixtures of the Python package's tests: tables in every commit mode.

Local tables need nothing. The S3 and DynamoDB modes use the test servers
(scripts/test-servers: Ceph RGW with STS, dynalite) through the variables
that script exports; the service modes start a real `deltacommit serve`
(the CLI at $DELTACOMMIT_CLI, else bin/deltacommit). Without a server a test
is skipped, except in CI (CI set), where it fails.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import signal
import subprocess
import time
import uuid
from typing import Any, Callable, Dict, Iterator, List

import pytest

import deltacommit

REPO = pathlib.Path(__file__).resolve().parents[2]
SERVICE_TOKEN = "python-tests-token-0123456789abcdef"
ALL_MODES = ["local", "s3-conditional", "s3-dynamodb", "service", "coordinated"]


def require(*names: str) -> None:
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        why = f"test servers not running ({missing[0]} unset): eval \"$(scripts/test-servers up)\""
        if os.environ.get("CI"):
            pytest.fail("CI needs this server: " + why)
        pytest.skip(why)


def cli_path() -> str:
    cli = os.environ.get("DELTACOMMIT_CLI") or str(REPO / "bin" / "deltacommit")
    if not os.access(cli, os.X_OK):
        pytest.fail(f"the deltacommit CLI is not at {cli}: build it, or set DELTACOMMIT_CLI")
    return cli


class Serve:
    """A `deltacommit serve` process on a free port, stopped at the end."""

    def __init__(self, directory: pathlib.Path, config: str):
        self.dir = directory
        (directory / "serve.toml").write_text(config)
        self.log = directory / "serve.log"
        port_file = directory / "port"
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [cli_path(), "serve", "--config", str(directory / "serve.toml"),
                 "--port-file", str(port_file)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=directory)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = port_file.read_text() if port_file.exists() else ""
            if text.endswith("\n"):
                self.url = f"http://127.0.0.1:{int(text)}"
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited with {self.process.returncode}:\n{self.logs()}")
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"serve wrote no port within 30 s:\n{self.logs()}")

    def logs(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def serve_config(local_root: pathlib.Path) -> str:
    """Local tables under `local_root` and, with the test servers, the test
    bucket through RGW (allowlisted as "rgw"); SQLite state."""
    token_tables = [f"file://{local_root}"]
    s3 = ""
    rgw = os.environ.get("AWS_ENDPOINT_URL_S3")
    bucket = os.environ.get("DELTACOMMIT_TEST_BUCKET")
    if rgw and bucket:
        token_tables.append(f"s3://{bucket}/python-tests")
        s3 = (f'[s3]\nendpoint = "{rgw}"\nallow_http = true\nenforces_if_none_match = true\n'
              f'[[s3.allowed_endpoint]]\nname = "rgw"\nurl = "{rgw}"\nallow_http = true\n')
    tables = ", ".join(f'"{t}"' for t in token_tables)
    return ('[server]\nlisten = "127.0.0.1:0"\n'
            '[state]\nkind = "sqlite"\npath = "state.sqlite"\n'
            f'[local]\nroots = ["{local_root}"]\n' + s3 +
            f'[[token]]\nname = "python"\nsha256 = "{hashlib.sha256(SERVICE_TOKEN.encode()).hexdigest()}"\n'
            f'tables = [{tables}]\ncatalogs = ["*"]\nactions = ["manage", "commit", "read"]\n')


@pytest.fixture(scope="session")
def local_root(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return tmp_path_factory.mktemp("tables")


@pytest.fixture(scope="session")
def serve(tmp_path_factory: pytest.TempPathFactory, local_root: pathlib.Path) -> Iterator[Serve]:
    process = Serve(tmp_path_factory.mktemp("serve"), serve_config(local_root))
    yield process
    process.stop()


def new_uri(mode: str, local_root: pathlib.Path) -> str:
    """A fresh table location for `mode`: local for local (and the service
    modes without S3), else under the test bucket."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    if mode == "local":
        return str(local_root / name)
    if mode in ("service", "coordinated") and not os.environ.get("AWS_ENDPOINT_URL_S3"):
        return str(local_root / name)
    require("AWS_ENDPOINT_URL_S3", "DELTACOMMIT_TEST_BUCKET", "AWS_ACCESS_KEY_ID")
    if mode == "s3-dynamodb":
        require("AWS_ENDPOINT_URL_DYNAMODB")
    return f"s3://{os.environ['DELTACOMMIT_TEST_BUCKET']}/python-tests/{name}"


def mode_options(mode: str, request: pytest.FixtureRequest, uri: str) -> Dict[str, Any]:
    """Table(...) keywords for `mode` on the test servers."""
    options: Dict[str, Any] = {"mode": mode}
    if mode == "s3-dynamodb":
        options["create_dynamodb_table"] = True
        options["storage_options"] = {"DELTA_DYNAMO_TABLE_NAME": "python_tests_delta_log"}
    if mode in ("service", "coordinated"):
        serve_process: Serve = request.getfixturevalue("serve")
        options["service_url"] = serve_process.url
        options["service_token"] = SERVICE_TOKEN
        if uri.startswith("s3://"):
            require("AWS_ENDPOINT_URL_STS")
            options["service_endpoint"] = "rgw"
    return options


class TableFactory:
    """Makes tables of one commit mode: `.new(schema, ...)` creates one,
    `.open(uri)` opens another handle on it."""

    def __init__(self, mode: str, request: pytest.FixtureRequest, local_root: pathlib.Path):
        self.mode = mode
        self._request = request
        self._root = local_root

    def uri(self) -> str:
        return new_uri(self.mode, self._root)

    def options(self, uri: str) -> Dict[str, Any]:
        return mode_options(self.mode, self._request, uri)

    def open(self, uri: str, **extra: Any) -> deltacommit.Table:
        return deltacommit.Table(uri, **{**self.options(uri), **extra})

    def new(self, schema: str = "id:long,region:string", partition_by: List[str] | None = None,
            **extra: Any) -> deltacommit.Table:
        uri = self.uri()
        return deltacommit.create(uri, schema, partition_by, **{**self.options(uri), **extra})


@pytest.fixture(params=ALL_MODES)
def tables(request: pytest.FixtureRequest, local_root: pathlib.Path) -> TableFactory:
    """A table factory, once per commit mode."""
    return TableFactory(request.param, request, local_root)


@pytest.fixture
def local_tables(request: pytest.FixtureRequest, local_root: pathlib.Path) -> TableFactory:
    return TableFactory("local", request, local_root)


def add_action(path: str, size: int = 10, partition_values: Dict[str, Any] | None = None) -> Dict[str, Any]:
    return {"add": {"path": path, "partitionValues": partition_values or {}, "size": size,
                    "modificationTime": 1, "dataChange": True}}


@pytest.fixture
def add() -> Callable[..., Dict[str, Any]]:
    return add_action
