#pragma once
// Where events go. A sink is called from the thread that runs the graft; the
// provided sinks are safe to share between threads.

#include <fstream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include <graft/event.hpp>

namespace graft {

class event_sink {
 public:
  virtual ~event_sink() = default;
  virtual void write(const event& e) = 0;
};

// One JSON object per line, flushed per event so that a killed process loses
// nothing. A write that fails (a full disk) never throws: the first failure is
// one line on stderr, and later events are still tried.
class jsonl_file_sink final : public event_sink {
 public:
  // Appends to path; throws error naming the path when it cannot be opened.
  explicit jsonl_file_sink(const std::string& path);
  void write(const event& e) override;

 private:
  std::mutex mutex_;
  std::string path_;
  std::ofstream out_;
  bool write_failed_ = false;
};

// A human-readable "[graft ...] ..." line per event (stderr by default).
class text_sink final : public event_sink {
 public:
  explicit text_sink(std::ostream& out);
  void write(const event& e) override;

 private:
  std::mutex mutex_;
  std::ostream& out_;
};

// Keeps events in memory, for tests.
class memory_sink final : public event_sink {
 public:
  void write(const event& e) override;
  std::vector<event> events() const;
  std::vector<event> events_of(const std::string& kind) const;

 private:
  mutable std::mutex mutex_;
  std::vector<event> events_;
};

// Fans out to several sinks.
class multi_sink final : public event_sink {
 public:
  explicit multi_sink(std::vector<std::shared_ptr<event_sink>> sinks);
  void write(const event& e) override;

 private:
  std::vector<std::shared_ptr<event_sink>> sinks_;
};

}  // namespace graft
