// What a recording's other leads see of each beat (beat_classes.hpp, step 6): each lead measured
// as the beats' own lead is, where its rows are, and the beat's similarities over the leads that
// read it reduced to one number.
#include <algorithm>
#include <cmath>
#include <limits>

#include "features.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::classify::detail {

std::unique_ptr<row_measurements> measurements_of(const array& rows, const beat_rows& shape, std::int64_t beats,
                                                  double sample_rate, std::int64_t template_rows, stream_view stream) {
  if (rows.where().host_accessible()) {
    synchronize(stream);  // the rows may still be being written on the stream
    const beat_rows view{rows.span<const float>(), shape.row_width, shape.window_before, shape.window_after};
    return host_measurements(view, beats, sample_rate, template_rows);
  }
  return cuda_measurements(rows, shape, sample_rate, template_rows, stream);
}

std::vector<float> other_lead_similarity(std::span<const array> leads, const beat_rows& shape, std::int64_t beats,
                                         double sample_rate, const class_params& params, stream_view stream) {
  const auto n = static_cast<std::size_t>(beats);
  std::vector<std::vector<float>> readable_similarity;  // per lead; NaN where the lead does not read the beat
  for (std::size_t k = 0; k < leads.size(); ++k) {
    const array& rows = leads[k];
    ZF_EXPECTS(rows.type() == float32 && rows.ndim() == 2 && rows.is_contiguous(), "other lead ", k,
               ": the beats' rows must be a C-contiguous 2-D float32 array");
    ZF_EXPECTS(rows.shape()[0] == beats && rows.shape()[1] == shape.row_width, "other lead ", k, ": expected ", beats,
               " rows of ", shape.row_width, " samples (one per beat, as in the beats' own lead), got ",
               rows.shape()[0], " x ", rows.shape()[1]);
    if (n < 3) continue;
    const auto lead = measurements_of(rows, shape, beats, sample_rate, params.shape.template_rows, stream);
    auto similarity = lead->similarity();
    const auto clarity = lead->clarity();
    const auto unreadable = unreadable_beats(clarity, params.quality);
    // A lead reads a beat where its stretch is readable and the beat's own QRS stands out of the
    // noise as clearly as readable ECG does: otherwise the beat's shape there is the noise's.
    for (std::size_t b = 0; b < n; ++b)
      if (unreadable[b] || !(clarity[b] >= params.quality.min_clarity))
        similarity[b] = std::numeric_limits<float>::quiet_NaN();
    readable_similarity.push_back(std::move(similarity));
  }
  std::vector<float> out(n, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> seen;
  for (std::size_t b = 0; b < n; ++b) {
    seen.clear();
    for (const auto& lead : readable_similarity)
      if (!std::isnan(lead[b])) seen.push_back(lead[b]);
    if (seen.empty()) continue;
    // The median, so that one lead's noise does not outvote the others in a 12-lead recording.
    std::sort(seen.begin(), seen.end());
    const std::size_t middle = seen.size() / 2;
    out[b] = seen.size() % 2 ? seen[middle] : 0.5F * (seen[middle - 1] + seen[middle]);
  }
  return out;
}

}  // namespace zeroflow::classify::detail
