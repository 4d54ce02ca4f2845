// beats.csv as write_beats_csv writes it (report/beats_csv.hpp): a long run's rows, formatted by
// several threads, come out whole and in beat order, every cell the beat's own.
#include "zeroflow/report/beats_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "zeroflow/pipeline/run_types.hpp"
#include "zeroflow/report/beats_table.hpp"

namespace zr = zeroflow::report;

namespace {

/// A robust run of `n` beats whose every cell can be told from its beat index.
zeroflow::pipeline::run_result run_of(std::size_t n) {
  zeroflow::pipeline::run_result r;
  r.sample_rate = 250;
  for (std::size_t b = 0; b < n; ++b) {
    const auto i = static_cast<std::int64_t>(b);
    r.start.push_back(200 * i);
    r.peak.push_back(200 * i + 50);
    r.length.push_back(200);
    r.kept.push_back(1);
    r.split.push_back(b % 4 == 0 ? 'v' : 't');
    r.score.push_back(static_cast<float>(b) / 1024.0F);
    r.mu0.push_back(0.25F);
    r.mu1.push_back(-0.5F);
    for (auto* v : {&r.rr_before, &r.rr_after, &r.local_rr, &r.morphology, &r.rhythm}) v->push_back(0.8F);
    r.flags.push_back(b % 7 == 0 ? "early" : "");
    r.beat_class.push_back("NSVQ"[b % 4]);
    for (auto* v : {&r.similarity, &r.p_similarity, &r.prematurity, &r.p_coherence, &r.clarity}) v->push_back(0.5F);
    r.family.push_back(static_cast<std::int32_t>(b % 3));
    r.other_lead_similarity.push_back(std::nanf(""));
    r.other_lead_deviation.push_back(b % 4 == 2 ? 0.25F * static_cast<float>(b % 16) : std::nanf(""));
    r.f_wave_rate.push_back(b % 5 == 1 ? 8.0F + static_cast<float>(b % 7) : std::nanf(""));
  }
  r.episodes.push_back({"AFIB", 100, 20'099, r.peak[100], r.peak[20'099]});
  return r;
}

}  // namespace

TEST(BeatsCsv, ALongRunComesOutWholeAndInOrder) {
  const std::size_t n = 70'001;  // several formatting tasks, the last one short
  const auto r = run_of(n);
  const auto dir = std::filesystem::temp_directory_path() / ("zf_beats_csv_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  zr::write_beats_csv(r, dir / "beats.csv");
  std::ifstream in(dir / "beats.csv");
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove_all(dir);
  const auto t = zr::parse_beats_table(text.str(), "beats.csv");
  ASSERT_EQ(t.rows.size(), n);
  const auto beat = t.column("beat"), peak = t.column("peak"), score = t.column("score"), cls = t.column("class"),
             af = t.column("af"), family = t.column("family"), other = t.column("other_lead_similarity"),
             deviation = t.column("other_lead_deviation"), f_wave = t.column("f_wave_rate");
  for (std::size_t b = 0; b < n; ++b) {
    ASSERT_EQ(t.sample(b, beat), static_cast<std::int64_t>(b));
    ASSERT_EQ(t.sample(b, peak), r.peak[b]);
    ASSERT_EQ(static_cast<float>(t.number(b, score)), r.score[b]);
    ASSERT_EQ(t.rows[b][cls], std::string(1, r.beat_class[b]));
    ASSERT_EQ(t.rows[b][af], (b >= 100 && b <= 20'099) ? "1" : "0");
    ASSERT_EQ(t.sample(b, family), r.family[b]);
    ASSERT_TRUE(t.rows[b][other].empty());
    if (b % 4 == 2)
      ASSERT_EQ(static_cast<float>(t.number(b, deviation)), r.other_lead_deviation[b]);
    else
      ASSERT_TRUE(t.rows[b][deviation].empty());
    if (b % 5 == 1)
      ASSERT_EQ(static_cast<float>(t.number(b, f_wave)), r.f_wave_rate[b]);
    else
      ASSERT_TRUE(t.rows[b][f_wave].empty());
  }
}
