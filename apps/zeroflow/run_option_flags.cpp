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

}  // namespace

std::string in_flag_terms(const std::string& message) {
  return pipeline::spell_options(message, pipeline::option_spelling::command_line);
}

namespace {

/// The flag of `o`; `on_value` gets each value the table's check accepts ("true" for a flag).
CLI::Option* add_flag_of(CLI::App& cmd, const option_info& o, std::function<void(const std::string&)> on_value,
                         std::string_view own_help = {}) {
  const std::string flags(o.flags), help = in_flag_terms(std::string(own_help.empty() ? o.help : own_help));
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
