#pragma once
// Private to the pipeline: how `run` carries out the stages whose work depends on whether the
// recording fits the run's device — whole (recording, rows and model on the run's device) or in
// chunks under a device memory budget (chunked_run.hpp, `--max-device-memory`). Chosen once per
// run (make_executor); every other stage is the same for both, and so are the results.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "beat_model.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::pipeline::detail {

class run_executor {
 public:
  virtual ~run_executor() = default;
  /// Where the recording is read to.
  [[nodiscard]] virtual device recording_device() const = 0;
  /// Whether the whole recording is on the run's device: then a GPU run warms its kernels up on
  /// it, and the other leads join the detection and the classes.
  [[nodiscard]] virtual bool whole() const = 0;
  /// The recording as read, kept for the stages below.
  virtual void recording_loaded(const array& signal) = 0;
  /// The recording's beats (signal::segment_recording's result).
  [[nodiscard]] virtual signal::segmentation segment(const signal::segment_params& params, stream_view stream) = 0;
  /// The rows as training takes them, on the run's device (chunked_run::training_rows).
  [[nodiscard]] virtual array training_rows(const array& rows, int batch, bool rows_copied_on_device,
                                            stream_view stream) const = 0;
  /// Every row's score and latent mean.
  [[nodiscard]] virtual model::scores score(const beat_model& model, const array& rows, stream_view stream) = 0;
  /// The report's figure inputs (figures.hpp's collect_figures), after the beat table is collected.
  [[nodiscard]] virtual figure_data figures(const signal::segmentation& seg, const run_result& r,
                                            stream_view stream) const = 0;
};

/// The whole run on `where`, or with max_device_memory_bytes > 0 the chunked one under that budget
/// (installed now: before anything of the run allocates on the device).
/// @throws invalid_argument for a budget under min_device_budget.
[[nodiscard]] std::unique_ptr<run_executor> make_executor(device where, std::int64_t max_device_memory_bytes,
                                                          std::function<void(const std::string&)> progress);

}  // namespace zeroflow::pipeline::detail
