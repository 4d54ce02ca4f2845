#pragma once
// Private to the pipeline: what `run` does differently under a device memory budget
// (run_options::max_device_memory, `zeroflow run --max-device-memory`). The recording is read to
// the host and segmented in chunks (pipeline/chunked.hpp); training takes the rows on the device
// when they fit the budget (rows are ~1 KB per beat at 250 Hz), else reads them in place from
// mapped host memory; scoring and the thumbnails run in chunks of rows; the figures' overview
// comes from the segmentation's chunks and the excerpt's band-pass from a few seconds of samples.
// Each step calls the same functions as the in-memory run on the same values, so the results are
// the same.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "beat_model.hpp"
#include "run_executor.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/memory/limiting_adaptor.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"

namespace zeroflow::pipeline::detail {

class chunked_run final : public run_executor {
 public:
  /// Puts a limiting adaptor of `budget_bytes` over the current resource of a GPU `where` (before
  /// LibTorch's allocator is routed to it, so training counts too). A host run starts its budget
  /// once the recording is loaded (recording_loaded): the recording itself lives outside it.
  /// @throws invalid_argument for a budget under min_device_budget.
  chunked_run(device where, std::int64_t budget_bytes, std::function<void(const std::string&)> progress);
  ~chunked_run() override;
  chunked_run(const chunked_run&) = delete;
  chunked_run& operator=(const chunked_run&) = delete;

  /// The host: the recording stays there, outside the budget.
  [[nodiscard]] device recording_device() const override { return cpu_device; }
  [[nodiscard]] bool whole() const override { return false; }
  /// The recording, on the host; on a host run the budget covers allocations from here on.
  void recording_loaded(const array& host_signal) override;
  /// segment_in_chunks with chunks sized to the budget left.
  [[nodiscard]] signal::segmentation segment(const signal::segment_params& params, stream_view stream) override;
  /// The rows as training takes them, on the run's device: on a GPU a copy of the host rows when
  /// they fit the budget left besides the batches' working memory, else a view of a copy of them
  /// in page-locked host memory mapped into the GPU's address space (memory/mapped_resource.hpp),
  /// which the model's kernels read in place: the same bytes and kernels, each batch read across
  /// the bus. The mapping goes with the returned array.
  /// `rows_copied_on_device`: the model makes a device copy of all rows before training (the MLP
  /// autoencoder scales them there), so rows that do not fit are refused in the user's terms.
  /// @throws out_of_memory, saying how much is needed, when the batches' working memory alone does
  ///         not fit the budget left, when the model copies the rows and they do not fit, or when
  ///         the host cannot lock the rows' memory.
  [[nodiscard]] array training_rows(const array& rows, int batch, bool rows_copied_on_device,
                                    stream_view stream) const override;
  /// Every row's score in chunks of whole scoring batches (the same batches as one call), with each
  /// row's thumbnail made on the way. score is on the run's device, mu on the host.
  [[nodiscard]] model::scores score(const beat_model& model, const array& rows, stream_view stream) override;
  /// The report's figure inputs, as collect_figures makes them in memory (from the chunks, not `seg`).
  [[nodiscard]] figure_data figures(const signal::segmentation& seg, const run_result& r,
                                    stream_view stream) const override;

 private:
  [[nodiscard]] std::int64_t free_bytes() const;
  /// training_rows for rows that do not fit: `short_by` is the device bytes they lack.
  [[nodiscard]] array mapped_rows(const array& rows, std::int64_t short_by, stream_view stream) const;

  device where_;
  std::int64_t budget_;
  std::function<void(const std::string&)> progress_;
  memory::resource_ptr host_store_;  ///< host memory outside the budget (rows, results)
  std::shared_ptr<memory::limiting_adaptor> limit_;
  memory::resource_ptr previous_;
  array signal_;
  array rows_;  ///< the segmentation's rows, on the host
  chunked_segmentation segmented_;
  std::int64_t thumb_width_ = 0;
  std::vector<float> thumbs_;
};

}  // namespace zeroflow::pipeline::detail
