#pragma once
/// @file beats_csv.hpp
/// beats.csv, the beat table of `zeroflow run` (outputs.hpp: the output folder's contract).
#include <filesystem>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// beats.csv: `beat,start,peak,length,kept,split,score,mu0,mu1`, one row per beat candidate.
void write_beats_csv(const pipeline::run_result& r, const std::filesystem::path& path);

}  // namespace zeroflow::report
