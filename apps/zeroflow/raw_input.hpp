#pragma once
// Raw recordings on the command line (NAME.f32, NAME.i16, NAME.i32: little-endian samples with no
// header). Their bytes say neither their sample rate nor how many channels are interleaved, so
// --sample-rate is required for them and --channels / --gain say the rest.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace zeroflow::cli {

/// @brief Checks the flags of raw recordings against `inputs`. Usage errors (exit 2): a raw input
/// without --sample-rate; --channels or --gain without a raw input.
void check_raw_input_flags(const CLI::App& cmd, const std::vector<std::string>& inputs);

}  // namespace zeroflow::cli
