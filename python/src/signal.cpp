// The segmentation steps (zeroflow.signal in Python): each runs on its input's device, on the
// given stream (default: the first input's stream), after the inputs' own streams.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/min_max.hpp"
#include "zeroflow/signal/peak_filter.hpp"
#include "zeroflow/signal/qrs_detect.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::python {
namespace {

/// The stream an operation runs on; inputs produced on other streams are waited for first.
std::uintptr_t run_stream(nb::handle stream, std::initializer_list<const py_array*> inputs) {
  std::uintptr_t s = legacy_stream;
  if (!stream.is_none())
    s = stream_handle(stream);
  else if (inputs.size() != 0)
    s = (*inputs.begin())->stream;
  for (const py_array* in : inputs)
    if (in->value.where().type == device_type::cuda) stream_wait(s, in->stream, in->value.where().id);
  return s;
}

nb::dict sizes_dict(const signal::segment_sizes& s) {
  nb::dict d;
  d["ricker_width"] = s.ricker_width;
  d["nms_window"] = s.nms_window;
  d["min_length"] = s.min_length;
  d["max_length"] = s.max_length;
  d["row_width"] = s.row_width;
  return d;
}

signal::segment_params params_of(double sample_rate, double ricker_seconds, double nms_window_seconds,
                                 double min_beat_seconds, double max_beat_seconds, double min_peak_ratio) {
  signal::segment_params p;
  p.sample_rate = sample_rate;
  p.ricker_seconds = ricker_seconds;
  p.nms_window_seconds = nms_window_seconds;
  p.min_beat_seconds = min_beat_seconds;
  p.max_beat_seconds = max_beat_seconds;
  p.min_peak_ratio = min_peak_ratio;
  return p;
}

/// The windows a Python caller may set, by name, with the member of segment_params each one sets.
struct window_field {
  const char* name;
  double signal::segment_params::*member;
};
constexpr window_field window_fields[] = {
    {"sample_rate", &signal::segment_params::sample_rate},
    {"ricker_seconds", &signal::segment_params::ricker_seconds},
    {"nms_window_seconds", &signal::segment_params::nms_window_seconds},
    {"min_beat_seconds", &signal::segment_params::min_beat_seconds},
    {"max_beat_seconds", &signal::segment_params::max_beat_seconds},
    {"min_peak_ratio", &signal::segment_params::min_peak_ratio},
    {"refractory_seconds", &signal::segment_params::refractory_seconds},
    {"t_wave_seconds", &signal::segment_params::t_wave_seconds},
    {"replace_seconds", &signal::segment_params::replace_seconds},
    {"slope_seconds", &signal::segment_params::slope_seconds},
    {"learn_seconds", &signal::segment_params::learn_seconds},
    {"window_before_seconds", &signal::segment_params::window_before_seconds},
    {"window_after_seconds", &signal::segment_params::window_after_seconds},
};

signal::segmentation_method method_of(const std::string& name) {
  if (const auto method = signal::segmentation_named(name)) return *method;
  ZF_THROW(::zeroflow::invalid_argument, "unknown segmentation method '", name, "': use 'robust' or 'gate-to-gate'");
}

/// segment_params from a dict of window names (window_fields) and "method"; the rest keep their
/// defaults. An unknown name is refused rather than ignored, so a misspelt window cannot pass unnoticed.
signal::segment_params params_from(const nb::dict& windows) {
  signal::segment_params p;
  for (auto [key, value] : windows) {
    const auto name = nb::cast<std::string>(key);
    if (name == "method") {
      p.method = method_of(nb::cast<std::string>(value));
      continue;
    }
    const auto* field = std::find_if(std::begin(window_fields), std::end(window_fields),
                                     [&](const window_field& f) { return name == f.name; });
    if (field == std::end(window_fields)) {
      std::string known;
      for (const auto& f : window_fields) known += std::string(known.empty() ? "" : ", ") + f.name;
      ZF_THROW(::zeroflow::invalid_argument, "unknown segmentation parameter '", name, "'; the parameters are: ", known,
               ", method");
    }
    p.*(field->member) = nb::cast<double>(value);
  }
  return p;
}

/// The recording's median from the same strided subsample segment_recording takes, so that
/// detect_qrs here finds exactly the beats the robust segmentation finds.
float recording_center(const array& x, stream_view stream) {
  const std::int64_t stride = std::max<std::int64_t>(1, x.size() >> signal::statistics_sample_bits);
  return signal::robust_zscore(stride == 1 ? x : x.slice(0, 0, x.size(), stride), stream).center;
}

/// A py_array, or None for an intermediate the chosen method does not compute.
nb::object maybe_array(const array& a, std::uintptr_t s) { return a.valid() ? nb::cast(py_array{a, s}) : nb::none(); }

/// A py_array result on stream `s`, computed with the GIL released.
template <class F>
py_array compute(std::uintptr_t s, F&& f) {
  nb::gil_scoped_release release;
  return {f(to_stream_view(s)), s};
}

}  // namespace

void bind_signal(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<signal::normalization>(m, "Normalization", "Rows are (x - center) / scale (robust z-score).")
      .def(nb::init<>())
      .def(nb::new_([](float center, float scale) {
             return signal::normalization{center, scale};
           }),
           "center"_a, "scale"_a)
      .def_rw("center", &signal::normalization::center)
      .def_rw("scale", &signal::normalization::scale)
      .def("__repr__", [](const signal::normalization& n) {
        return "Normalization(center=" + std::to_string(n.center) + ", scale=" + std::to_string(n.scale) + ")";
      });

  m.def(
      "_segment_defaults",
      []() {
        const signal::segment_params p;
        nb::dict d;
        for (const auto& f : window_fields) d[f.name] = p.*(f.member);
        return d;
      },
      "The segmentation parameters' defaults (signal::segment_params), in seconds.");
  m.def(
      "_segment_sizes",
      [](double rate, double ricker, double nms, double min_beat, double max_beat, double ratio) {
        return sizes_dict(signal::sizes_for(params_of(rate, ricker, nms, min_beat, max_beat, ratio)));
      },
      "sample_rate"_a, "ricker_seconds"_a, "nms_window_seconds"_a, "min_beat_seconds"_a, "max_beat_seconds"_a,
      "min_peak_ratio"_a);
  m.def(
      "_ricker_kernel",
      [](std::int64_t width, nb::handle device, nb::handle stream) {
        const auto s = stream_handle(stream);
        const auto where = parse_device(device);
        return compute(s, [&](stream_view v) { return signal::ricker_kernel(width, where, v); });
      },
      "width"_a, "device"_a.none(), "stream"_a.none());
  m.def(
      "_bandpass",
      [](const py_array& x, std::int64_t width, nb::handle stream) {
        return compute(run_stream(stream, {&x}), [&](stream_view v) { return signal::bandpass(x.value, width, v); });
      },
      "signal"_a, "ricker_width"_a, "stream"_a.none());
  m.def(
      "_nms_gate",
      [](const py_array& x, std::int64_t window, nb::handle stream) {
        return compute(run_stream(stream, {&x}), [&](stream_view v) { return signal::nms_gate(x.value, window, v); });
      },
      "filtered"_a, "window"_a, "stream"_a.none());
  m.def(
      "_gate_positions",
      [](const py_array& g, nb::handle stream) {
        return compute(run_stream(stream, {&g}), [&](stream_view v) { return signal::gate_positions(g.value, v); });
      },
      "gate"_a, "stream"_a.none());
  m.def(
      "_beat_lengths",
      [](const py_array& p, nb::handle stream) {
        return compute(run_stream(stream, {&p}), [&](stream_view v) { return signal::beat_lengths(p.value, v); });
      },
      "positions"_a, "stream"_a.none());
  m.def(
      "_length_histogram",
      [](const py_array& l, std::int64_t bins, nb::handle stream) {
        return compute(run_stream(stream, {&l}),
                       [&](stream_view v) { return signal::length_histogram(l.value, bins, v); });
      },
      "lengths"_a, "bins"_a, "stream"_a.none());
  m.def(
      "_locate_peaks",
      [](const py_array& x, const py_array& p, std::int64_t nms_window, std::int64_t ricker_width, float center,
         nb::handle stream) {
        return compute(run_stream(stream, {&x, &p}), [&](stream_view v) {
          return signal::locate_peaks(x.value, p.value, nms_window, ricker_width, center, v);
        });
      },
      "signal"_a, "positions"_a, "nms_window"_a, "ricker_width"_a, "center"_a, "stream"_a.none());
  m.def(
      "_drop_weak_peaks",
      [](const py_array& f, const py_array& p, std::int64_t nms_window, double ratio, float baseline,
         nb::handle stream) {
        return compute(run_stream(stream, {&f, &p}), [&](stream_view v) {
          return signal::drop_weak_peaks(f.value, p.value, nms_window, ratio, baseline, v);
        });
      },
      "filtered"_a, "positions"_a, "nms_window"_a, "ratio"_a, "baseline"_a, "stream"_a.none());
  m.def(
      "_robust_zscore",
      [](const py_array& x, nb::handle stream) {
        const auto s = run_stream(stream, {&x});
        nb::gil_scoped_release release;
        return signal::robust_zscore(x.value, to_stream_view(s));
      },
      "signal"_a, "stream"_a.none());
  m.def(
      "_embed_beats",
      [](const py_array& x, const py_array& p, const py_array& l, std::int64_t min_length, std::int64_t max_length,
         std::int64_t row_width, signal::normalization norm, nb::handle stream) {
        const auto s = run_stream(stream, {&x, &p, &l});
        signal::embedding e;
        {
          nb::gil_scoped_release release;
          e = signal::embed_beats(x.value, p.value, l.value, min_length, max_length, row_width, norm,
                                  to_stream_view(s));
        }
        return nb::make_tuple(py_array{e.rows, s}, py_array{e.kept, s}, py_array{e.kept_index, s});
      },
      "signal"_a, "positions"_a, "lengths"_a, "min_length"_a, "max_length"_a, "row_width"_a, "norm"_a,
      "stream"_a.none());
  m.def(
      "_embed_windows",
      [](const py_array& x, const py_array& p, std::int64_t before, std::int64_t after, std::int64_t row_width,
         signal::normalization norm, nb::handle stream) {
        const auto s = run_stream(stream, {&x, &p});
        array rows;
        {
          nb::gil_scoped_release release;
          rows = signal::embed_windows(x.value, p.value, before, after, row_width, norm, to_stream_view(s));
        }
        return py_array{rows, s};
      },
      "signal"_a, "peaks"_a, "before"_a, "after"_a, "row_width"_a, "norm"_a, "stream"_a.none());
  m.def(
      "_segment_beats",
      [](const py_array& x, const nb::dict& windows, nb::handle stream) {
        const auto params = params_from(windows);
        const auto s = run_stream(stream, {&x});
        signal::segmentation r;
        {
          nb::gil_scoped_release release;
          r = signal::segment_recording(x.value, params, to_stream_view(s));
        }
        nb::dict d;
        d["sizes"] = sizes_dict(r.sizes);
        d["filtered"] = py_array{r.filtered, s};
        d["gate"] = maybe_array(r.gate, s);
        d["positions"] = py_array{r.positions, s};
        d["lengths"] = py_array{r.lengths, s};
        d["histogram"] = py_array{r.histogram, s};
        d["peaks"] = py_array{r.peaks, s};
        d["norm"] = r.norm;
        d["rows"] = py_array{r.beats.rows, s};
        d["kept"] = maybe_array(r.beats.kept, s);
        d["kept_index"] = maybe_array(r.beats.kept_index, s);
        d["rr_before"] = maybe_array(r.rr.rr_before, s);
        d["rr_after"] = maybe_array(r.rr.rr_after, s);
        d["local_rr"] = maybe_array(r.rr.local_rr, s);
        d["irregularity"] = maybe_array(r.rr.irregularity, s);
        return d;
      },
      "signal"_a, "windows"_a, "stream"_a.none(),
      "segment_recording with the windows (and method) named in `windows`; intermediates the method does not "
      "compute are None.");
  m.def(
      "_detect_qrs",
      [](const py_array& x, const nb::dict& windows, std::optional<float> center, nb::handle stream) {
        const auto params = params_from(windows);
        return compute(run_stream(stream, {&x}), [&](stream_view v) {
          return signal::detect_qrs(x.value, params, center ? *center : recording_center(x.value, v), v).peaks;
        });
      },
      "signal"_a, "windows"_a, "center"_a.none(), "stream"_a.none(),
      "signal::detect_qrs's R peaks (int64); center None takes the recording's median as segment_recording does.");
  m.def(
      "_min_max_fit",
      [](const py_array& x, double lo, double hi, nb::handle stream) {
        const auto s = run_stream(stream, {&x});
        signal::min_max_scaling r;
        {
          nb::gil_scoped_release release;
          r = signal::min_max_fit(x.value, {lo, hi}, to_stream_view(s));
        }
        return nb::make_tuple(py_array{r.data_min, s}, py_array{r.data_max, s}, py_array{r.data_range, s},
                              py_array{r.scale, s}, py_array{r.offset, s});
      },
      "x"_a, "lo"_a, "hi"_a, "stream"_a.none(),
      "signal::min_max_fit: (data_min, data_max, data_range, scale, offset), per column, on x's device.");
  m.def(
      "_min_max_transform",
      [](const py_array& x, const py_array& scale, const py_array& offset,
         std::optional<std::pair<double, double>> clip, nb::handle stream) {
        std::optional<signal::feature_range> range;
        if (clip) range = signal::feature_range{clip->first, clip->second};
        return compute(run_stream(stream, {&x, &scale, &offset}), [&](stream_view v) {
          return signal::min_max_transform(x.value, scale.value, offset.value, range, v);
        });
      },
      "x"_a, "scale"_a, "offset"_a, "clip"_a.none(), "stream"_a.none(),
      "signal::min_max_transform: x * scale + offset.");
  m.def(
      "_min_max_inverse",
      [](const py_array& y, const py_array& scale, const py_array& offset, nb::handle stream) {
        return compute(run_stream(stream, {&y, &scale, &offset}),
                       [&](stream_view v) { return signal::min_max_inverse(y.value, scale.value, offset.value, v); });
      },
      "y"_a, "scale"_a, "offset"_a, "stream"_a.none(), "signal::min_max_inverse: (y - offset) / scale.");
  m.def(
      "_device_to_host_transfers",
      []() {
        const auto c = device_to_host_transfers();
        return nb::make_tuple(c.copies, c.bytes, c.largest);
      },
      "zeroflow's own device-to-host copies since the process started: (copies, bytes, largest).");
}

}  // namespace zeroflow::python
