#pragma once
// Artefacts added to a synthetic recording after its beats and noise: muscle-noise bursts and
// baseline jumps, each annotated in the recording.
#include "zeroflow/synth/ecg.hpp"

namespace zeroflow::synth::detail {

/// Adds noise bursts at o.noise_bursts_per_hour to rec.samples and appends their intervals to
/// rec.artefacts. `r_amp` is the R-wave amplitude (mV) the burst size is relative to.
void add_noise_bursts(ecg_recording& rec, const ecg_options& o, double r_amp);

/// Adds baseline jumps at o.baseline_jumps_per_hour to rec.samples and appends their intervals
/// to rec.artefacts.
void add_baseline_jumps(ecg_recording& rec, const ecg_options& o);

}  // namespace zeroflow::synth::detail
