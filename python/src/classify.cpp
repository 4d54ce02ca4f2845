// The class rule (classify/beat_classes.hpp) on a segmentation's rows, and the AF rule on beat
// times alone (classify/af_rhythm.hpp): so that both can be judged and cross-validated from Python
// (bench/classes_cv.py, bench/af_rhythm.py) without a run per parameter.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "params.hpp"
#include "zeroflow/classify/af_rhythm.hpp"
#include "zeroflow/classify/af_strip.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/classify/f_wave.hpp"
#include "zeroflow/classify/param_names.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::python {

namespace {

// The class and AF rules' names (classify/param_names.hpp).
const auto classify_fields = [](auto& p) { return classify::param_fields(p); };

}  // namespace

void bind_classify(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_af_defaults", [] { return defaults_from<classify::af_params>(classify_fields); },
      "The AF rule's parameters (classify::af_params) with their defaults.");
  m.def(
      "_class_defaults", [] { return defaults_from<classify::class_params>(classify_fields); },
      "The class rule's parameters (classify::class_params) by dotted name, with their defaults.");
  m.def(
      "_classify_beats",
      [](const std::vector<std::int64_t>& peaks, const py_array& rows, std::int64_t window_before,
         std::int64_t window_after, double sample_rate, const nb::dict& params,
         const std::vector<py_array>& other_leads, const std::optional<py_array>& signal) {
        const auto p = params_from<classify::class_params>(params, "classify_beats", classify_fields);
        std::vector<array> others;
        for (const auto& lead : other_leads) others.push_back(lead.value);
        classify::classification c;
        {
          nb::gil_scoped_release release;
          c = classify::classify_beats(
              peaks, rows.value, window_before, window_after, sample_rate, to_stream_view(rows.stream), p,
              {.no_signal = {}, .other_leads = others, .signal = signal ? &signal->value : nullptr});
        }
        nb::dict d;
        d["classes"] = std::string(c.classes.begin(), c.classes.end());
        d["similarity"] = c.similarity;
        d["other_lead_similarity"] = c.other_lead_similarity;
        d["other_lead_deviation"] = c.other_lead_deviation;
        d["p_similarity"] = c.p_similarity;
        d["p_coherence"] = c.p_coherence;
        d["f_wave_rate"] = c.f_wave_rate;
        d["family"] = c.family;
        d["prematurity"] = c.prematurity;
        d["in_af"] = c.in_af;
        d["clarity"] = c.clarity;
        d["unreadable"] = c.unreadable;
        nb::list fast;
        for (const auto& e : c.fast_rhythm_stretches)
          fast.append(nb::make_tuple(e.first_beat, e.last_beat, e.onset, e.offset));
        d["fast_rhythm"] = fast;
        d["dominant_bound"] = c.dominant_bound;
        nb::list episodes;
        for (const auto& e : c.episodes) episodes.append(nb::make_tuple(e.first_beat, e.last_beat, e.onset, e.offset));
        d["episodes"] = episodes;
        return d;
      },
      "peaks"_a, "rows"_a, "window_before"_a, "window_after"_a, "sample_rate"_a, "params"_a, "other_leads"_a,
      "signal"_a.none(),
      "classify::classify_beats on rows (beats x width, float32, host or CUDA), the same beats' rows in the "
      "recording's other leads and the beats' own lead (or None): a dict of the classification.");
  m.def(
      "_find_af_episodes",
      [](const std::vector<std::int64_t>& peaks, double sample_rate, const std::vector<std::uint8_t>& left_out,
         const std::vector<double>& coherence, const std::vector<double>& p_similarity,
         const std::vector<double>& f_wave_rate, const nb::dict& params) {
        const auto p = params_from<classify::af_params>(params, "find_af_episodes", classify_fields);
        classify::af_rhythm r;
        {
          nb::gil_scoped_release release;
          r = classify::find_af_episodes(peaks, sample_rate, left_out, {coherence, p_similarity, f_wave_rate}, p);
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
      "peaks"_a, "sample_rate"_a, "left_out"_a, "coherence"_a, "p_similarity"_a, "f_wave_rate"_a, "params"_a,
      "classify::find_af_episodes: (irregular, in_af, episodes) from R-peak samples (and atrial measures).");
  m.def(
      "_measure_af_strip",
      [](const std::vector<std::int64_t>& peaks, double sample_rate, const std::vector<std::uint8_t>& left_out,
         const std::vector<double>& coherence, const std::vector<double>& p_similarity,
         const std::vector<double>& f_wave_rate, const nb::dict& params) -> std::optional<std::vector<double>> {
        const auto p = params_from<classify::af_params>(params, "measure_af_strip", classify_fields);
        const auto x =
            classify::measure_af_strip(peaks, sample_rate, left_out, {coherence, p_similarity, f_wave_rate}, p);
        if (!x) return std::nullopt;
        return std::vector<double>(x->begin(), x->end());
      },
      "peaks"_a, "sample_rate"_a, "left_out"_a, "coherence"_a, "p_similarity"_a, "f_wave_rate"_a, "params"_a,
      "classify::measure_af_strip: the strip's measures, or None when too few steps are measured.");
  m.def(
      "_f_wave_rates",
      [](const py_array& signal, const std::vector<std::int64_t>& peaks, double sample_rate) {
        const array& x = signal.value;
        ZF_EXPECTS(x.type() == float32 && x.ndim() == 1, "the signal must be a 1-D float32 array");
        nb::gil_scoped_release release;
        const array host = x.where().host_accessible() && x.is_contiguous()
                               ? x
                               : copy_to(x, cpu_device, to_stream_view(signal.stream));  // contiguous, readable
        return classify::f_wave_rates(host.span<const float>(), peaks, sample_rate);
      },
      "signal"_a, "peaks"_a, "sample_rate"_a, "classify::f_wave_rates: each beat's f-wave rate (NaN: not measured).");
  m.def(
      "_af_strip_prior",
      [] {
        const auto& prior = classify::default_af_strip_prior();
        nb::dict d;
        d["features"] =
            std::vector<std::string>(classify::af_strip_feature_names.begin(), classify::af_strip_feature_names.end());
        d["mean"] = std::vector<double>(prior.mean.begin(), prior.mean.end());
        d["scale"] = std::vector<double>(prior.scale.begin(), prior.scale.end());
        d["weight"] = std::vector<double>(prior.weight.begin(), prior.weight.end());
        d["bias"] = prior.bias;
        d["threshold"] = prior.threshold;
        d["p_wave_coherence_max"] = prior.p_wave_coherence_max;
        d["provenance"] = prior.provenance;
        return d;
      },
      "classify::default_af_strip_prior as a dict.");
}

}  // namespace zeroflow::python
