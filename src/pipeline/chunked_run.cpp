#include "chunked_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "host_vector.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/mapped_resource.hpp"
#include "zeroflow/signal/decimate.hpp"
#include "zeroflow/signal/display.hpp"
#include "zeroflow/signal/ricker.hpp"

namespace zeroflow::pipeline::detail {

namespace {

/// Rows per batch of model::vae::score; chunks of rows are whole batches of it, so each row is
/// scored in the same company as in one call.
constexpr std::int64_t score_batch = 4096;

std::string mib(std::int64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

chunked_run::chunked_run(device where, std::int64_t budget_bytes, std::function<void(const std::string&)> progress)
    : where_{where}, budget_{budget_bytes}, progress_{std::move(progress)} {
  ZF_EXPECTS(budget_bytes >= min_device_budget, "a device memory budget (`max_device_memory`) of ", budget_bytes,
             " bytes is too small: give at least ", mib(min_device_budget), " (64M)");
  host_store_ = memory::current_resource(cpu_device);
  if (where_.type == device_type::cuda) {
    limit_ =
        std::make_shared<memory::limiting_adaptor>(memory::current_resource(where_), static_cast<std::size_t>(budget_));
    previous_ = memory::set_current_resource(limit_);
  }
}

chunked_run::~chunked_run() {
  if (previous_) memory::set_current_resource(previous_);
}

void chunked_run::recording_loaded(const array& host_signal) {
  ZF_EXPECTS(host_signal.where().host_accessible(),
             "a run with a device memory budget reads the recording to the host");
  signal_ = host_signal;
  if (where_.type != device_type::cuda && !limit_) {
    limit_ = std::make_shared<memory::limiting_adaptor>(host_store_, static_cast<std::size_t>(budget_));
    previous_ = memory::set_current_resource(limit_);
  }
}

std::int64_t chunked_run::free_bytes() const {
  return limit_ ? budget_ - static_cast<std::int64_t>(limit_->used()) : budget_;
}

signal::segmentation chunked_run::segment(const signal::segment_params& params, stream_view stream) {
  chunk_options o;
  // Half of what is left: the pool's rounding and the detector's scratch stay well inside.
  o.budget_bytes = std::max<std::int64_t>(0, free_bytes() / 2);
  o.host_store = host_store_;
  o.progress = progress_;
  segmented_ = segment_in_chunks(signal_, params, where_, o, stream);
  signal::segmentation seg = std::move(segmented_.seg);
  segmented_.seg = {};
  rows_ = seg.beats.rows;  // a view of the host rows, for the figures' full rows
  return seg;
}

array chunked_run::training_rows(const array& rows, int batch, bool rows_copied_on_device, stream_view stream) const {
  if (where_.host_accessible()) return rows;  // the host's rows are the model's (LibTorch's host memory is its own)
  const auto needed = static_cast<std::int64_t>(rows.nbytes());
  // The model's own working memory, at least: a batch's activations and gradients, some floats per
  // sample of a row (the fused kernels need less, LibTorch's modules more; past the budget the
  // limiting adaptor still stops them cleanly). Batch 0 is every row in one batch.
  const std::int64_t batch_rows = batch > 0 ? std::min<std::int64_t>(batch, rows.shape(0)) : rows.shape(0);
  const std::int64_t working = std::int64_t{16} * std::max<std::int64_t>(batch_rows, 1) * rows.shape(1) * 4;
  const std::int64_t free = free_bytes();
  // Rows can stay on the host (below); a batch's working memory cannot.
  if (working > free) {
    ZF_THROW(out_of_memory, "training needs about ", mib(working), " of device memory for its batches of ", batch_rows,
             " beats, more than the ", mib(free), " left of `max_device_memory` ", mib(budget_),
             "; give `max_device_memory`=", mib(budget_ - free + working), " or more, or a smaller `batch`");
  }
  if (needed + working <= free) return copy_to(rows, where_, stream);
  // The rows themselves and the model's scaled copy of them, both on the device.
  if (rows_copied_on_device) {
    ZF_THROW(
        out_of_memory, "`model_kind`=mlp trains on a scaled copy of the ", rows.shape(0),
        " beats' rows on the device (", mib(2 * needed), " with the rows themselves), more than the ", mib(free),
        " left of `max_device_memory` ", mib(budget_),
        "; give `max_device_memory`=", mib(budget_ - free + 2 * needed + working),
        " or more, or train the LightVAE (`model_kind`=lightvae), which reads rows that do not fit from host memory");
  }
  if (progress_)
    progress_("training reads the " + std::to_string(rows.shape(0)) + " beats' rows (" + mib(needed) +
              ") from host memory: they do not fit the " + mib(free) + " left of `max_device_memory`");
  return mapped_rows(rows, needed + working - free, stream);
}

array chunked_run::mapped_rows(const array& rows, std::int64_t short_by, stream_view stream) const {
  ZF_EXPECTS(rows.where().host_accessible(), "a run with a device memory budget keeps the rows on the host");
  const array host = rows.is_contiguous() ? rows : copy_to(rows, cpu_device, stream);
  array mapped;
  try {
    mapped = empty(host.shape(), host.type(), stream, std::make_shared<memory::mapped_resource>(where_.id));
  } catch (const out_of_memory&) {
    ZF_THROW(out_of_memory, "the beats' rows (", mib(static_cast<std::int64_t>(host.nbytes())),
             ") do not fit `max_device_memory` ", mib(budget_),
             ", and the system could not lock that much host memory for the GPU to read them from; free host "
             "memory, or give `max_device_memory`=",
             mib(budget_ + short_by), " or more");
  }
  if (host.nbytes() > 0) std::memcpy(mapped.data(), host.data(), host.nbytes());
  // The same bytes, seen from the GPU: the model's kernels read each batch's rows across the bus.
  return memory::mapped_device_view(mapped, where_);
}

model::scores chunked_run::score(const beat_model& model, const array& rows, stream_view stream) {
  const std::int64_t count = rows.shape(0), width = rows.shape(1);
  // A scoring batch's working memory per row is a few copies of it; chunks of whole batches.
  const std::int64_t per_row = 16 * width * 4;
  const std::int64_t batches = std::max<std::int64_t>(1, free_bytes() / 2 / per_row / score_batch);
  const std::int64_t chunk = batches * score_batch;
  const signal::display_sizes sizes;
  const std::int64_t k = signal::thumb_factor(count, width, sizes.thumb_budget, sizes.min_thumb_width);
  thumb_width_ = width / k;
  thumbs_.clear();
  std::vector<float> score;
  array mu;
  for (std::int64_t begin = 0; begin < count; begin += chunk) {
    const std::int64_t end = std::min(count, begin + chunk);
    const array part = copy_to(rows.slice(0, begin, end), where_, stream);
    const model::scores s = model.score(part, stream);
    const auto sc = to_host_vector<float>(s.score, stream);
    score.insert(score.end(), sc.begin(), sc.end());
    if (s.mu.valid()) {
      if (!mu.valid()) mu = empty({count, 2}, float32, stream, host_store_);
      const auto m = to_host_vector<float>(s.mu, stream);
      std::memcpy(mu.data_as<float>() + 2 * begin, m.data(), m.size() * sizeof(float));
    }
    // Thumbnails as reduce_for_display makes them: k divides the width, so no bucket straddles rows.
    const auto t = to_host_vector<float>(signal::absmax_decimate(part.reshape({part.size()}), k, stream), stream);
    thumbs_.insert(thumbs_.end(), t.begin(), t.end());
  }
  array host_score = empty({count}, float32, stream, host_store_);
  std::copy(score.begin(), score.end(), host_score.data_as<float>());
  return {copy_to(host_score, where_, stream), mu};
}

figure_data chunked_run::figures(const signal::segmentation& /*seg*/, const run_result& r, stream_view stream) const {
  figure_data f;
  f.overview_bucket = segmented_.overview_bucket;
  f.overview_min = segmented_.overview_min;
  f.overview_max = segmented_.overview_max;

  // The excerpt as reduce_for_display chooses it; its band-pass from the excerpt's samples and the
  // ricker_width - 1 before them (the recording's end, before its start: the band-pass is circular).
  const signal::display_sizes sizes;
  const std::int64_t n = signal_.size();
  const auto length = std::min<std::int64_t>(n, std::llround(sizes.excerpt_seconds * r.sample_rate));
  f.excerpt_start = signal::excerpt_start(r.start, n, length, std::llround(sizes.excerpt_lead_seconds * r.sample_rate));
  f.excerpt_signal = to_host_vector<float>(signal_.slice(0, f.excerpt_start, f.excerpt_start + length), stream);
  const std::int64_t lead = r.sizes.ricker_width - 1;
  array input = empty({lead + length}, float32, stream, host_store_);
  const auto x = signal_.span<const float>();
  for (std::int64_t i = 0; i < lead + length; ++i) {
    std::int64_t at = (f.excerpt_start - lead + i) % n;
    if (at < 0) at += n;
    input.data_as<float>()[i] = x[static_cast<std::size_t>(at)];
  }
  const array filtered = signal::bandpass(copy_to(input, where_, stream), r.sizes.ricker_width, stream);
  f.excerpt_filtered = to_host_vector<float>(filtered.slice(0, lead, lead + length), stream);

  // Every beat has a row (the robust method): row i is beat i.
  f.row_beats = signal::display_rows(r.score, sizes.top_rows, sizes.other_rows);
  const std::int64_t width = rows_.shape(1);
  for (const auto row : f.row_beats) {
    const float* values = rows_.data_as<const float>() + row * width;
    f.rows.insert(f.rows.end(), values, values + width);
  }
  f.thumb_width = thumb_width_;
  f.thumbs = thumbs_;
  return f;
}

}  // namespace zeroflow::pipeline::detail
