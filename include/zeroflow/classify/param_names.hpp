#pragma once
/// @file param_names.hpp
/// The class rule's parameters by name ("timing.one_cue_min_clarity", "af.irregular_share"): the
/// one table of names that Python's zeroflow.classify and `zeroflow run --class-params` take.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/classify/af_rhythm.hpp"
#include "zeroflow/classify/beat_classes.hpp"

namespace zeroflow::classify {

/// One parameter: its name and where it lives, a real or a count (exactly one is set).
struct param_field {
  std::string name;
  double* real = nullptr;
  std::int64_t* count = nullptr;
};

/// Every field of `p` by its dotted name (shape., timing., quality., runs., af.).
[[nodiscard]] std::vector<param_field> param_fields(class_params& p);
/// Every field of `a`, each name after `prefix` ("" for the AF rule alone).
[[nodiscard]] std::vector<param_field> param_fields(af_params& a, const std::string& prefix = "");

/// The field of `fields` named `name`, or nullptr when none is.
[[nodiscard]] param_field* find_param(std::span<param_field> fields, std::string_view name);

/// @brief Sets `p`'s parameters from "name=value" pairs separated by commas
///        ("timing.one_cue_min_clarity=20,af.window_beats=32"), then checks them all.
/// @throws invalid_argument naming the pair for an unknown name, a value that is not a number (or
///         not whole, for a count), or a parameter out of range (check_class_params).
void set_class_params(class_params& p, std::string_view pairs);

/// The parameters of `p` that differ from the defaults, as set_class_params takes them ("" for none).
[[nodiscard]] std::string changed_class_params(const class_params& p);

}  // namespace zeroflow::classify
