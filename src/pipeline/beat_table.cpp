#include "beat_table.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "host_vector.hpp"

namespace zeroflow::pipeline::detail {

namespace {

/// Why a beat stands out, for a person reading beats.csv: each part of its score that is high,
/// and R–R intervals outside the seed's length bounds.
std::string flags_of(const run_result& r, std::size_t b) {
  std::string flags;
  auto add = [&](const char* f) { flags += flags.empty() ? f : std::string(";") + f; };
  constexpr float notable = 3.0F;  // robust z-scores: three (robust) standard deviations
  if (r.rr_before[b] < 0.85F * r.local_rr[b]) add("early");
  if (r.rr_after[b] > 1.15F * r.rr_before[b] && r.rr_after[b] > 1.1F * r.local_rr[b]) add("pause");
  if (r.rhythm[b] > notable) add("rhythm");
  if (r.morphology[b] > notable) add("shape");
  const double rate = r.sample_rate;
  if (r.rr_after[b] * rate > static_cast<double>(r.sizes.max_length)) add("long");
  if (r.rr_after[b] * rate < static_cast<double>(r.sizes.min_length)) add("short");
  return flags;
}

/// Each row's 2-D latent mean, row after row; NaN for a model without one (the MLP autoencoder).
std::vector<float> latent_means(const model::scores& scored, std::size_t rows, stream_view stream) {
  if (!scored.mu.valid()) return std::vector<float>(2 * rows, std::numeric_limits<float>::quiet_NaN());
  return to_host_vector<float>(scored.mu, stream);
}

/// Marks row `beat_of(row)` of every training row 't' and of every test row 'v'.
template <class BeatOf>
void mark_split(const model::train_result& trained, BeatOf beat_of, std::vector<char>& split, stream_view stream) {
  for (const auto row : to_host_vector<std::int64_t>(trained.train_index, stream)) split[beat_of(row)] = 't';
  for (const auto row : to_host_vector<std::int64_t>(trained.test_index, stream)) split[beat_of(row)] = 'v';
}

/// The robust method: every detected beat has a row, a score and rhythm features.
class heartbeat_table final : public beat_table {
 public:
  [[nodiscard]] bool heartbeats() const override { return true; }
  [[nodiscard]] std::string found(const signal::segmentation& seg) const override {
    return "found " + std::to_string(seg.beats.rows.valid() ? seg.beats.rows.shape(0) : 0) + " beats";
  }
  [[nodiscard]] const char* too_few() const override { return " beats were found"; }

  void collect(const signal::segmentation& seg, const scored_beats& scored, const signal::beat_scores& ranked,
               run_result& result, stream_view stream) const override {
    result.peak = to_host_vector<std::int64_t>(seg.peaks, stream);
    result.detected_peaks = result.peak;
    const std::size_t beats = result.peak.size();
    result.start.resize(beats);
    for (std::size_t b = 0; b < beats; ++b)
      result.start[b] = std::max<std::int64_t>(0, result.peak[b] - seg.sizes.window_before);
    const auto intervals = to_host_vector<std::int64_t>(seg.lengths, stream);
    result.length.assign(beats, 0);
    for (std::size_t b = 0; b < beats; ++b)
      result.length[b] = b < intervals.size() ? intervals[b] : (b > 0 ? intervals[b - 1] : 0);
    result.kept.assign(beats, 1);
    result.histogram = to_host_vector<std::int64_t>(seg.histogram, stream);
    result.score = to_host_vector<float>(ranked.score, stream);
    result.morphology = to_host_vector<float>(ranked.morphology, stream);
    result.rhythm = to_host_vector<float>(ranked.rhythm, stream);
    result.rr_before = to_host_vector<float>(seg.rr.rr_before, stream);
    result.rr_after = to_host_vector<float>(seg.rr.rr_after, stream);
    result.local_rr = to_host_vector<float>(seg.rr.local_rr, stream);
    const auto mu = latent_means(scored.scores, beats, stream);
    result.mu0.resize(beats);
    result.mu1.resize(beats);
    for (std::size_t b = 0; b < beats; ++b) result.mu0[b] = mu[2 * b], result.mu1[b] = mu[2 * b + 1];
    result.decoded_grid = to_host_vector<float>(scored.decoded_grid, stream);
    result.split.assign(beats, '-');
    if (result.trained)
      mark_split(
          scored.training, [](std::int64_t row) { return static_cast<std::size_t>(row); }, result.split, stream);
    result.flags.resize(beats);
    for (std::size_t b = 0; b < beats; ++b) result.flags[b] = flags_of(result, b);
  }
};

/// The seed documents' gate-to-gate method: beat candidates, those kept by the length bounds
/// scored; the others have NaN scores and latent means.
class candidate_table final : public beat_table {
 public:
  [[nodiscard]] bool heartbeats() const override { return false; }
  [[nodiscard]] std::string found(const signal::segmentation& seg) const override {
    return "found " + std::to_string(seg.lengths.size()) + " beat candidates, kept " +
           std::to_string(seg.beats.rows.valid() ? seg.beats.rows.shape(0) : 0);
  }
  [[nodiscard]] const char* too_few() const override { return " beats survived pruning"; }

  void collect(const signal::segmentation& seg, const scored_beats& scored, const signal::beat_scores& /*ranked*/,
               run_result& result, stream_view stream) const override {
    result.start = to_host_vector<std::int64_t>(seg.positions, stream);
    result.peak = to_host_vector<std::int64_t>(seg.peaks, stream);
    result.detected_peaks = result.peak;
    const auto lengths = to_host_vector<std::int64_t>(seg.lengths, stream);
    const auto candidates = lengths.size();
    result.start.resize(candidates);
    result.peak.resize(candidates);
    result.length = lengths;
    result.kept = to_host_vector<std::uint8_t>(seg.beats.kept, stream);
    result.histogram = to_host_vector<std::int64_t>(seg.histogram, stream);
    const auto kept_index = to_host_vector<std::int64_t>(seg.beats.kept_index, stream);
    const auto score = to_host_vector<float>(scored.scores.score, stream);
    const auto mu = latent_means(scored.scores, kept_index.size(), stream);
    result.decoded_grid = to_host_vector<float>(scored.decoded_grid, stream);
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    result.score.assign(candidates, nan);
    result.mu0.assign(candidates, nan);
    result.mu1.assign(candidates, nan);
    result.split.assign(candidates, '-');
    for (std::size_t row = 0; row < kept_index.size(); ++row) {
      const auto c = static_cast<std::size_t>(kept_index[row]);
      result.score[c] = score[row];
      result.mu0[c] = mu[2 * row];
      result.mu1[c] = mu[2 * row + 1];
    }
    if (result.trained)
      mark_split(
          scored.training,
          [&](std::int64_t row) { return static_cast<std::size_t>(kept_index[static_cast<std::size_t>(row)]); },
          result.split, stream);
  }
};

}  // namespace

std::unique_ptr<beat_table> beat_table_for(signal::segmentation_method method) {
  if (method == signal::segmentation_method::robust) return std::make_unique<heartbeat_table>();
  return std::make_unique<candidate_table>();
}

}  // namespace zeroflow::pipeline::detail
