// The event kinds: one name each, and each documented where users look.

#include <graft/event.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace graft {
namespace {

TEST(event_kind, every_kind_has_a_name_of_its_own_in_snake_case) {
  std::set<std::string> names;
  for (const event_kind kind : kEventKinds) {
    const std::string name(to_string(kind));
    EXPECT_TRUE(names.insert(name).second) << name << " names two kinds";
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
  }
}

// docs/events.md's table of kinds ("## Kinds") has a row for every kind, and no other.
TEST(event_kind, the_table_in_docs_events_md_lists_every_kind) {
  std::ifstream in(GRAFT_DOCS_DIR "/events.md");
  ASSERT_TRUE(in) << "cannot read " GRAFT_DOCS_DIR "/events.md";
  std::set<std::string> documented;
  bool in_kinds = false;  // within the section "## Kinds"
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_kinds = line == "## Kinds";
    if (!in_kinds || line.rfind("| `", 0) != 0) continue;
    const std::size_t end = line.find('`', 3);
    if (end != std::string::npos) documented.insert(line.substr(3, end - 3));
  }
  std::set<std::string> kinds;
  for (const event_kind kind : kEventKinds) kinds.insert(std::string(to_string(kind)));
  for (const std::string& kind : kinds) EXPECT_EQ(documented.count(kind), 1u) << kind << " is not in docs/events.md";
  for (const std::string& row : documented) EXPECT_EQ(kinds.count(row), 1u) << row << " is documented but no kind";
}

}  // namespace
}  // namespace graft
