#include "exchange/c10d/c10d_errors.hpp"

#include <exception>

#include <torch/csrc/distributed/c10d/exception.h>

#include <graft/error.hpp>
#include <graft/exception_message.hpp>

#include <graft/ascii_lower.hpp>

namespace graft::detail {
namespace {

// Gloo reports an expired wait as an IoException ("Timed out waiting 2000ms
// for recv operation to complete") and c10d's Work::wait as a c10::Error
// ("Operation timed out!"): neither has a type of its own, so the text decides.
bool reads_as_timeout(const std::string& what) {
  const std::string text = ascii_lower(what);
  return text.find("timed out") != std::string::npos || text.find("timeout") != std::string::npos;
}

std::string compose(const std::string& context, std::string what, const std::string& fix) {
  while (!what.empty() && (what.back() == '.' || what.back() == '\n' || what.back() == ' ')) what.pop_back();
  std::string message = context + ": " + what;
  // "Operation timed out!" needs no period before the fix.
  const bool ends_a_sentence = !what.empty() && (what.back() == '!' || what.back() == '?');
  if (!fix.empty()) message += (ends_a_sentence ? " " : ". ") + fix;
  return message;
}

}  // namespace

void rethrow_as_graft_error(const std::string& context, const std::string& fix) {
  try {
    throw;
  } catch (const graft::error&) {
    throw;
  } catch (const c10d::TimeoutError& e) {
    GRAFT_THROW(timeout_error, compose(context, exception_message(e), fix));
  } catch (const std::exception& e) {
    const std::string what = exception_message(e);
    if (reads_as_timeout(what)) GRAFT_THROW(timeout_error, compose(context, what, fix));
    GRAFT_THROW(exchange_error, compose(context, what, fix));
  } catch (...) {
    GRAFT_THROW(exchange_error, compose(context, "an unknown exception", fix));
  }
}

}  // namespace graft::detail
