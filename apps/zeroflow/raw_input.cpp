#include "raw_input.hpp"

#include <algorithm>

#include "flag_checks.hpp"

namespace zeroflow::cli {

namespace {

// A bound on the flag as typed; the reader's own bound is higher.
constexpr long long most_channels = 4096;

bool is_raw(const std::string& input) { return io::raw_sample_type(input).has_value(); }

}  // namespace

void add_raw_input_flags(CLI::App& cmd, io::raw_layout& layout) {
  cmd.add_option("--channels", layout.channels,
                 "channels interleaved frame by frame in a raw recording (.f32, .i16, .i32); --lead picks one by "
                 "0-based index")
      ->type_name("INT")
      ->capture_default_str()
      ->check(integer_in(1, most_channels));
  cmd.add_option("--gain", layout.gain,
                 "stored units per physical unit of a raw recording (e.g. ADC units per mV for .i16): its samples "
                 "are divided by it (1: taken as stored)")
      ->capture_default_str()
      ->check(positive_up_to(1e9, ""));
}

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
