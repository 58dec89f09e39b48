#include <graft/low.hpp>

#include "high/high_detail.hpp"
