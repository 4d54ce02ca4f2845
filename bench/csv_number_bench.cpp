// zeroflow_csv_number_bench: the CSV cell -> number step on the host, three ways, on the same
// cells: the host reader's (the exact float32 shortcut, then fast_float), fast_float alone, and
// the parser the GPU reader runs (csv_cuda_number.hpp, compiled for the host). The question it
// answers: can the host reader take the shared __host__ __device__ parser instead of its own
// (docs/architecture.md, "One CSV grammar")? Bytes/s is over the cells' text.
#include <benchmark/benchmark.h>
#include <fast_float/fast_float.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "io/csv/csv_cuda_number.hpp"
#include "io/csv/float32_fast_path.hpp"

namespace {

namespace num = zeroflow::io::detail::csv_number;

/// The kinds of cell the benchmark reads: the seed file's long decimals (shortest round-trip
/// text of a double), the four decimals `zeroflow generate` writes, and scientific notation.
enum class cell_shape { seed, short_decimal, scientific };

/// One text holding `count` cells, and where each starts and ends.
struct cells {
  std::string text;
  std::vector<std::uint32_t> begin, end;
};

cells make_cells(cell_shape shape, std::size_t count) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  cells c;
  char buffer[64];
  for (std::size_t i = 0; i < count; ++i) {
    const double v = value(rng);
    int n = 0;
    switch (shape) {
      case cell_shape::seed: {
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
        n = static_cast<int>(r.ptr - buffer);
        break;
      }
      case cell_shape::short_decimal:
        n = std::snprintf(buffer, sizeof buffer, "%.4f", v);
        break;
      case cell_shape::scientific:
        n = std::snprintf(buffer, sizeof buffer, "%.6e", v);
        break;
    }
    c.begin.push_back(static_cast<std::uint32_t>(c.text.size()));
    c.text.append(buffer, static_cast<std::size_t>(n));
    c.end.push_back(static_cast<std::uint32_t>(c.text.size()));
    c.text.push_back('\n');
  }
  return c;
}

constexpr std::size_t cell_count = std::size_t{1} << 16;

const cells& cells_of(cell_shape shape) {
  static const cells seed = make_cells(cell_shape::seed, cell_count);
  static const cells short_decimal = make_cells(cell_shape::short_decimal, cell_count);
  static const cells scientific = make_cells(cell_shape::scientific, cell_count);
  switch (shape) {
    case cell_shape::seed:
      return seed;
    case cell_shape::short_decimal:
      return short_decimal;
    case cell_shape::scientific:
      break;
  }
  return scientific;
}

template <class T, class Parse>
void run_cells(benchmark::State& state, Parse&& parse) {
  const cells& c = cells_of(static_cast<cell_shape>(state.range(0)));
  const char* text = c.text.data();
  std::size_t failures = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < c.begin.size(); ++i) {
      T v{};
      failures += parse(text + c.begin[i], text + c.end[i], v) ? 0 : 1;
      benchmark::DoNotOptimize(v);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * c.begin.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.text.size()));
  state.counters["not_decided"] = static_cast<double>(failures) / static_cast<double>(state.iterations());
}

/// The host reader's step (csv_scan.cpp's parse_finite): the exact float32 shortcut, then fast_float.
template <class T>
void host_reader(benchmark::State& state) {
  run_cells<T>(state, [](const char* p, const char* end, T& v) {
    if constexpr (std::is_same_v<T, float>) {
      if (zeroflow::io::detail::parse_float32_plain(p, end, v) == end) return true;
    }
    return fast_float::from_chars(p, end, v).ptr == end;
  });
}

template <class T>
void fast_float_alone(benchmark::State& state) {
  run_cells<T>(state,
               [](const char* p, const char* end, T& v) { return fast_float::from_chars(p, end, v).ptr == end; });
}

/// The GPU reader's parser on the host; `not_decided` counts the cells it hands back as undecided.
template <class T>
void shared_parser(benchmark::State& state) {
  const num::pow5_entry* table = num::host_pow5_table();
  run_cells<T>(state, [table](const char* p, const char* end, T& v) {
    typename num::float_format<T>::bits_type bits{};
    const bool ok = num::parse_float_cell<T>(p, end, table, bits) == num::cell_result::ok;
    static_assert(sizeof bits == sizeof v);
    std::memcpy(&v, &bits, sizeof v);
    return ok;
  });
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgName("shape")->Arg(0)->Arg(1)->Arg(2);  // seed, short decimal, scientific
}

BENCHMARK(host_reader<float>)->Apply(shapes);
BENCHMARK(fast_float_alone<float>)->Apply(shapes);
BENCHMARK(shared_parser<float>)->Apply(shapes);
BENCHMARK(host_reader<double>)->Apply(shapes);
BENCHMARK(fast_float_alone<double>)->Apply(shapes);
BENCHMARK(shared_parser<double>)->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
