#include <graft/exception_message.hpp>

#include <c10/util/Exception.h>

namespace graft {

std::string exception_message(const std::exception& e) {
  // The type is asked at run time: callers catch std::exception, and whether
  // a given libtorch exception derives from c10::Error differs by version.
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return c10_error->what_without_backtrace();
  return e.what();
}

}  // namespace graft
