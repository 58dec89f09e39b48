#include <graft/event_sink.hpp>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <graft/error.hpp>

#include "base/json_text.hpp"

namespace graft {

jsonl_file_sink::jsonl_file_sink(const std::string& path) : path_(path), out_(path, std::ios::app) {
  if (!out_) {
    GRAFT_THROW(error, "event log '" + path + "' cannot be opened for appending: " + std::strerror(errno) +
                           "; check that its folder exists and is writable");
  }
}

void jsonl_file_sink::write(const event& e) {
  const std::string line = detail::json_text(e.to_json());
  std::lock_guard<std::mutex> lock(mutex_);
  errno = 0;
  out_ << line << '\n';
  out_.flush();
  if (out_) return;
  // A full disk must not stop the host program: said once, then every later
  // event is tried again (space may come back).
  if (!write_failed_) {
    const int cause = errno;
    // One string, one write: ranks on threads of one process do not interleave.
    std::cerr << "graft: event log '" + path_ + "' cannot be written (" +
                     (cause != 0 ? std::strerror(cause) : "write failed") +
                     "); grafting goes on, and its events still reach the other sinks\n"
              << std::flush;
    write_failed_ = true;
  }
  out_.clear();
}

text_sink::text_sink(std::ostream& out) : out_(out) {}

void text_sink::write(const event& e) {
  // One string, one write: two sinks on one stream (ranks on threads of one
  // process, each with its own sink on stderr) do not interleave.
  const std::string line = e.to_display_line() + '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << line;
  out_.flush();
}

void memory_sink::write(const event& e) {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(e);
}

std::vector<event> memory_sink::events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

std::vector<event> memory_sink::events_of(const std::string& kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<event> out;
  for (const auto& e : events_) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

multi_sink::multi_sink(std::vector<std::shared_ptr<event_sink>> sinks) : sinks_(std::move(sinks)) {}

void multi_sink::write(const event& e) {
  for (const auto& sink : sinks_) sink->write(e);
}

}  // namespace graft
