#pragma once
// What --json prints. Paths and messages may hold bytes that are not UTF-8
// (a Linux file name may be any bytes), on which nlohmann's strict dump
// throws; such bytes print as U+FFFD instead.

#include <iostream>

#include <nlohmann/json.hpp>

namespace graft::harness::cli {

inline void print_json(const nlohmann::json& document) {
  std::cout << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace graft::harness::cli
