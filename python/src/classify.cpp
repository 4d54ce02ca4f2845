// The AF rule on beat times alone (classify/af_rhythm.hpp), so that it can be judged on beat
// annotations such as the AF Database's and swept by bench/af_rhythm.py.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"
#include "zeroflow/classify/af_rhythm.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::python {

namespace {

struct af_field {
  const char* name;
  double classify::af_params::*real = nullptr;
  std::int64_t classify::af_params::*count = nullptr;
};

constexpr af_field af_fields[] = {
    {"window_beats", nullptr, &classify::af_params::window_beats},
    {"irregular_step_log_ratio", &classify::af_params::irregular_step_log_ratio, nullptr},
    {"irregular_share", &classify::af_params::irregular_share, nullptr},
    {"local_rhythm_beats", nullptr, &classify::af_params::local_rhythm_beats},
    {"ectopic_early_ratio", &classify::af_params::ectopic_early_ratio, nullptr},
    {"ectopic_pause_ratio", &classify::af_params::ectopic_pause_ratio, nullptr},
    {"p_wave_coherence_max", &classify::af_params::p_wave_coherence_max, nullptr},
    {"bridge_gap_seconds", &classify::af_params::bridge_gap_seconds, nullptr},
    {"min_episode_beats", nullptr, &classify::af_params::min_episode_beats},
};

classify::af_params af_params_of(const nb::dict& given) {
  classify::af_params p;
  for (const auto& [key, value] : given) {
    const auto name = nb::cast<std::string>(key);
    const af_field* field = nullptr;
    for (const auto& f : af_fields)
      if (name == f.name) field = &f;
    if (field == nullptr)
      throw nb::type_error(("find_af_episodes() got an unexpected parameter '" + name + "'").c_str());
    if (field->real != nullptr)
      p.*(field->real) = nb::cast<double>(value);
    else
      p.*(field->count) = nb::cast<std::int64_t>(value);
  }
  return p;
}

}  // namespace

void bind_classify(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_af_defaults",
      []() {
        const classify::af_params p;
        nb::dict d;
        for (const auto& f : af_fields) {
          if (f.real != nullptr)
            d[f.name] = p.*(f.real);
          else
            d[f.name] = p.*(f.count);
        }
        return d;
      },
      "The AF rule's parameters (classify::af_params) with their defaults.");
  m.def(
      "_find_af_episodes",
      [](const std::vector<std::int64_t>& peaks, double sample_rate, const std::vector<std::uint8_t>& left_out,
         const std::vector<double>& coherence, const nb::dict& params) {
        const auto p = af_params_of(params);
        classify::af_rhythm r;
        {
          nb::gil_scoped_release release;
          r = classify::find_af_episodes(peaks, sample_rate, left_out, coherence, p);
        }
        nb::list episodes;
        for (const auto& e : r.episodes) {
          nb::dict d;
          d["rhythm"] = e.rhythm;
          d["first_beat"] = e.first_beat;
          d["last_beat"] = e.last_beat;
          d["onset"] = e.onset;
          d["offset"] = e.offset;
          episodes.append(d);
        }
        return nb::make_tuple(r.irregular, r.in_af, episodes);
      },
      "peaks"_a, "sample_rate"_a, "left_out"_a, "coherence"_a, "params"_a,
      "classify::find_af_episodes: (irregular, in_af, episodes) from R-peak samples (and P-wave coherences).");
}

}  // namespace zeroflow::python
