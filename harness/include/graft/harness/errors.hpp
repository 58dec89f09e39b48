#pragma once
// The harness's own errors, beside the grafter's (graft/error.hpp): both name
// the file, the path within it and the fix.

#include <graft/error.hpp>

namespace graft {

// A snapshot or golden that cannot be read, written or compared, or a
// snapshot operation refused (under CI, an unknown name).
class snapshot_error : public error {
 public:
  using error::error;
};

// A scenario fixture, or a folder of them, that cannot be read or is invalid.
class fixture_error : public error {
 public:
  using error::error;
};

}  // namespace graft
