// The QRS decision rules' check (check_qrs_rules in src/signal/qrs_rules.hpp): the rules for any
// usable sample rate pass, and a rule out of range is refused by its name.
#include "signal/qrs_rules.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/params.hpp"

namespace sig = zeroflow::signal;

namespace {

/// The message check_qrs_rules throws for the default rules at 360 Hz changed by `change`, or ""
/// when it passes them.
std::string refusal(const std::function<void(sig::detail::qrs_rules&)>& change) {
  auto rules = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = 360}));
  change(rules);
  try {
    sig::detail::check_qrs_rules(rules);
  } catch (const zeroflow::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SignalQrsRules, DefaultsPassAtEveryRate) {
  for (const double rate : {100.0, 250.0, 360.0, 1000.0}) {
    const auto rules = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = rate}));
    EXPECT_NO_THROW(sig::detail::check_qrs_rules(rules)) << rate << " Hz";
    EXPECT_EQ(rules.time.stretch_samples, sig::sizes_for({.sample_rate = rate}).stretch) << rate << " Hz";
  }
}

TEST(SignalQrsRules, ABadRuleIsNamed) {
  EXPECT_EQ(refusal([](auto&) {}), "");
  EXPECT_NE(refusal([](auto& r) { r.t_wave.slope_fraction = 0; }).find("t_wave.slope_fraction"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.burst.snr = -1; }).find("burst.snr"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.time.overlap_samples = r.time.learn_samples - 1; }).find("time.overlap_samples"),
            std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.path_cost.range_cut_fraction = 0.5F; }).find("path_cost.range_cut_fraction"),
            std::string::npos);
  // The first rule out of range is the one named.
  const std::string both = refusal([](auto& r) {
    r.search_back.gap_mean_rr = 0;
    r.path_cost.longest_rr = 0;
  });
  EXPECT_NE(both.find("search_back.gap_mean_rr"), std::string::npos) << both;
  EXPECT_EQ(both.find("path_cost.longest_rr"), std::string::npos) << both;
}
