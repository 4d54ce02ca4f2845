#include "zeroflow/report/beats_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::report {

namespace {
void put_float(std::ostream& out, float v) {
  if (std::isnan(v)) return;  // empty cell: not kept / not scored
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof text, v);  // shortest round-trip form
  out.write(text, end - text);
}
const char* split_name(char s) { return s == 't' ? "train" : s == 'v' ? "test" : "-"; }

/// 1 for each beat inside an AF episode.
std::vector<std::uint8_t> af_mask(const pipeline::run_result& r) {
  std::vector<std::uint8_t> out(r.length.size(), 0);
  for (const auto& e : r.episodes)
    for (auto b = std::max<std::int64_t>(e.first_beat, 0);
         b <= e.last_beat && b < static_cast<std::int64_t>(out.size()); ++b)
      out[static_cast<std::size_t>(b)] = 1;
  return out;
}

/// Beat c's line of beats.csv.
void put_row(std::ostream& out, const pipeline::run_result& r, std::size_t c, const std::vector<std::uint8_t>& af) {
  const bool rhythm = r.rr_before.size() == r.length.size();
  const bool classes = r.beat_class.size() == r.length.size();
  const auto at = [&](const std::vector<float>& v) { return v.size() == r.length.size() ? v[c] : std::nanf(""); };
  out << c << ',' << r.start[c] << ',' << r.peak[c] << ',' << r.length[c] << ',' << int{r.kept[c]} << ','
      << split_name(r.split[c]) << ',';
  put_float(out, r.score[c]);
  out << ',';
  put_float(out, r.mu0[c]);
  out << ',';
  put_float(out, r.mu1[c]);
  if (rhythm) {
    for (float v : {r.rr_before[c], r.rr_after[c], r.local_rr[c], r.morphology[c], r.rhythm[c]}) {
      out << ',';
      put_float(out, v);
    }
    out << ',' << r.flags[c];
  } else {
    out << ",,,,,,";
  }
  if (!classes) {
    out << ",,,,,,,,,,,\n";
    return;
  }
  out << ',' << r.beat_class[c] << ',';
  put_float(out, at(r.similarity));
  out << ',';
  put_float(out, r.prematurity[c]);
  out << ',' << int{af[c]} << ',';
  put_float(out, at(r.p_similarity));
  out << ',';
  put_float(out, at(r.p_coherence));
  out << ',';
  put_float(out, at(r.clarity));
  out << ',';
  if (r.family.size() == r.length.size()) out << r.family[c];
  out << ',';
  put_float(out, at(r.other_lead_similarity));
  out << ',';
  put_float(out, at(r.other_lead_deviation));
  out << ',';
  put_float(out, at(r.f_wave_rate));
  out << '\n';
}

/// Rows a formatting task takes: a long recording's rows are formatted by several threads.
constexpr std::size_t rows_per_task = 16384;
}  // namespace

void write_beats_csv(const pipeline::run_result& r, const std::filesystem::path& path) {
  const std::size_t n = r.length.size();
  const auto af = af_mask(r);
  std::vector<std::future<std::string>> parts;
  for (std::size_t first = 0; first < n; first += rows_per_task)
    parts.push_back(std::async(n > rows_per_task ? std::launch::async : std::launch::deferred, [&, first] {
      std::ostringstream text;
      for (std::size_t c = first; c < std::min(n, first + rows_per_task); ++c) put_row(text, r, c, af);
      return std::move(text).str();
    }));
  io::write_atomically(path, [&](std::ostream& out) {
    // The first nine columns are the outputs contract; the rhythm columns, the flags and the
    // beat's class follow (empty cells with the seed's method, which has neither).
    out << "beat,start,peak,length,kept,split,score,mu0,mu1,rr_before,rr_after,local_rr,morphology,rhythm,flags,"
           "class,similarity,prematurity,af,p_similarity,p_coherence,clarity,family,other_lead_similarity,"
           "other_lead_deviation,f_wave_rate\n";
    for (auto& part : parts) out << part.get();
  });
}

}  // namespace zeroflow::report
