"""Property tests: any sequence of commits (adds, removes of active files,
txn versions, retries of an app version already committed) reads back as
a model of the same sequence says, through the same handle and a new one,
at every version."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import deltacommit

# One step: ("add", n files), ("remove", index into the active files),
# ("txn", app, version), ("retry",) an app's last version again.
steps = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 3)),
        st.tuples(st.just("remove"), st.integers(0, 50)),
        st.tuples(st.just("txn"), st.sampled_from(["a", "b"]), st.integers(0, 5)),
        st.tuples(st.just("retry"), st.sampled_from(["a", "b"])),
    ),
    min_size=1,
    max_size=12,
)


def add(path):
    return {"add": {"path": path, "partitionValues": {}, "size": len(path),
                    "modificationTime": 1, "dataChange": True}}


@settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=steps)
def test_commit_sequences_read_back_as_the_model_says(local_root, sequence):
    table = deltacommit.create(str(local_root / f"prop-{uuid.uuid4().hex}"), "id:long",
                               properties={"delta.checkpointInterval": "4"})
    files, apps, versions = set(), {}, [set()]  # the model; versions[v] = files at v
    counter = 0
    for step in sequence:
        if step[0] == "add":
            paths = [f"f{counter + i}.parquet" for i in range(step[1])]
            counter += step[1]
            result = table.commit([add(p) for p in paths])
            files |= set(paths)
        elif step[0] == "remove":
            if not files:
                continue
            path = sorted(files)[step[1] % len(files)]
            result = table.commit([{"remove": {"path": path, "deletionTimestamp": 1,
                                               "dataChange": True}}], operation="DELETE")
            files.discard(path)
        elif step[0] == "txn":
            _, app, bump = step
            version = apps.get(app, -1) + 1 + bump
            result = table.commit([add(f"f{counter}.parquet")], app_id=app, app_version=version)
            files.add(f"f{counter}.parquet")
            counter += 1
            apps[app] = version
        else:
            app = step[1]
            if app not in apps:
                continue
            result = table.commit([add("never.parquet")], app_id=app, app_version=apps[app])
            assert result.already_committed
            continue
        assert not result.already_committed
        assert result.version == len(versions)
        versions.append(set(files))

    for handle in (table, deltacommit.Table(table.uri)):
        snapshot = handle.update()
        assert snapshot.version == len(versions) - 1
        assert {f["path"] for f in snapshot.files()} == files
        assert snapshot.app_versions == apps
    for v, expected in enumerate(versions):
        assert {f["path"] for f in table.snapshot(v).files()} == expected
    assert table.check().sound
