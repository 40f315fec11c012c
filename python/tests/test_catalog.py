"""A catalog-managed table by name, uc://catalog.schema.table, through the
Unity Catalog APIs of a real `deltacommit serve`: created, committed to,
appended to and read from Python, and read back by another handle."""

from __future__ import annotations

import json
import urllib.request
import uuid

import pytest

import deltacommit
from conftest import SERVICE_TOKEN


def uc(serve, path, body):
    request = urllib.request.Request(
        serve.url + "/api/2.1/unity-catalog" + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {SERVICE_TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


@pytest.fixture
def catalog(serve, local_root):
    name = f"py_{uuid.uuid4().hex[:8]}"
    uc(serve, "/catalogs", {"name": name, "storage_root": f"file://{local_root}/{name}"})
    uc(serve, "/schemas", {"name": "sales", "catalog_name": name})
    return name


def test_a_catalog_managed_table_by_name(serve, catalog, tmp_path):
    options = {"catalog_url": serve.url, "catalog_token": SERVICE_TOKEN}
    uri = f"uc://{catalog}.sales.events"
    table = deltacommit.create(uri, "id:long,region:string", **options)
    assert table.mode == "unity-catalog"
    add = {"add": {"path": "a.parquet", "partitionValues": {}, "size": 1, "modificationTime": 1,
                   "dataChange": True}}
    assert table.commit([add], app_id="uc-job", app_version=1).version == 1
    (tmp_path / "rows.json").write_text('{"id": 1, "region": "eu"}\n{"id": 2, "region": "us"}\n')
    assert table.append(tmp_path / "rows.json").version == 2
    other = deltacommit.Table(uri, **options)
    snapshot = other.snapshot()
    assert snapshot.version == 2
    assert snapshot.txn_version("uc-job") == 1
    assert snapshot.num_files == 2
    with pytest.raises(deltacommit.CredentialsError):
        deltacommit.Table(uri, catalog_url=serve.url, catalog_token="not-a-token").version()
