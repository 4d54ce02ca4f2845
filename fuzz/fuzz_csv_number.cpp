// Fuzzes the GPU CSV parser's number core (src/io/csv/csv_cuda_number.hpp, compiled here as host
// code: the very functions the kernels run) against fast_float, which the host reader uses:
//   - every cell is classified as the host reader classifies it (csv_cells.hpp: number, empty,
//     missing, infinite, out of range, bad), "undecided" only where the host finds a number;
//   - a number the GPU core decides has fast_float's bits, and strtof's / strtod's, exactly;
//   - int64 cells: the same cells accepted, with the same values.
// The input is one cell's text (the bytes between two delimiters).
#include <fast_float/fast_float.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include "csv/csv_cells.hpp"
#include "csv/csv_cuda_number.hpp"
#include "fuzz_support.hpp"

namespace {

namespace num = zeroflow::io::detail::csv_number;
namespace host = zeroflow::io::detail;
using zeroflow::fuzz::check;

double strto(const std::string& s, double) { return std::strtod(s.c_str(), nullptr); }
float strto(const std::string& s, float) { return std::strtof(s.c_str(), nullptr); }

template <class T>
void check_float(std::string_view cell) {
  typename num::float_format<T>::bits_type mine = 0;
  const num::cell_result r =
      num::parse_float_cell<T>(cell.data(), cell.data() + cell.size(), num::host_pow5_table(), mine);
  T theirs{};
  const host::cell_status h = host::parse_float_cell(cell, theirs);
  if (r == num::cell_result::undecided) {
    check(h == host::cell_status::ok || h == host::cell_status::out_of_range,
          "the GPU core leaves a cell undecided that the host reader does not read as a number");
    return;
  }
  check(static_cast<int>(r) == static_cast<int>(h), "the GPU core classifies a cell unlike the host reader");
  if (h != host::cell_status::bad) check(mine == num::bits_of(theirs), "the GPU core's bits differ from the host's");
  if (r != num::cell_result::ok && r != num::cell_result::out_of_range) return;

  // A number: fast_float itself (after the '+' it does not take) and the C library agree.
  std::string_view digits = cell;
  if (digits.front() == '+') digits.remove_prefix(1);
  T fast{};
  const auto [end, ec] = fast_float::from_chars(digits.data(), digits.data() + digits.size(), fast);
  check(end == digits.data() + digits.size(), "fast_float stops inside a cell the GPU core reads as a number");
  check(ec == std::errc() || ec == std::errc::result_out_of_range, "fast_float refuses a number of the GPU core");
  if (ec == std::errc()) check(num::bits_of(fast) == mine, "the GPU core and fast_float give different bits");
  errno = 0;
  const T libc = strto(std::string(cell), T{});
  check(num::bits_of(libc) == mine, "the GPU core and strtof/strtod give different bits");
}

void check_int(std::string_view cell) {
  std::int64_t mine = 0, theirs = 0;
  const num::cell_result r = num::parse_int_cell(cell.data(), cell.data() + cell.size(), mine);
  const host::cell_status h = host::parse_int_cell(cell, theirs);
  check((r == num::cell_result::ok) == (h == host::cell_status::ok),
        "the GPU core and the host reader disagree on an int64 cell");
  if (h == host::cell_status::ok) check(mine == theirs, "the GPU core reads another int64 than the host reader");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view cell = zeroflow::fuzz::as_text(data, size);
  check_float<float>(cell);
  check_float<double>(cell);
  check_int(cell);
  return 0;
}
