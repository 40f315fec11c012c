#!/usr/bin/env python3
"""Checks docs/openapi.yaml: it parses as YAML, is OpenAPI 3.0, every $ref
resolves, and it agrees with docs/api.md on the paths, the status codes of
each operation and the error codes.

usage: check_openapi.py DOCS_DIR    (exit 77: skipped, no PyYAML outside CI)
"""
import os
import re
import sys

try:
    import yaml
except ImportError:
    if os.environ.get("CI"):
        sys.exit("PyYAML is missing (apt-get install python3-yaml)")
    print("skipped: PyYAML is missing")
    sys.exit(77)

docs = sys.argv[1]
problems = []


def check(ok, message):
    if not ok:
        problems.append(message)


with open(os.path.join(docs, "openapi.yaml"), encoding="utf-8") as f:
    spec = yaml.safe_load(f)
with open(os.path.join(docs, "api.md"), encoding="utf-8") as f:
    prose = f.read()

check(str(spec.get("openapi", "")).startswith("3.0."), "openapi is not 3.0.x")
for key in ("info", "paths", "components"):
    check(key in spec, "no top-level " + key)


def refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)


for ref in refs(spec):
    target = spec
    for part in ref.lstrip("#/").split("/"):
        target = target.get(part) if isinstance(target, dict) else None
    check(ref.startswith("#/") and target is not None, "unresolved $ref " + ref)

# The operations: every "## `METHOD /path`" heading of api.md, and the
# health endpoints it lists.
expected = {("post", "/v1/commits"), ("get", "/v1/tables/{table}/commits"),
            ("get", "/healthz"), ("get", "/readyz"), ("get", "/metrics")}
for method, path in re.findall(r"^## `(GET|POST) ([^`? ]+)", prose, re.M):
    check((method.lower(), path) in expected, "api.md documents %s %s" % (method, path))
actual = {(m, p) for p, ops in spec["paths"].items() for m in ops}
check(actual == expected, "openapi operations %s != %s" % (sorted(actual), sorted(expected)))


# The answer tables of api.md: the rows "| status | `code` | ..." after each
# operation heading, compared with the operation's responses.
def table_rows(heading):
    start = prose.index(heading)
    end = prose.find("\n## ", start + 1)
    section = prose[start:end if end > 0 else None]
    return re.findall(r"^\| (\d{3}) \| (?:`([a-z_]+)`|—) \|", section, re.M)


codes = set(spec["components"]["schemas"]["Error"]["properties"]["error"]["properties"]
            ["code"]["enum"])
for heading, (method, path) in (("## `POST /v1/commits`", ("post", "/v1/commits")),
                                ("## `GET /v1/tables/{table}/commits",
                                 ("get", "/v1/tables/{table}/commits"))):
    rows = table_rows(heading)
    check(rows, "no answer table under " + heading)
    documented = {status for status, _ in rows}
    described = set(spec["paths"][path][method]["responses"])
    check(documented == described,
          "%s %s: api.md answers %s, openapi %s" % (method, path, sorted(documented),
                                                   sorted(described)))
    for status, code in rows:
        check(not code or code in codes, "error code %s of api.md not in openapi" % code)

for code in re.findall(r"(\d{3}) `([a-z_]+)`", prose):
    check(code[1] in codes, "server error code %s of api.md not in openapi" % code[1])

if problems:
    sys.exit("docs/openapi.yaml and docs/api.md disagree:\n  " + "\n  ".join(problems))
print("openapi.yaml: %d operations, %d error codes, agrees with api.md" % (len(actual), len(codes)))
