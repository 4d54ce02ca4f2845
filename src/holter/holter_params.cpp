#include "zeroflow/holter/holter_params.hpp"

#include <cmath>

#include "zeroflow/core/error.hpp"

namespace zeroflow::holter {

namespace {
bool positive(double v) { return v > 0 && std::isfinite(v); }
}  // namespace

void check_holter_params(const holter_params& p) {
  const auto& e = p.events;
  ZF_EXPECTS(positive(e.pause_seconds), "Holter parameters: pause_seconds must be positive, got ", e.pause_seconds);
  ZF_EXPECTS(positive(e.bradycardia_bpm) && positive(e.tachycardia_bpm) && e.bradycardia_bpm < e.tachycardia_bpm,
             "Holter parameters: bradycardia_bpm and tachycardia_bpm must be positive with bradycardia below "
             "tachycardia, got ",
             e.bradycardia_bpm, " and ", e.tachycardia_bpm);
  ZF_EXPECTS(e.run_beats >= 3, "Holter parameters: run_beats must be at least 3 (two in a row are a couplet), got ",
             e.run_beats);
  ZF_EXPECTS(e.rate_intervals >= 1 && e.pattern_cycles >= 1,
             "Holter parameters: rate_intervals and pattern_cycles must be at least 1, got ", e.rate_intervals, " and ",
             e.pattern_cycles);
  const auto& h = p.hrv;
  ZF_EXPECTS(positive(h.segment_seconds) && positive(h.successive_difference_ms),
             "Holter parameters: segment_seconds and successive_difference_ms must be positive, got ",
             h.segment_seconds, " and ", h.successive_difference_ms);
  ZF_EXPECTS(h.min_segment_coverage >= 0 && h.min_segment_coverage <= 1,
             "Holter parameters: min_segment_coverage must be in [0, 1], got ", h.min_segment_coverage);
}

std::vector<classify::param_field> param_fields(holter_params& p) {
  auto& e = p.events;
  auto& h = p.hrv;
  return {{"pause_seconds", &e.pause_seconds},
          {"bradycardia_bpm", &e.bradycardia_bpm},
          {"tachycardia_bpm", &e.tachycardia_bpm},
          {"run_beats", nullptr, &e.run_beats},
          {"rate_intervals", nullptr, &e.rate_intervals},
          {"pattern_cycles", nullptr, &e.pattern_cycles},
          {"segment_seconds", &h.segment_seconds},
          {"min_segment_coverage", &h.min_segment_coverage},
          {"successive_difference_ms", &h.successive_difference_ms}};
}

}  // namespace zeroflow::holter
