#pragma once
/// @file png_figures.hpp
/// The report's main figures as PNG files, for papers and slides (`zeroflow run --figures png`).
/// Drawn with cairo; a zeroflow built without it (zeroflow/config.hpp: ZEROFLOW_HAS_CAIRO == 0)
/// throws instead.
#include <filesystem>
#include <vector>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// @brief Writes the figures of a run as 1600×1000 PNG files into `folder` (created when missing).
///
/// The files, in this order: overview.png (whole recording as a min/max band, the most
/// anomalous beats marked), excerpt.png (signal, band-pass response and gates), lengths.png
/// (beat-length histogram with the pruning bounds), beats.png (embedded beats overlaid),
/// latent.png (latent means coloured by score, train/test markers), decoded_grid.png (beats
/// decoded from a 5×5 latent grid), anomalies.png (the most anomalous beats with time and score),
/// loss.png (training loss per epoch). A figure whose data is empty (no training: no loss; no
/// figure_data: no overview...) is skipped, and a file of that name left by an earlier run is
/// removed so that the folder never mixes runs. Each file is written atomically.
/// Amplitudes are labelled "mV" when the column's name says so (contains "mv"), else "raw units".
/// @param result the run's host results (run_result::figures holds the overview and excerpt data)
/// @param options the options of the run (the column name, for the amplitude unit)
/// @param folder where the PNG files go
/// @return the files written
/// @throws zeroflow::error naming the path when the folder or a file cannot be written, or when
///         this zeroflow was built without cairo
[[nodiscard]] std::vector<std::filesystem::path> write_png_figures(const pipeline::run_result& result,
                                                                   const pipeline::run_options& options,
                                                                   const std::filesystem::path& folder);

}  // namespace zeroflow::report
