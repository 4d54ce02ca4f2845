#include "zeroflow/report/beats_csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

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
bool in_af(const pipeline::run_result& r, std::size_t beat) {
  const auto b = static_cast<std::int64_t>(beat);
  for (const auto& e : r.episodes)
    if (e.first_beat <= b && b <= e.last_beat) return true;
  return false;
}
}  // namespace

void write_beats_csv(const pipeline::run_result& r, const std::filesystem::path& path) {
  io::write_atomically(path, [&](std::ostream& out) {
    // The first nine columns are the outputs contract; the rhythm columns, the flags and the
    // beat's class follow (empty cells with the seed's method, which has neither).
    out << "beat,start,peak,length,kept,split,score,mu0,mu1,rr_before,rr_after,local_rr,morphology,rhythm,flags,"
           "class,similarity,prematurity,af,p_similarity,p_coherence,clarity,family,other_lead_similarity\n";
    const bool rhythm = r.rr_before.size() == r.length.size();
    const bool classes = r.beat_class.size() == r.length.size();
    for (std::size_t c = 0; c < r.length.size(); ++c) {
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
      if (classes) {
        out << ',' << r.beat_class[c] << ',';
        put_float(out, r.similarity.empty() ? std::nanf("") : r.similarity[c]);
        out << ',';
        put_float(out, r.prematurity[c]);
        out << ',' << (in_af(r, c) ? 1 : 0) << ',';
        put_float(out, r.p_similarity.empty() ? std::nanf("") : r.p_similarity[c]);
        out << ',';
        put_float(out, r.p_coherence.empty() ? std::nanf("") : r.p_coherence[c]);
        out << ',';
        put_float(out, r.clarity.empty() ? std::nanf("") : r.clarity[c]);
        out << ',';
        if (r.family.size() == r.length.size()) out << r.family[c];
        out << ',';
        put_float(out, r.other_lead_similarity.size() == r.length.size() ? r.other_lead_similarity[c] : std::nanf(""));
        out << '\n';
      } else {
        out << ",,,,,,,,,\n";
      }
    }
  });
}

}  // namespace zeroflow::report
