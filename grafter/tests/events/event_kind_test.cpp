// The event kinds and skip kinds: one name each, and each documented where users look.

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

// The names in the first column of a docs/events.md table: the rows of its
// section titled `heading` that start with a code span.
std::set<std::string> documented_names(const std::string& heading) {
  std::ifstream in(GRAFT_DOCS_DIR "/events.md");
  EXPECT_TRUE(in) << "cannot read " GRAFT_DOCS_DIR "/events.md";
  std::set<std::string> documented;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == heading;
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    const std::size_t end = line.find('`', 3);
    if (end != std::string::npos) documented.insert(line.substr(3, end - 3));
  }
  return documented;
}

template <typename kind_list>
void expect_documented_exactly(const kind_list& all, const std::string& heading) {
  const std::set<std::string> documented = documented_names(heading);
  std::set<std::string> names;
  for (const auto kind : all) names.insert(std::string(to_string(kind)));
  for (const std::string& name : names) EXPECT_EQ(documented.count(name), 1u) << name << " is not under " << heading;
  for (const std::string& row : documented) EXPECT_EQ(names.count(row), 1u) << row << " is documented but no kind";
}

TEST(event_kind, the_table_in_docs_events_md_lists_every_kind) {
  expect_documented_exactly(kEventKinds, "## Kinds");
}

TEST(skip_kind, every_skip_kind_has_a_name_of_its_own_in_snake_case) {
  std::set<std::string> names;
  for (const skip_kind kind : kSkipKinds) {
    const std::string name(to_string(kind));
    EXPECT_TRUE(names.insert(name).second) << name << " names two skip kinds";
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
  }
}

TEST(skip_kind, the_table_in_docs_events_md_lists_every_skip_kind) {
  expect_documented_exactly(kSkipKinds, "## Skip kinds");
}

}  // namespace
}  // namespace graft
