#!/usr/bin/env python3
"""Table.append of a pandas DataFrame, the two ways side by side in one run
(docs/benchmarks.md): column by column (NumPy buffers handed to the C++
side, the package's path) and as JSON lines (the path it keeps for nested
values). Both tables must read back alike; prints each time and the ratio.

    PYTHONPATH=build/ci/python bench/dataframe_append_bench.py [ROWS]   (1000000)
"""
import sys
import tempfile
import time

import numpy
import pandas

import deltacommit
from deltacommit import table as table_module


def main() -> int:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    frame = pandas.DataFrame({
        "id": numpy.arange(rows, dtype=numpy.int64),
        "price": numpy.linspace(0.0, 1.0, rows),
        "name": [f"n{i % 1000}" for i in range(rows)],
        "ts": pandas.date_range("2024-01-01", periods=rows, freq="s", tz="UTC"),
    })
    schema = "id:long,price:double,name:string,ts:timestamp"
    seconds = {}
    figures = {}
    with tempfile.TemporaryDirectory(prefix="deltacommit-frame-bench-") as root:
        for way in ("columns", "json"):
            table = deltacommit.create(f"{root}/{way}", schema)
            columns = table_module._frame_columns
            if way == "json":  # the nested-values path, for every column
                table_module._frame_columns = lambda frame: None
            try:
                start = time.perf_counter()
                table.append(frame)
                seconds[way] = time.perf_counter() - start
            finally:
                table_module._frame_columns = columns
            figures[way] = table.query(
                "SELECT count(*), sum(id), round(sum(price), 6), count(DISTINCT name), "
                "CAST(min(ts) AS VARCHAR), CAST(max(ts) AS VARCHAR) FROM t").rows
    if figures["columns"] != figures["json"] or figures["columns"][0][0] != rows:
        print(f"dataframe_append_bench: the tables differ: {figures}", file=sys.stderr)
        return 1
    print(f"append of a DataFrame of {rows} rows (4 columns)")
    print(f"  column by column  {seconds['columns']:8.3f} s")
    print(f"  as JSON lines     {seconds['json']:8.3f} s")
    print(f"ratio: JSON lines / column by column {seconds['json'] / seconds['columns']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
