#pragma once
/// @file nccl_group.hpp
/// A gradient_group (population.hpp) over NCCL: one process per GPU, on one machine or several.
/// The process that starts the others makes the group's identity (new_identity) and hands it to
/// each (as text, on its command line); every process then joins with its rank. Sums and
/// broadcasts run on the GPUs (NVLink or PCIe within a machine, the network between machines)
/// and can be captured in CUDA graphs.
///
/// NCCL is loaded when a group is first made (libnccl.so.2 from the dynamic loader's path, else
/// the one this build was configured with), so a process that trains on one GPU never maps it.
#include <memory>
#include <string>

#include "zeroflow/model/population.hpp"

namespace zeroflow::model {

class nccl_group final : public gradient_group {
 public:
  /// A new group's identity: its rendezvous address, as text (hex). The process that calls it
  /// hosts the rendezvous and must live until every rank has joined.
  /// @throws error when NCCL cannot be loaded or this build has none.
  [[nodiscard]] static std::string new_identity();

  /// Joins the group `identity` as `rank` of `size` on the current CUDA device; returns once all
  /// `size` processes have joined.
  /// @throws invalid_argument for a bad rank, size or identity; error when NCCL fails.
  nccl_group(const std::string& identity, int rank, int size);
  ~nccl_group() override;
  nccl_group(const nccl_group&) = delete;
  nccl_group& operator=(const nccl_group&) = delete;

  [[nodiscard]] int rank() const override;
  [[nodiscard]] int size() const override;
  void sum(float* data, std::int64_t n, stream_view stream) override;
  void sum(double* data, std::int64_t n, stream_view stream) override;
  void broadcast(float* data, std::int64_t n, int root, stream_view stream) override;

  struct state;

 private:
  std::unique_ptr<state> state_;
};

}  // namespace zeroflow::model
