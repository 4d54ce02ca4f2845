// Reads one column of a CSV recording with zeroflow's reader and finds its heartbeats with the
// robust segmentation, on the CPU: the smallest program built against an installed zeroflow.
//   count_beats FILE.csv [COLUMN] [SAMPLE_RATE]
// Prints "beats N" and then "peak SAMPLE" for every detected R peak.
#include <cstdio>
#include <exception>
#include <string>

#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/signal/segment.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: count_beats FILE.csv [COLUMN] [SAMPLE_RATE]\n");
    return 2;
  }
  try {
    zeroflow::io::csv_options options;
    options.columns = {argc > 2 ? zeroflow::io::column_ref(std::string(argv[2])) : zeroflow::io::column_ref(0)};
    const zeroflow::table recording = zeroflow::io::read_csv(argv[1], options);

    zeroflow::signal::segment_params params;
    if (argc > 3) params.sample_rate = std::stod(argv[3]);
    const auto segments =
        zeroflow::signal::segment_recording(recording.column(std::size_t{0}), params, zeroflow::stream_view{});

    const auto peaks = segments.peaks.span<const std::int64_t>();
    std::printf("beats %zu\n", peaks.size());
    for (const std::int64_t p : peaks) std::printf("peak %lld\n", static_cast<long long>(p));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "count_beats: %s\n", e.what());
    return 1;
  }
}
