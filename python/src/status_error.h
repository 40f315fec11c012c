// A Status that failed, as a C++ exception on its way to Python: the
// module's translator (module.cc) raises it as the deltacommit.errors class
// of its code, with the text the CLI prints after "error: ".
#pragma once

#include <stdexcept>
#include <utility>

#include "deltacommit/status.h"

namespace deltacommit::python {

class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status status)
      : std::runtime_error(status.ToString()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T ValueOrThrow(StatusOr<T> value) {
  if (!value.ok()) throw StatusError(value.status());
  return std::move(value).value();
}

}  // namespace deltacommit::python
