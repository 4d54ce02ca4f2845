#include "run_executor.hpp"

#include <utility>

#include "chunked_run.hpp"
#include "figures.hpp"

namespace zeroflow::pipeline::detail {

namespace {

/// The recording, its rows and the model on the run's device, each stage one call.
class whole_run final : public run_executor {
 public:
  explicit whole_run(device where) : where_{where} {}

  [[nodiscard]] device recording_device() const override { return where_; }
  [[nodiscard]] bool whole() const override { return true; }
  void recording_loaded(const array& signal) override { signal_ = signal; }
  [[nodiscard]] signal::segmentation segment(const signal::segment_params& params, stream_view stream) override {
    return signal::segment_recording(signal_, params, stream);
  }
  [[nodiscard]] array training_rows(const array& rows, int /*batch*/, bool /*rows_copied_on_device*/,
                                    stream_view /*stream*/) const override {
    return rows;
  }
  [[nodiscard]] model::scores score(const beat_model& model, const array& rows, stream_view stream) override {
    return model.score(rows, stream);
  }
  [[nodiscard]] figure_data figures(const signal::segmentation& seg, const run_result& r,
                                    stream_view stream) const override {
    return collect_figures(signal_, seg.filtered, seg.beats.rows, r, stream);
  }

 private:
  device where_;
  array signal_;
};

}  // namespace

std::unique_ptr<run_executor> make_executor(device where, std::int64_t max_device_memory_bytes,
                                            std::function<void(const std::string&)> progress) {
  if (max_device_memory_bytes > 0)
    return std::make_unique<chunked_run>(where, max_device_memory_bytes, std::move(progress));
  return std::make_unique<whole_run>(where);
}

}  // namespace zeroflow::pipeline::detail
