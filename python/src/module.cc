// deltacommit._deltacommit: the C++ library's front door (deltacommit/table.h)
// for Python. The public, documented API is the pure-Python package around
// it (python/deltacommit/); this module converts and releases the GIL.
//
// Every call that may reach a store, a service or DuckDB runs with the GIL
// released, so that other Python threads run meanwhile and a Table can be
// shared by threads (the C++ Table is thread-safe). A Ctrl-C during such a
// call is raised once it returns: a commit is never left half-done.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>

#include "status_error.h"
#include "table_binding.h"

namespace py = pybind11;

PYBIND11_MODULE(_deltacommit, m) {
  m.doc() = "The deltacommit C++ library; use the deltacommit package, not this module.";
  // A failed Status becomes the deltacommit.errors class of its code, made
  // there from the code's name and the CLI's text.
  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const deltacommit::python::StatusError& e) {
      py::object error =
          py::module_::import("deltacommit.errors")
              .attr("_from_status")(std::string(deltacommit::StatusCodeName(e.status().code())),
                                    e.status().message(), e.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
  deltacommit::python::BindTable(m);
}
