// beats.atr (the classes and rhythm changes as a WFDB annotation file) and episodes.csv.
#include "zeroflow/report/rhythm_outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/wfdb_annotation_writer.hpp"

namespace zeroflow::report {

namespace {
std::string score_text(float score) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", static_cast<double>(score));
  return text;
}
}  // namespace

void write_beats_atr(const pipeline::run_result& r, const std::filesystem::path& path) {
  std::vector<io::annotation> out;
  out.reserve(r.peak.size() + 2 * r.episodes.size() + 2);
  // The annotations' time unit, as WFDB states it (rdann and wfdb-python read it as the file's fs).
  char resolution[64];
  std::snprintf(resolution, sizeof resolution, "## time resolution: %.12g", r.sample_rate);
  out.push_back({0, io::annotation_code::note, resolution});
  auto episode = r.episodes.begin();
  auto unreadable = r.unreadable.begin();
  bool af = false;
  for (std::size_t b = 0; b < r.peak.size(); ++b) {
    const auto beat = static_cast<std::int64_t>(b);
    // Signal quality as WFDB marks it: `~` where a stretch without readable ECG starts (its median
    // clarity in the text) and where readable ECG resumes.
    if (unreadable != r.unreadable.end() && unreadable->first_beat == beat) {
      double median = 0;
      if (static_cast<std::size_t>(unreadable->last_beat) < r.clarity.size()) {
        std::vector<float> values(r.clarity.begin() + unreadable->first_beat,
                                  r.clarity.begin() + unreadable->last_beat + 1);
        const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
        std::nth_element(values.begin(), middle, values.end());
        median = *middle;
      }
      char text[64];
      std::snprintf(text, sizeof text, "unreadable (clarity %.3g)", median);
      out.push_back({r.peak[b], io::annotation_code::noise, text});
    } else if (unreadable != r.unreadable.end() && unreadable->last_beat + 1 == beat) {
      out.push_back({r.peak[b], io::annotation_code::noise, "readable"});
      ++unreadable;  // stretches are apart: the next starts at a later beat
    }
    // A rhythm change goes just before the beat it starts with (same sample, written first).
    if (!af && episode != r.episodes.end() && episode->first_beat == beat) {
      out.push_back({r.peak[b], io::annotation_code::rhythm, "(AFIB"});
      af = true;
    } else if (b == 0 || (af && episode != r.episodes.end() && episode->last_beat + 1 == beat)) {
      out.push_back({r.peak[b], io::annotation_code::rhythm, "(N"});
      if (af) ++episode, af = false;
    }
    out.push_back({r.peak[b], io::annotation_code_of_class(r.beat_class[b]), score_text(r.score[b])});
  }
  io::write_wfdb_annotations(path, out);
}

void write_episodes_csv(const pipeline::run_result& r, const std::filesystem::path& path) {
  io::write_atomically(path, [&](std::ostream& out) {
    out << "rhythm,onset,offset,onset_seconds,offset_seconds,duration_seconds,first_beat,last_beat,beats\n";
    for (const auto& e : r.episodes) {
      char line[256];
      std::snprintf(line, sizeof line, "%s,%lld,%lld,%.3f,%.3f,%.3f,%lld,%lld,%lld\n", e.rhythm.c_str(),
                    static_cast<long long>(e.onset), static_cast<long long>(e.offset),
                    static_cast<double>(e.onset) / r.sample_rate, static_cast<double>(e.offset) / r.sample_rate,
                    static_cast<double>(e.offset - e.onset) / r.sample_rate, static_cast<long long>(e.first_beat),
                    static_cast<long long>(e.last_beat), static_cast<long long>(e.last_beat - e.first_beat + 1));
      out << line;
    }
  });
}

}  // namespace zeroflow::report
