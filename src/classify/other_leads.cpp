// What a recording's other leads see of each beat (beat_classes.hpp, step 6): each lead measured
// as the beats' own lead is, where its rows are, and per beat the medians over the leads that read
// it of its similarity and of its deviation from the normal beats around it.
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

namespace {

/// The median of values[0..n), reordering them; NaN for none.
float median_of(std::vector<float>& values) {
  if (values.empty()) return std::numeric_limits<float>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5F * (values[middle - 1] + values[middle]);
}

}  // namespace

other_leads::other_leads(std::span<const array> leads, const beat_rows& shape, std::int64_t beats, double sample_rate,
                         const class_params& params, stream_view stream)
    : beats_{static_cast<std::size_t>(beats)} {
  for (std::size_t k = 0; k < leads.size(); ++k) {
    const array& rows = leads[k];
    ZF_EXPECTS(rows.type() == float32 && rows.ndim() == 2 && rows.is_contiguous(), "other lead ", k,
               ": the beats' rows must be a C-contiguous 2-D float32 array");
    ZF_EXPECTS(rows.shape()[0] == beats && rows.shape()[1] == shape.row_width, "other lead ", k, ": expected ", beats,
               " rows of ", shape.row_width, " samples (one per beat, as in the beats' own lead), got ",
               rows.shape()[0], " x ", rows.shape()[1]);
    if (beats_ < 3) continue;
    auto lead = measurements_of(rows, shape, beats, sample_rate, params.shape.template_rows, stream);
    auto similarity = lead->similarity();
    const auto clarity = lead->clarity();
    const auto unreadable = unreadable_beats(clarity, params.quality);
    // A lead reads a beat where its stretch is readable and the beat's own QRS stands out of the
    // noise as clearly as readable ECG does: otherwise the beat's shape there is the noise's.
    for (std::size_t b = 0; b < beats_; ++b)
      if (unreadable[b] || !(clarity[b] >= params.quality.min_clarity))
        similarity[b] = std::numeric_limits<float>::quiet_NaN();
    measured_.push_back(std::move(lead));
    readable_similarity_.push_back(std::move(similarity));
  }
}

std::vector<float> other_leads::similarity() const {
  // The median, so that one lead's noise does not outvote the others in a 12-lead recording.
  std::vector<float> out(beats_, std::numeric_limits<float>::quiet_NaN()), seen;
  for (std::size_t b = 0; b < beats_; ++b) {
    seen.clear();
    for (const auto& lead : readable_similarity_)
      if (!std::isnan(lead[b])) seen.push_back(lead[b]);
    out[b] = median_of(seen);
  }
  return out;
}

std::vector<float> other_leads::deviation(std::span<const std::int64_t> listed, std::span<const std::uint8_t> normal,
                                          std::int64_t neighbours, double min_span_fraction) const {
  ZF_EXPECTS(normal.size() == beats_, "expected a normal flag per beat (", beats_, "), got ", normal.size());
  for (const std::int64_t b : listed)
    ZF_EXPECTS(b >= 0 && static_cast<std::size_t>(b) < beats_, "beat ", b, " is not one of the ", beats_, " beats");
  // Each lead measures only the listed beats it reads. Their normal neighbours count with this
  // lead's noise, which is what a beat here is measured against; a neighbour where the lead is
  // flat (it came loose) is left out by its size.
  std::vector<std::vector<float>> seen(listed.size());
  std::vector<std::int64_t> read;
  for (std::size_t k = 0; k < measured_.size(); ++k) {
    read.clear();
    for (const std::int64_t b : listed)
      if (!std::isnan(readable_similarity_[k][static_cast<std::size_t>(b)])) read.push_back(b);
    if (read.empty()) continue;
    const std::vector<float> lead = measured_[k]->local_deviation(read, normal, neighbours, min_span_fraction);
    for (std::size_t i = 0, r = 0; i < listed.size() && r < read.size(); ++i)
      if (listed[i] == read[r]) {
        if (!std::isnan(lead[r])) seen[i].push_back(lead[r]);
        ++r;
      }
  }
  std::vector<float> out(listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) out[i] = median_of(seen[i]);
  return out;
}

}  // namespace zeroflow::classify::detail
