// The fused receive pass from a float16 source, into every target dtype.

#include <c10/util/Half.h>

#include "stats/write_steps.hpp"

namespace graft::detail {

GRAFT_WRITE_FROM(c10::Half);

}  // namespace graft::detail
