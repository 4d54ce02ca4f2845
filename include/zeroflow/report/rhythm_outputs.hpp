#pragma once
/// @file rhythm_outputs.hpp
/// beats.atr and episodes.csv: the classes and AF episodes of `zeroflow run` for other tools
/// (outputs.hpp: the output folder's contract).
#include <filesystem>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// beats.atr: a WFDB annotation file (MIT format) with each beat's class as its MIT code (N, S,
/// V, Q), its score as the annotation's text, and rhythm changes as `+` annotations with the
/// texts "(AFIB" at the first beat of an AF episode and "(N" at the first beat and after each
/// episode. Only for runs with classes (the robust segmentation).
void write_beats_atr(const pipeline::run_result& r, const std::filesystem::path& path);
/// episodes.csv: `rhythm,onset,offset,onset_seconds,offset_seconds,duration_seconds,first_beat,
/// last_beat,beats`, one row per AF episode (onset and offset: R peaks of its first and last beat).
void write_episodes_csv(const pipeline::run_result& r, const std::filesystem::path& path);

}  // namespace zeroflow::report
