#pragma once
// Collects validation problems instead of stopping at the first, so that one
// run of the loader tells a fixture author everything that is wrong.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graft::harness::detail {

class json_checker {
 public:
  void add(const std::string& path, const std::string& what);
  const std::vector<std::string>& problems() const { return problems_; }
  // Throws a fixture_error listing every problem, if there are any:
  // "SOURCE: N problems (format: FORMAT_DOC):" and one line per problem.
  void throw_if_problems(const std::string& source, const std::string& format_doc) const;

  // Child paths, written as the messages show them: a.b, a[3].
  static std::string key_path(const std::string& parent, const std::string& key);
  static std::string index_path(const std::string& parent, std::size_t index);
  // A short JSON rendering for "got ..." (truncated).
  static std::string describe(const nlohmann::json& value);

  // Problems for keys of object not in allowed; returns whether the value is an object.
  bool is_object(const nlohmann::json& value, const std::string& path);
  void known_keys(const nlohmann::json& object, const std::string& path, std::initializer_list<const char*> allowed);

  // Typed reads of object[key]: absent gives nullopt (and a problem when required).
  std::optional<std::string> string(const nlohmann::json& object, const std::string& key, const std::string& path,
                                    bool required);
  std::optional<std::int64_t> integer(const nlohmann::json& object, const std::string& key, const std::string& path,
                                      bool required);
  // integer() within [min, max]; outside it is a problem naming the range.
  std::optional<std::int64_t> integer_in(const nlohmann::json& object, const std::string& key,
                                         const std::string& path, bool required, std::int64_t min,
                                         std::int64_t max);
  std::optional<double> number(const nlohmann::json& object, const std::string& key, const std::string& path,
                               bool required);
  // number() as a number of seconds in (0, max]; outside it is a problem naming the range.
  std::optional<double> seconds(const nlohmann::json& object, const std::string& key, const std::string& path,
                                bool required, double max);
  std::optional<bool> boolean(const nlohmann::json& object, const std::string& key, const std::string& path);
  std::optional<std::vector<std::int64_t>> int_array(const nlohmann::json& object, const std::string& key,
                                                     const std::string& path, bool required);
  // One of choices.
  std::optional<std::string> choice(const nlohmann::json& object, const std::string& key, const std::string& path,
                                    const std::vector<std::string>& choices, bool required);

 private:
  std::vector<std::string> problems_;
};

}  // namespace graft::harness::detail
