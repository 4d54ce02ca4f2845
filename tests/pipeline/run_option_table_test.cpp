// The table of run options (pipeline/run_option_table.hpp): its defaults are run_options' own, every
// value it accepts lands in the options, its refusals name the option in the library's spelling,
// and spell_options puts that into each front's.
#include "zeroflow/pipeline/run_option_table.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"

namespace pl = zeroflow::pipeline;
using zeroflow::test::message_of;

TEST(RunOptionTable, DefaultsAreThoseOfRunOptions) {
  const pl::run_options defaults;
  for (const auto& o : pl::run_option_table()) {
    ASSERT_NE(o.apply, nullptr) << o.name;
    ASSERT_NE(o.value, nullptr) << o.name;
    EXPECT_EQ(o.value(defaults), o.default_text) << o.name;
    EXPECT_FALSE(o.help.empty()) << o.name;
  }
}

TEST(RunOptionTable, NamesAndFlagsAreUniqueAndFlagsFollowTheNames) {
  std::set<std::string> names, run_flags, score_flags;
  for (const auto& o : pl::run_option_table()) {
    EXPECT_TRUE(names.insert(std::string(o.name)).second) << o.name;
    const std::string flag = pl::option_flag(o);
    if (o.use == pl::option_use::library) {
      EXPECT_EQ(flag, "") << o.name;
      continue;
    }
    std::string dashed(o.name);
    for (char& c : dashed)
      if (c == '_') c = '-';
    EXPECT_EQ(flag, "--" + dashed) << o.name;
    if (o.use != pl::option_use::scoring) {
      EXPECT_TRUE(run_flags.insert(flag).second) << flag;
    }
    if (o.use != pl::option_use::training) {
      EXPECT_TRUE(score_flags.insert(flag).second) << flag;
    }
  }
}

TEST(RunOptionTable, EveryDefaultPassesItsOwnCheck) {
  for (const auto& o : pl::run_option_table()) {
    if (!o.default_text.empty()) {
      EXPECT_NO_THROW(pl::check_option_text(o, o.default_text)) << o.name;
    }
  }
}

TEST(RunOptionTable, GivenValuesLandInTheOptions) {
  const auto o = pl::make_run_options({{"sample_rate", "360"},
                                       {"lead", "V1"},
                                       {"segmentation", "seed"},
                                       {"normalize", "none"},
                                       {"max_beat_seconds", "1.5"},
                                       {"channels", "3"},
                                       {"io", "posix"},
                                       {"allow_outside_record", "true"},
                                       {"seed", "18446744073709551615"},
                                       {"refractory_seconds", "0.25"}});
  EXPECT_EQ(o.segmentation.sample_rate, 360);
  EXPECT_TRUE(o.sample_rate_explicit);
  EXPECT_EQ(o.lead, "V1");
  EXPECT_EQ(o.segmentation.method, zeroflow::signal::segmentation_method::gate_to_gate);
  EXPECT_FALSE(o.segmentation.normalize_rows);
  EXPECT_EQ(o.segmentation.max_beat_seconds, 1.5);
  EXPECT_EQ(o.raw.channels, 3U);
  EXPECT_EQ(o.io, zeroflow::io::io_method::posix);
  EXPECT_EQ(o.record_files, zeroflow::io::record_files::anywhere);
  EXPECT_EQ(o.seed, 18446744073709551615ULL);
  EXPECT_EQ(o.segmentation.refractory_seconds, 0.25);
  // A value read back is the value given.
  EXPECT_EQ(pl::run_option("max_beat_seconds").value(o), "1.5");
  EXPECT_EQ(pl::run_option("max_device_memory").value(pl::make_run_options({{"max_device_memory", "2G"}})),
            std::to_string(std::int64_t{2} << 30));
}

TEST(RunOptionTable, TheMlpTrainsAsItsNotebookUnlessToldOtherwise) {
  const auto mlp = pl::make_run_options({{"model_kind", "mlp"}});
  EXPECT_EQ(mlp.epochs, pl::mlp_default_epochs);
  EXPECT_EQ(mlp.batch, 0);
  const auto told = pl::make_run_options({{"model_kind", "mlp"}, {"epochs", "7"}, {"batch", "64"}});
  EXPECT_EQ(told.epochs, 7);
  EXPECT_EQ(told.batch, 64);
  const auto vae = pl::make_run_options({});
  EXPECT_EQ(vae.epochs, 30);
  EXPECT_EQ(vae.batch, 1024);
}

TEST(RunOptionTable, RefusalsNameTheOptionAndTheValue) {
  const auto rate = message_of([] { (void)pl::make_run_options({{"sample_rate", "20"}}); });
  EXPECT_EQ(rate, "`sample_rate`=20: 20 is not in [50, 100000] Hz");
  const auto beat = message_of([] { (void)pl::make_run_options({{"max_beat_seconds", "1024"}}); });
  EXPECT_NE(beat.find("did you mean 1.024 (1024 ms)?"), std::string::npos) << beat;
  const auto budget = message_of([] { (void)pl::make_run_options({{"max_device_memory", "1M"}}); });
  EXPECT_NE(budget.find("under the 64M a run needs"), std::string::npos) << budget;
  const auto unknown = message_of([] { (void)pl::make_run_options({{"sample_rates", "250"}}); });
  EXPECT_NE(unknown.find("'sample_rates' is no option of a run"), std::string::npos) << unknown;
  const auto monai = message_of([] { (void)pl::make_run_options({{"model_kind", "monai"}}); });
  EXPECT_NE(monai.find("Python only"), std::string::npos) << monai;
  for (const auto* bad : {"x", "-1", "1.5", ""})
    EXPECT_THROW((void)pl::make_run_options({{"epochs", bad}}), zeroflow::invalid_argument) << bad;
  EXPECT_THROW((void)pl::make_run_options({{"seed", "-1"}}), zeroflow::invalid_argument);
  EXPECT_THROW((void)pl::make_run_options({{"device", "gpu0"}}), zeroflow::invalid_argument);
  EXPECT_THROW((void)pl::make_run_options({{"allow_outside_record", "maybe"}}), zeroflow::invalid_argument);
}

// Each end of a range is open or closed as the entry says: a gain or a window of 0 means nothing,
// a peak ratio of 0 is the seed's detector.
TEST(RunOptionTable, RangesAreOpenOrClosedAsTheEntrySays) {
  EXPECT_EQ(pl::option_range_text(pl::run_option("gain")), "in (0, 1e+09]");
  EXPECT_EQ(pl::option_range_text(pl::run_option("refractory_seconds")), "in (0, 10] s");
  EXPECT_EQ(pl::option_range_text(pl::run_option("max_beat_seconds")), "seconds in (0, 10]");
  EXPECT_EQ(pl::option_range_text(pl::run_option("min_peak_ratio")), "in [0, 1]");
  EXPECT_EQ(pl::option_range_text(pl::run_option("sample_rate")), "in [50, 100000] Hz");
  EXPECT_EQ(pl::option_range_text(pl::run_option("threads")), "in [0, 4096]");
  EXPECT_EQ(message_of([] { (void)pl::make_run_options({{"gain", "0"}}); }), "`gain`=0: 0 is not in (0, 1e+09]");
  EXPECT_EQ(message_of([] {
              (void)pl::make_run_options({{"refractory_seconds", "0"}});
            }),
            "`refractory_seconds`=0: 0 is not in (0, 10] s");
  EXPECT_NE(message_of([] {
              (void)pl::make_run_options({{"min_beat_seconds", "0"}});
            }).find("0 s is no heartbeat"),
            std::string::npos);
  EXPECT_EQ(pl::make_run_options({{"min_peak_ratio", "0"}}).segmentation.min_peak_ratio, 0.0);
  EXPECT_EQ(pl::make_run_options({{"threads", "0"}}).threads, 0);
  EXPECT_EQ(pl::make_run_options({{"gain", "1e9"}, {"refractory_seconds", "10"}}).segmentation.refractory_seconds,
            10.0);
}

TEST(RunOptionTable, ContradictionsNameBothOptions) {
  const auto order = message_of([] {
    (void)pl::make_run_options({{"min_beat_seconds", "2"}, {"max_beat_seconds", "1"}});
  });
  EXPECT_EQ(order, "`min_beat_seconds`=2 s must be shorter than `max_beat_seconds`=1 s");
  const auto chunks = message_of([] {
    (void)pl::make_run_options({{"max_device_memory", "1G"}, {"segmentation", "gate-to-gate"}});
  });
  EXPECT_NE(chunks.find("`max_device_memory`"), std::string::npos) << chunks;
}

namespace {
/// A front that writes options as the library's flags (flag_before_value), and one that writes
/// them as keywords.
constexpr auto as_flag = &pl::flag_before_value;
std::string as_keyword(const pl::option_info& o) { return std::string(o.name) + '='; }
}  // namespace

TEST(RunOptionTable, EachFrontSpellsTheOptionsItsWay) {
  const std::string message = "`min_beat_seconds`=2 s must be shorter than `max_beat_seconds`=1 s; see `zeroflow run`";
  EXPECT_EQ(pl::spell_options(message, as_flag),
            "--min-beat-seconds 2 s must be shorter than --max-beat-seconds 1 s; see `zeroflow run`");
  EXPECT_EQ(pl::spell_options(message, as_keyword),
            "min_beat_seconds=2 s must be shorter than max_beat_seconds=1 s; see `zeroflow run`");
  // A name alone, and an option the front does not have.
  EXPECT_EQ(pl::spell_options("the budget (`max_device_memory`) is small", as_flag),
            "the budget (--max-device-memory) is small");
  EXPECT_EQ(pl::spell_options("the budget (`max_device_memory`) is small", as_keyword),
            "the budget (max_device_memory=) is small");
  EXPECT_EQ(pl::spell_options("`route_torch_memory` is late", as_flag), "`route_torch_memory` is late");
  EXPECT_EQ(pl::spell_options("an unclosed ` quote", as_flag), "an unclosed ` quote");
  EXPECT_EQ(pl::spell_options("`max_device_memory`=", as_flag), "--max-device-memory ");
}
