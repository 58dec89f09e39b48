// The fused receive pass from a float source, into every target dtype.

#include "stats/write_steps.hpp"

namespace graft::detail {

GRAFT_WRITE_FROM(float);

}  // namespace graft::detail
