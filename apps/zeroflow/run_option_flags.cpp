#include "run_option_flags.hpp"

#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"

namespace zeroflow::cli {

namespace {

using pipeline::option_info;
using pipeline::option_kind;
using pipeline::option_use;

bool taken_by(const option_info& o, bool training) {
  switch (o.use) {
    case option_use::both:
      return true;
    case option_use::training:
      return training;
    case option_use::scoring:
      return !training;
    case option_use::library:
      return false;
  }
  return false;
}

const char* type_name(option_kind kind) {
  switch (kind) {
    case option_kind::number:
    case option_kind::beat_seconds:
      return "FLOAT";
    case option_kind::integer:
      return "INT";
    case option_kind::seed:
      return "UINT";
    case option_kind::choice:
      return "CHOICE";
    case option_kind::byte_size:
      return "BYTES";
    case option_kind::path:
      return "FILE";
    case option_kind::text:
    case option_kind::flag:
      break;
  }
  return "TEXT";
}

/// The library's check of a value, as CLI11 runs it while parsing.
CLI::Validator checked(const option_info& o) {
  return CLI::Validator(
      [&o](std::string& text) -> std::string {
        try {
          pipeline::check_option_text(o, text);
          return {};
        } catch (const invalid_argument& e) {
          return in_flag_terms(e.what());
        }
      },
      pipeline::option_range_text(o));
}

/// The options a person knows by another flag first: a short one, an older or shorter long one
/// (the library's own flag is always taken too).
struct other_names {
  std::string_view option, first, after;  ///< names before and after the library's flag
};
constexpr other_names spelled_otherwise[] = {
    {"lead", "", "--column,-c"},
    {"sample_rate", "", "-r"},
    {"device", "", "-d"},
    {"min_beat_seconds", "--min-beat", ""},
    {"max_beat_seconds", "--max-beat", ""},
    {"model", "", "-m"},               // score: the model file
    {"model_kind", "--model,-m", ""},  // run: which model to train
};

/// "--flag " before a value: the first of the option's names.
std::string flag_before_value(const option_info& o) {
  const std::string names = flag_names(o);
  return names.empty() ? names : names.substr(0, names.find(',')) + ' ';
}

}  // namespace

std::string flag_names(const option_info& option) {
  std::string names = pipeline::option_flag(option);
  if (names.empty()) return names;
  for (const auto& other : spelled_otherwise) {
    if (other.option != option.name) continue;
    if (!other.first.empty()) names = std::string(other.first) + ',' + names;
    if (!other.after.empty()) names += ',' + std::string(other.after);
  }
  return names;
}

std::string in_flag_terms(const std::string& message) { return pipeline::spell_options(message, flag_before_value); }

namespace {

/// The flag of `o`; `on_value` gets each value the table's check accepts ("true" for a flag).
CLI::Option* add_flag_of(CLI::App& cmd, const option_info& o, std::function<void(const std::string&)> on_value,
                         std::string_view own_help = {}) {
  const std::string flags = flag_names(o), help = in_flag_terms(std::string(own_help.empty() ? o.help : own_help));
  CLI::Option* added = nullptr;
  if (o.kind == option_kind::flag) {
    added = cmd.add_flag_callback(
        flags, [on_value = std::move(on_value)] { on_value("true"); }, help);
  } else {
    added = cmd.add_option_function<std::string>(flags, std::move(on_value), help)->check(checked(o));
    if (!o.default_text.empty()) added->default_str(std::string(o.default_text));
    added->type_name(type_name(o.kind));
  }
  if (o.group == "detector") added->group("Detector windows (seconds; the defaults suit adult ECG)");
  return added;
}

}  // namespace

void add_run_option_flags(CLI::App& cmd, bool training, given_options& given) {
  for (const auto& o : pipeline::run_option_table()) {
    if (!taken_by(o, training)) continue;
    add_flag_of(cmd, o,
                [&given, name = std::string(o.name)](const std::string& text) { given.emplace_back(name, text); });
  }
}

void add_run_option_flag(CLI::App& cmd, std::string_view name, std::function<void(const std::string&)> on_value,
                         std::string_view help) {
  add_flag_of(cmd, pipeline::run_option(name), std::move(on_value), help);
}

}  // namespace zeroflow::cli
