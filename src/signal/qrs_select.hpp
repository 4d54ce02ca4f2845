#pragma once
// The beats among detect_qrs's candidates under given rules, on the host (qrs_detect.cpp) or a GPU
// (qrs_detect.cu): the same decision either way. detect_qrs and the public qrs_select_host take
// the rules for the recording's sizes; tests pass rules with one of them turned off.
#include <cstdint>

#include "qrs_rules.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/qrs_detect.hpp"

namespace zeroflow::signal::detail {

array qrs_select_host(const qrs_detection& d, std::int64_t samples, const qrs_rules& rules, stream_view stream);
array qrs_select_cuda(const qrs_detection& d, std::int64_t samples, const qrs_rules& rules, stream_view stream);

}  // namespace zeroflow::signal::detail
