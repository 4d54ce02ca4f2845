#include "raw_input.hpp"

#include <algorithm>

#include "zeroflow/io/recording.hpp"

namespace zeroflow::cli {

namespace {

bool is_raw(const std::string& input) { return io::raw_sample_type(input).has_value(); }

}  // namespace

void check_raw_input_flags(const CLI::App& cmd, const std::vector<std::string>& inputs) {
  const auto raw = std::find_if(inputs.begin(), inputs.end(), is_raw);
  if (raw != inputs.end() && cmd.count("--sample-rate") == 0)
    throw CLI::ValidationError(*raw +
                               " holds raw samples, which do not say their sample rate; give it with --sample-rate");
  if (raw == inputs.end()) {
    for (const char* flag : {"--channels", "--gain"})
      if (cmd.count(flag) > 0)
        throw CLI::ValidationError(std::string(flag) +
                                   " applies to raw recordings (.f32, .i16, .i32) only; the others state their own "
                                   "layout, so leave it out");
  }
}

}  // namespace zeroflow::cli
