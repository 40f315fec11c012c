// A pandas DataFrame's columns as the package's Python side hands them over
// (deltacommit/table.py, _frame_columns), turned into the library's
// MemoryColumn (deltacommit/memory_columns.h): NumPy buffers copied as
// they are, no text per value.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "deltacommit/memory_columns.h"

namespace deltacommit::python {

// `columns`: a list of (name, kind, values, nulls). kind "int64", "float64",
// "bool" or "timestamp_us" with values a NumPy array (of int64, float64,
// bool, int64 microseconds since the epoch, UTC); kind "string" with values
// a list of str or None. nulls: a NumPy bool array (True for a missing
// value) or None. Needs the GIL. Raises ValueError naming a column of an
// unknown kind.
std::vector<MemoryColumn> MemoryColumnsFrom(const pybind11::list& columns);

}  // namespace deltacommit::python
