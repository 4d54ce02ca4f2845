#pragma once
/// @file electricity.hpp
/// A synthetic electricity-consumption table for the seed-004 pipeline. The seed notebook reads
/// Kaggle's "electricity consumption" file, which cannot be downloaded here; this generator
/// stands in for it with the same layout (ID, datetime, weather columns, consumption in column
/// 7) and what makes such data interesting: daily and weekly cycles, a yearly temperature cycle
/// that drives heating and cooling load, public holidays that look like Sundays, and labelled
/// anomalies (spikes, dips and outages) in every consumption column.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace zeroflow::synth {

/// What generate_electricity makes.
struct electricity_options {
  double days = 1096;           ///< length from 2013-07-01 00:00 (1096 days: three years)
  double step_minutes = 60;     ///< time between rows (60: hourly, 26,304 rows for three years)
  double anomaly_rate = 0.002;  ///< chance per row and consumption column that an anomaly starts there
  std::uint64_t seed = 42;
};

/// The kinds of injected anomalies.
enum class electricity_anomaly_kind { spike, dip, outage };

/// One anomalous row of one consumption column.
struct electricity_anomaly {
  std::int64_t row = 0;
  int column = 0;  ///< index into electricity_table::columns
  electricity_anomaly_kind kind = electricity_anomaly_kind::spike;
};

/// The table: timestamps are implied (start + row · step).
struct electricity_table {
  std::vector<std::string>
      names;  ///< temperature, pressure, windspeed, residential, commercial, electricity_consumption
  std::vector<std::vector<float>> columns;     ///< one per name, rows() values each
  std::vector<bool> consumption;               ///< per column: a consumption column (anomalies may be there)
  std::vector<electricity_anomaly> anomalies;  ///< by row, then column
  double step_minutes = 60;
  [[nodiscard]] std::int64_t rows() const { return columns.empty() ? 0 : static_cast<std::int64_t>(columns[0].size()); }
};

/// @brief Generates the table (deterministic for a seed).
/// @throws zeroflow::invalid_argument for days or step_minutes that are not positive, fewer than
///         one or more than 2^31 rows, or an anomaly_rate outside [0, 0.1].
[[nodiscard]] electricity_table generate_electricity(const electricity_options& options);

/// "YYYY-MM-DD HH:MM:SS" of a row (rows start at 2013-07-01 00:00:00).
[[nodiscard]] std::string electricity_timestamp(std::int64_t row, double step_minutes);

/// @brief Writes the table as CSV, atomically: header `ID,datetime,` then the column names; one
///        line per row with its 0-based ID, its timestamp and every value with one decimal.
/// @throws zeroflow::error when the file cannot be written.
void write_electricity_csv(const electricity_table& table, const std::filesystem::path& csv);

/// @brief Writes the anomalies as CSV, atomically: header `row,datetime,column,kind`, one line
///        per anomalous row and column (column by name; kind spike, dip or outage).
/// @throws zeroflow::error when the file cannot be written.
void write_electricity_labels(const electricity_table& table, const std::filesystem::path& path);

/// One labelled anomaly as read back: its row and its column's name.
struct labelled_point {
  std::int64_t row = 0;
  std::string column;
  std::string kind;
};

/// @brief Reads a file written by write_electricity_labels.
/// @throws zeroflow::parse_error naming the file and line of a malformed line; zeroflow::error
///         when it cannot be opened.
[[nodiscard]] std::vector<labelled_point> read_electricity_labels(const std::filesystem::path& path);

}  // namespace zeroflow::synth
