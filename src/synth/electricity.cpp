/// @file electricity.cpp
/// The synthetic electricity table (electricity.hpp): a load model per consumption column, the
/// weather that drives it, holidays, and injected anomalies.
#include "zeroflow/synth/electricity.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <string_view>

#include "random.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::synth {

namespace {

using namespace std::chrono;
using detail::two_pi;

constexpr sys_days start_day = sys_days{year{2013} / July / 1};

// Streams of their own, so that changing the anomaly rate leaves the loads and the weather as
// they were (detail::streams numbers the ECG generator's).
enum : std::uint64_t { weather_stream = 101, load_stream = 102, anomaly_stream = 103 };

bool is_holiday(const year_month_day& d) {
  const year y = d.year();
  const sys_days day{d};
  for (const sys_days h :
       {sys_days{y / January / 1}, sys_days{y / May / Monday[last]}, sys_days{y / July / 4},
        sys_days{y / September / Monday[1]}, sys_days{y / November / Thursday[4]}, sys_days{y / December / 25}})
    if (h == day) return true;
  return false;
}

double bump(double hour, double centre, double width) {
  const double u = (hour - centre) / width;
  return std::exp(-0.5 * u * u);
}

// Office hours: a smooth rise at 7-9 h and fall at 17-19 h.
double office(double hour) {
  return 1.0 / (1.0 + std::exp(-(hour - 8.0) * 2.0)) - 1.0 / (1.0 + std::exp(-(hour - 18.0) * 2.0));
}

struct calendar {
  double hour;         // hour of the day, fractional
  double day_of_year;  // 0-based
  bool rest_day;       // Saturday, Sunday or a holiday
  bool sunday_like;    // Sunday or a holiday
};

calendar calendar_of(std::int64_t row, double step_minutes) {
  const double minutes = static_cast<double>(row) * step_minutes;
  const auto whole = static_cast<std::int64_t>(std::floor(minutes));
  const sys_days day = start_day + days{whole / (24 * 60)};
  const year_month_day ymd{day};
  const weekday wd{day};
  const bool holiday = is_holiday(ymd);
  calendar c;
  c.hour = std::fmod(minutes, 24.0 * 60.0) / 60.0;
  c.day_of_year = static_cast<double>((day - sys_days{ymd.year() / January / 1}).count());
  c.sunday_like = wd == Sunday || holiday;
  c.rest_day = c.sunday_like || wd == Saturday;
  return c;
}

}  // namespace

std::string electricity_timestamp(std::int64_t row, double step_minutes) {
  const auto seconds_total = static_cast<std::int64_t>(std::llround(static_cast<double>(row) * step_minutes * 60.0));
  const sys_days day = start_day + days{seconds_total / 86400};
  const year_month_day ymd{day};
  const std::int64_t s = seconds_total % 86400;
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u %02lld:%02lld:%02lld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return text;
}

electricity_table generate_electricity(const electricity_options& o) {
  ZF_EXPECTS(std::isfinite(o.days) && o.days > 0, "days must be a positive number, got ", o.days);
  ZF_EXPECTS(std::isfinite(o.step_minutes) && o.step_minutes > 0, "step_minutes must be a positive number, got ",
             o.step_minutes);
  ZF_EXPECTS(o.anomaly_rate >= 0 && o.anomaly_rate <= 0.1, "anomaly_rate must be in [0, 0.1], got ", o.anomaly_rate);
  const double wanted = std::floor(o.days * 24.0 * 60.0 / o.step_minutes);
  ZF_EXPECTS(wanted >= 1 && wanted <= 2147483647.0, o.days, " days at one row every ", o.step_minutes, " minutes is ",
             wanted, " rows; the table holds 1 to 2^31 - 1");
  const auto n = static_cast<std::int64_t>(wanted);

  electricity_table t;
  t.step_minutes = o.step_minutes;
  t.names = {"temperature", "pressure", "windspeed", "residential", "commercial", "electricity_consumption"};
  t.consumption = {false, false, false, true, true, true};
  t.columns.assign(t.names.size(), std::vector<float>(static_cast<std::size_t>(n)));
  auto& temperature = t.columns[0];
  auto& pressure = t.columns[1];
  auto& wind = t.columns[2];
  auto& residential = t.columns[3];
  auto& commercial = t.columns[4];
  auto& total = t.columns[5];

  detail::random_source weather(o.seed, weather_stream), load(o.seed, load_stream);
  // Slow weather fronts and load drift as AR(1) processes whose memory is about a day (and
  // independent of the step, so a finer table is the same weather sampled more often).
  const double keep = std::exp(-o.step_minutes / (24.0 * 60.0));
  const double fresh = std::sqrt(1.0 - keep * keep);
  double front = 0, pressure_front = 0, gust = 0, drift = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const calendar c = calendar_of(i, o.step_minutes);
    front = keep * front + fresh * weather.normal();
    pressure_front = keep * pressure_front + fresh * weather.normal();
    gust = keep * gust + fresh * weather.normal();
    drift = keep * drift + fresh * load.normal();
    const double temp = 14.0 + 10.0 * std::sin(two_pi * (c.day_of_year - 110.0) / 365.25) +
                        5.0 * std::sin(two_pi * (c.hour - 9.0) / 24.0) + 3.0 * front;
    const double heat_cool = 4.0 * std::max(0.0, temp - 21.0) + 3.0 * std::max(0.0, 12.0 - temp);

    // Homes: a morning and an evening peak, later and larger on rest days.
    const double morning = c.rest_day ? bump(c.hour, 9.5, 1.8) : bump(c.hour, 7.0, 1.2);
    const double home = 110.0 + 55.0 * morning + 115.0 * bump(c.hour, 19.5, 2.3) + 25.0 * bump(c.hour, 13.0, 2.0) +
                        (c.rest_day ? 20.0 : 0.0) + 0.6 * heat_cool;
    // Offices and shops: office hours on working days, a little on Saturdays, nearly nothing on
    // Sundays and holidays.
    const double open = c.sunday_like ? 0.08 : c.rest_day ? 0.35 : 1.0;
    const double business = 70.0 + 230.0 * open * office(c.hour) + 1.2 * heat_cool * (0.4 + 0.6 * open);
    const double city = 150.0 + 0.55 * home + 0.45 * business + (c.rest_day ? 0.0 : 30.0) + heat_cool;

    temperature[static_cast<std::size_t>(i)] = static_cast<float>(temp + 0.3 * weather.normal());
    pressure[static_cast<std::size_t>(i)] = static_cast<float>(1013.0 + 8.0 * pressure_front + 0.4 * weather.normal());
    wind[static_cast<std::size_t>(i)] = static_cast<float>(std::abs(12.0 + 6.0 * gust + 2.0 * weather.normal()));
    residential[static_cast<std::size_t>(i)] = static_cast<float>(home * (1.0 + 0.03 * drift + 0.04 * load.normal()));
    commercial[static_cast<std::size_t>(i)] =
        static_cast<float>(business * (1.0 + 0.03 * drift + 0.03 * load.normal()));
    total[static_cast<std::size_t>(i)] = static_cast<float>(city * (1.0 + 0.02 * drift + 0.025 * load.normal()));
  }

  // Anomalies: in each consumption column on its own, starting at a row with probability
  // anomaly_rate; a meter spike (x1.8-3 for 1-3 rows), a dip (x0.25-0.5 for 1-4 rows) or an
  // outage (0 for 2-6 rows).
  detail::random_source chance(o.seed, anomaly_stream);
  std::vector<std::vector<electricity_anomaly_kind>> marks(t.columns.size());
  std::vector<std::vector<bool>> marked(t.columns.size());
  for (std::size_t col = 0; col < t.columns.size(); ++col) {
    if (!t.consumption[col]) continue;
    marked[col].assign(static_cast<std::size_t>(n), false);
    marks[col].assign(static_cast<std::size_t>(n), electricity_anomaly_kind::spike);
    auto& x = t.columns[col];
    for (std::int64_t i = 0; i < n; ++i) {
      if (!chance.bernoulli(o.anomaly_rate)) continue;
      const double pick = chance.uniform();
      electricity_anomaly_kind kind;
      std::int64_t length;
      double factor;
      if (pick < 0.5) {
        kind = electricity_anomaly_kind::spike;
        length = 1 + static_cast<std::int64_t>(chance.uniform() * 3);
        factor = chance.uniform(1.8, 3.0);
      } else if (pick < 0.8) {
        kind = electricity_anomaly_kind::dip;
        length = 1 + static_cast<std::int64_t>(chance.uniform() * 4);
        factor = chance.uniform(0.25, 0.5);
      } else {
        kind = electricity_anomaly_kind::outage;
        length = 2 + static_cast<std::int64_t>(chance.uniform() * 5);
        factor = 0.0;
      }
      for (std::int64_t j = i; j < std::min(n, i + length); ++j) {
        x[static_cast<std::size_t>(j)] = static_cast<float>(x[static_cast<std::size_t>(j)] * factor);
        marked[col][static_cast<std::size_t>(j)] = true;
        marks[col][static_cast<std::size_t>(j)] = kind;
      }
      i += length;  // events do not overlap
    }
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::size_t col = 0; col < t.columns.size(); ++col)
      if (t.consumption[col] && marked[col][static_cast<std::size_t>(i)])
        t.anomalies.push_back({i, static_cast<int>(col), marks[col][static_cast<std::size_t>(i)]});
  return t;
}

namespace {

const char* kind_name(electricity_anomaly_kind k) {
  switch (k) {
    case electricity_anomaly_kind::spike:
      return "spike";
    case electricity_anomaly_kind::dip:
      return "dip";
    case electricity_anomaly_kind::outage:
      return "outage";
  }
  return "?";
}

void put_number(std::string& line, float v) {
  char number[48];
  const auto [end, ec] = std::to_chars(number, number + sizeof number, v, std::chars_format::fixed, 1);
  line.append(number, ec == std::errc{} ? end : number);
}

}  // namespace

void write_electricity_csv(const electricity_table& t, const std::filesystem::path& csv) {
  io::write_atomically(csv, [&](std::ostream& file) {
    std::string line = "ID,datetime";
    for (const auto& name : t.names) line += "," + name;
    line += '\n';
    file << line;
    const std::int64_t n = t.rows();
    for (std::int64_t i = 0; i < n; ++i) {
      line = std::to_string(i) + "," + electricity_timestamp(i, t.step_minutes);
      for (const auto& column : t.columns) {
        line += ',';
        put_number(line, column[static_cast<std::size_t>(i)]);
      }
      line += '\n';
      file << line;
    }
  });
}

void write_electricity_labels(const electricity_table& t, const std::filesystem::path& path) {
  io::write_atomically(path, [&](std::ostream& file) {
    file << "row,datetime,column,kind\n";
    for (const auto& a : t.anomalies)
      file << a.row << ',' << electricity_timestamp(a.row, t.step_minutes) << ','
           << t.names[static_cast<std::size_t>(a.column)] << ',' << kind_name(a.kind) << '\n';
  });
}

std::vector<labelled_point> read_electricity_labels(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) ZF_THROW(error, "cannot open the labels file ", path.string());
  std::vector<labelled_point> out;
  std::string line;
  std::int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 || line.empty()) continue;  // the header
    // row,datetime,column,kind
    std::string_view rest = line;
    std::string_view fields[4];
    for (int f = 0; f < 4; ++f) {
      const auto comma = rest.find(',');
      if ((comma == std::string_view::npos) != (f == 3))
        ZF_THROW(parse_error, path.string(), ":", number, ": expected 4 fields (row,datetime,column,kind)");
      fields[f] = rest.substr(0, comma);
      if (comma != std::string_view::npos) rest.remove_prefix(comma + 1);
    }
    labelled_point p;
    const auto [end, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), p.row);
    if (ec != std::errc{} || end != fields[0].data() + fields[0].size() || p.row < 0)
      ZF_THROW(parse_error, path.string(), ":", number, ": the row \"", std::string(fields[0]),
               "\" is not a row number (0-based, >= 0)");
    p.column = fields[2];
    p.kind = fields[3];
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace zeroflow::synth
