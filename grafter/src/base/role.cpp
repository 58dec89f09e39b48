#include <graft/role.hpp>

namespace graft {

std::string_view to_string(role r) { return r == role::baseline ? "baseline" : "target"; }

std::string_view to_string(direction d) { return d == direction::b2t ? "b2t" : "t2b"; }

}  // namespace graft
