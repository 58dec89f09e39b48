#pragma once
// The error hierarchy of graft. Every error the library throws derives from
// graft::error and names the field, value or path at fault and what to do.
// (The harness adds its own: graft/harness/errors.hpp.)

#include <stdexcept>
#include <string>

namespace graft {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid configuration: a field, its value and the fix.
class config_error : public error {
 public:
  using error::error;
};

// A filter expression that does not compile (syntax, unknown function, bad regex).
class filter_error : public config_error {
 public:
  using config_error::config_error;
};

// A transform plugin that cannot be loaded or used.
class plugin_error : public error {
 public:
  using error::error;
};

// The exchange between ranks failed (connection lost, protocol violation).
class exchange_error : public error {
 public:
  using error::error;
};

// The ranks reached different dump calls: their fingerprints disagree.
class desync_error : public exchange_error {
 public:
  using exchange_error::exchange_error;
};

// A bounded wait ran out.
class timeout_error : public exchange_error {
 public:
  using exchange_error::exchange_error;
};

// A transform produced no usable candidate (throws, wrong shape, undefined, ...).
class transform_error : public error {
 public:
  using error::error;
};

}  // namespace graft

// GRAFT_THROW(config_error, "role: ...") throws graft::config_error with the message.
#define GRAFT_THROW(kind, message) throw ::graft::kind(message)
