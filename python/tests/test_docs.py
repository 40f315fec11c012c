"""docs/python.md's examples, run in order in one namespace in an empty
directory. A block that names the test bucket or SERVICE_URL needs the
test servers and the commit service. A `print(...)  # text` line checks its
output: `text` (before any ": " remark) must be one of the lines printed,
unless it abbreviates ("...", ", then")."""

from __future__ import annotations

import contextlib
import io
import os
import re

from conftest import REPO, SERVICE_TOKEN, require

DOC = REPO / "docs" / "python.md"


def blocks():
    """(code, needs_servers) for each ```python block."""
    text = DOC.read_text()
    out = []
    for match in re.finditer(r"```python\n(.*?)```", text, re.S):
        code = match.group(1)
        out.append((code, "bucket" in code or "SERVICE_URL" in code))
    return out


def expected_lines(code: str):
    for line in code.splitlines():
        m = re.match(r"\s*print\(.*\)\s+#\s*(.+)$", line)
        if not m:
            continue
        text = m.group(1).split(": ")[0].strip()
        if "..." in text or ", then" in text:
            continue
        yield text


def test_every_example_runs_and_prints_what_it_says(tmp_path, monkeypatch, request):
    found = blocks()
    assert len(found) >= 8, "docs/python.md lost its examples"
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for code, needs_servers in found:
        if needs_servers:
            require("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_STS",
                    "DELTACOMMIT_TEST_BUCKET")
            namespace.setdefault("SERVICE_URL", request.getfixturevalue("serve").url)
            namespace.setdefault("SERVICE_TOKEN", SERVICE_TOKEN)
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            exec(compile(code, str(DOC), "exec"), namespace)
        printed = [line.strip() for line in captured.getvalue().splitlines()]
        for want in expected_lines(code):
            assert want in printed, f"{want!r} not printed by:\n{code}\nprinted: {printed}"
