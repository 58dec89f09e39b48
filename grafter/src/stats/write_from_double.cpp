// The fused receive pass from a double source, into every target dtype.

#include "stats/write_steps.hpp"

namespace graft::detail {

GRAFT_WRITE_FROM(double);

}  // namespace graft::detail
