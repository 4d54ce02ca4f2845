/// @file mlp_forward_host.cpp
/// The host loop of the MLP autoencoder's forward pass (mlp_forward.hpp): per row, the units in
/// the order one warp of the CUDA kernel computes them.
#include <vector>

#include "mlp_forward.hpp"
#include "mlp_forward_row.hpp"

namespace zeroflow::model::detail::mlp_forward {

void forward_rows_host(const weights& w, const float* x, std::int64_t begin, std::int64_t end, float* score,
                       float* recon) {
  namespace row = mlp_row;
  const std::int64_t f = w.features;
  std::vector<double> h1(static_cast<std::size_t>(w.hidden));
  std::vector<double> h2(static_cast<std::size_t>(w.code));
  std::vector<double> h3(static_cast<std::size_t>(w.hidden));
  for (std::int64_t r = begin; r < end; ++r) {
    const float* xr = x + r * f;
    for (std::int64_t j = 0; j < w.hidden; ++j)
      h1[static_cast<std::size_t>(j)] = row::relu(row::unit(w.w1 + j * f, w.b1[j], xr, f));
    for (std::int64_t j = 0; j < w.code; ++j)
      h2[static_cast<std::size_t>(j)] = row::relu(row::unit(w.w2 + j * w.hidden, w.b2[j], h1.data(), w.hidden));
    for (std::int64_t j = 0; j < w.hidden; ++j)
      h3[static_cast<std::size_t>(j)] = row::relu(row::unit(w.w3 + j * w.code, w.b3[j], h2.data(), w.code));
    double partial[row::lanes] = {};
    for (std::int64_t o = 0; o < f; ++o) {
      const double y = row::sigmoid(row::unit(w.w4 + o * w.hidden, w.b4[o], h3.data(), w.hidden));
      if (recon != nullptr) recon[r * f + o] = static_cast<float>(y);
      const double d = row::sub(y, static_cast<double>(xr[o]));
      double& p = partial[o % row::lanes];
      p = row::add(p, row::mul(d, d));
    }
    if (score != nullptr) score[r] = static_cast<float>(row::div(row::fold_lanes(partial), static_cast<double>(f)));
  }
}

}  // namespace zeroflow::model::detail::mlp_forward
