// The Table, its options and its snapshots, bound for Python (module.cc).
#pragma once

#include <pybind11/pybind11.h>

namespace deltacommit::python {

void BindTable(pybind11::module_& m);

}  // namespace deltacommit::python
