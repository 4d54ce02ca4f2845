// zeroflow.synth: synthetic ECG recordings with known beats (for examples and tests).
#include <nanobind/stl/string.h>

#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zeroflow::python {
namespace {

synth::ecg_options options_of(double hours, double sample_rate, double anomaly_rate, std::uint64_t seed,
                              double heart_rate, double noise_mv) {
  synth::ecg_options o;
  o.hours = hours;
  o.sample_rate = sample_rate;
  o.anomaly_rate = anomaly_rate;
  o.seed = seed;
  o.heart_rate_bpm = heart_rate;
  o.noise_mv = noise_mv;
  return o;
}

/// A host array that owns `values` (moved in).
template <class T>
py_array owned(std::vector<T> values, dtype type) {
  auto* held = new std::vector<T>(std::move(values));
  auto owner =
      buffer::adopt(held->data(), held->size() * sizeof(T), cpu_device, [held](void*, std::size_t) { delete held; });
  return {array(std::move(owner), type, {static_cast<std::int64_t>(held->size())}), legacy_stream};
}

}  // namespace

void bind_synth(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_generate_ecg",
      [](double hours, double sample_rate, double anomaly_rate, std::uint64_t seed, double heart_rate,
         double noise_mv) {
        synth::ecg_recording r;
        {
          nb::gil_scoped_release release;
          r = synth::generate_ecg(options_of(hours, sample_rate, anomaly_rate, seed, heart_rate, noise_mv));
        }
        std::vector<std::uint8_t> labels(r.labels.begin(), r.labels.end());
        return nb::make_tuple(owned(std::move(r.samples), float32), owned(std::move(r.r_peaks), int64),
                              owned(std::move(labels), uint8));
      },
      "hours"_a, "sample_rate"_a, "anomaly_rate"_a, "seed"_a, "heart_rate"_a, "noise_mv"_a);
  m.def(
      "_write_ecg",
      [](const std::string& path, double hours, double sample_rate, double anomaly_rate, std::uint64_t seed,
         double heart_rate, double noise_mv, int decimals) {
        nb::gil_scoped_release release;
        const auto r = synth::generate_ecg(options_of(hours, sample_rate, anomaly_rate, seed, heart_rate, noise_mv));
        synth::write_ecg_csv(r, path, decimals);
        synth::write_labels_csv(r, synth::labels_path_for(path));
        return synth::labels_path_for(path).string();
      },
      "path"_a, "hours"_a, "sample_rate"_a, "anomaly_rate"_a, "seed"_a, "heart_rate"_a, "noise_mv"_a, "decimals"_a);
}

}  // namespace zeroflow::python
