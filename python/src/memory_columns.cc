#include "memory_columns.h"

#include <pybind11/numpy.h>

#include <cstring>
#include <string>

namespace py = pybind11;

namespace deltacommit::python {
namespace {

// The values of a one-dimensional NumPy array, converted to T if need be.
template <typename T>
std::vector<T> Values(const py::handle& values) {
  auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(values);
  if (!array) throw py::value_error("expected a NumPy array");
  std::vector<T> out(static_cast<size_t>(array.size()));
  if (!out.empty()) std::memcpy(out.data(), array.data(), out.size() * sizeof(T));
  return out;
}

std::vector<uint8_t> Flags(const py::handle& values) {
  auto array = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(values);
  if (!array) throw py::value_error("expected a NumPy array of bool");
  std::vector<uint8_t> out(static_cast<size_t>(array.size()));
  const bool* data = array.data();
  for (size_t i = 0; i < out.size(); ++i) out[i] = data[i] ? 1 : 0;
  return out;
}

}  // namespace

std::vector<MemoryColumn> MemoryColumnsFrom(const py::list& columns) {
  std::vector<MemoryColumn> out;
  for (const py::handle item : columns) {
    const auto entry = item.cast<py::tuple>();
    MemoryColumn c;
    c.name = entry[0].cast<std::string>();
    const auto kind = entry[1].cast<std::string>();
    const py::handle values = entry[2];
    if (kind == "int64" || kind == "timestamp_us") {
      c.kind = kind == "int64" ? MemoryColumn::Kind::kInt64 : MemoryColumn::Kind::kTimestampMicros;
      c.ints = Values<int64_t>(values);
    } else if (kind == "float64") {
      c.kind = MemoryColumn::Kind::kDouble;
      c.doubles = Values<double>(values);
    } else if (kind == "bool") {
      c.kind = MemoryColumn::Kind::kBool;
      c.bools = Flags(values);
    } else if (kind == "string") {
      c.kind = MemoryColumn::Kind::kString;
      const auto list = values.cast<py::list>();
      c.strings.reserve(list.size());
      c.nulls.assign(list.size(), 0);
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].is_none()) {
          c.nulls[i] = 1;
          c.strings.emplace_back();
        } else {
          c.strings.push_back(list[i].cast<std::string>());
        }
      }
    } else {
      throw py::value_error("column \"" + c.name + "\": unknown kind \"" + kind + "\"");
    }
    if (!entry[3].is_none()) {
      std::vector<uint8_t> nulls = Flags(entry[3]);
      if (c.nulls.empty()) {
        c.nulls = std::move(nulls);
      } else {
        for (size_t i = 0; i < nulls.size() && i < c.nulls.size(); ++i) c.nulls[i] |= nulls[i];
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace deltacommit::python
