// zeroflow evaluate OUT_DIR --labels FILE: a finished run's beats against reference labels, with
// the same code as the pipeline's own evaluation (eval::evaluate_beats).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "csv_line.hpp"
#include "error_text.hpp"
#include "flag_checks.hpp"
#include "input_checks.hpp"
#include "interrupt.hpp"
#include "results_folder.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/eval/beat_evaluation.hpp"
#include "zeroflow/eval/ec57.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/io/text_lines.hpp"
#include "zeroflow/report/beats_table.hpp"
#include "zeroflow/report/evaluation_output.hpp"

namespace zeroflow::cli {

namespace {

struct evaluate_flags {
  std::vector<std::string> outs;
  std::string labels;
  double tolerance = 0.15;
  double start = 300;
  std::string json;
  std::string per_beat;
};

std::string read_text(const std::filesystem::path& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) require_readable_file(path, path.filename().string());  // not a FIFO
  std::ifstream in(path, std::ios::binary);
  if (!in)
    ZF_THROW(error, "cannot open ", path.string(), ": is ", path.parent_path().string(),
             " an output folder of `zeroflow run`? (", what, ")");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) ZF_THROW(error, "cannot read ", path.string());
  return text;
}

/// beats.csv's detections: each candidate's R peak and its score (NaN when the cell is empty).
struct detections {
  std::vector<std::int64_t> peaks;
  std::vector<double> scores;
};

detections read_beats_csv(const std::filesystem::path& path) {
  const auto table =
      report::parse_beats_table(read_text(path, "beats.csv holds one row per detected beat"), path.string());
  const auto peak = table.column("peak"), score = table.column("score");
  detections d;
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    d.peaks.push_back(table.sample(row, peak));
    d.scores.push_back(table.number(row, score));  // an empty cell: the beat was not scored
  }
  // Rows come in beat order; a file put together by hand is put in peak order here.
  if (!std::is_sorted(d.peaks.begin(), d.peaks.end())) {
    std::vector<std::size_t> order(d.peaks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return d.peaks[a] < d.peaks[b]; });
    detections sorted;
    for (auto i : order) sorted.peaks.push_back(d.peaks[i]), sorted.scores.push_back(d.scores[i]);
    d = std::move(sorted);
  }
  return d;
}

std::string fixed(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

void print_table(const eval::beat_evaluation& e, const std::filesystem::path& labels, double sample_rate) {
  std::printf("labels      %s (tolerance %.3f s = %lld samples at %g Hz)\n", labels.string().c_str(),
              static_cast<double>(e.tolerance_samples) / sample_rate, static_cast<long long>(e.tolerance_samples),
              sample_rate);
  const auto& d = e.detection;
  std::printf("detection   %lld labelled beats, %lld detections: TP %lld, FP %lld, FN %lld\n",
              static_cast<long long>(e.labelled_beats), static_cast<long long>(e.detections),
              static_cast<long long>(d.true_positives), static_cast<long long>(d.false_positives),
              static_cast<long long>(d.false_negatives));
  auto percent = [](double v) { return std::isnan(v) ? std::string("undefined") : fixed(100 * v, "%.2f %%"); };
  std::printf("            Se %s, +P %s\n", percent(d.sensitivity).c_str(), percent(d.positive_predictivity).c_str());
  std::printf("ranking     %lld of %lld labelled beats scored; the others rank lowest\n",
              static_cast<long long>(e.scored_beats), static_cast<long long>(e.labelled_beats));
  // AUROC and AP against every other labelled beat; "vs N": the AUROC against the N beats alone.
  std::printf("%-10s %7s %9s %8s %8s %8s\n", "class", "beats", "unscored", "AUROC", "AP", "vs N");
  const eval::class_ranking* against_normal[] = {&e.ventricular_against_normal, &e.supraventricular_against_normal,
                                                 nullptr};
  int row = 0;
  for (const auto* r : {&e.ventricular, &e.supraventricular, &e.abnormal}) {
    const auto* n = against_normal[row++];
    if (r->auroc) {
      std::printf("%-10s %7lld %9lld %8.4f %8.4f", r->name.c_str(), static_cast<long long>(r->positives),
                  static_cast<long long>(r->unscored_positives), *r->auroc, *r->average_precision);
      if (n != nullptr && n->auroc)
        std::printf(" %8.4f\n", *n->auroc);
      else
        std::printf(" %8s\n", "-");
    } else {
      std::printf("%-10s %7lld %9lld  undefined: %s\n", r->name.c_str(), static_cast<long long>(r->positives),
                  static_cast<long long>(r->unscored_positives), r->undefined.c_str());
    }
  }
  std::fflush(stdout);
}

/// One row per labelled beat: what its ranking used (for pooling records in benchmarks).
void write_per_beat_csv(const std::filesystem::path& path, const eval::beat_evaluation& e,
                        const io::beat_labels& labels, const detections& d) {
  io::write_atomically(path, [&](std::ostream& out) {
    out << "sample,symbol,class,peak,score\n";
    for (std::size_t i = 0; i < labels.samples.size(); ++i) {
      const std::string& symbol = labels.symbols[i];
      out << labels.samples[i] << ',';
      if (symbol.find_first_of(",\"\r\n") == std::string::npos) {
        out << symbol;
      } else {  // the MIT-BIH comment annotation is '"'; CSV doubles it inside quotes
        out << '"';
        for (char c : symbol) out << (c == '"' ? "\"\"" : std::string(1, c));
        out << '"';
      }
      out << ',' << labels.classes[i] << ',';
      if (const auto m = e.matched_detection[i]; m >= 0) out << d.peaks[static_cast<std::size_t>(m)];
      out << ',';
      if (!std::isinf(e.beat_scores[i])) out << fixed(e.beat_scores[i], "%.9g");
      out << '\n';
    }
  });
}

std::string percent_cell(const eval::ratio_stat& r, const char* format = "%7.2f") {
  return r.denominator == 0 ? std::string("      -") : fixed(100 * r.value(), format);
}

void print_ec57(const eval::ec57_result& r, double sample_rate, std::int64_t match_samples) {
  std::printf("EC57        from %.0f s, match window %lld samples (bxb's rules; Se and +P in %%)\n",
              static_cast<double>(r.start) / sample_rate, static_cast<long long>(match_samples));
  std::printf("            Se       +P      FPR\n");
  std::printf("QRS     %s  %s\n", percent_cell(r.qrs_se).c_str(), percent_cell(r.qrs_pp).c_str());
  std::printf("VEB     %s  %s  %s\n", percent_cell(r.veb_se).c_str(), percent_cell(r.veb_pp).c_str(),
              percent_cell(r.veb_fpr, "%7.3f").c_str());
  std::printf("SVEB    %s  %s\n", percent_cell(r.sveb_se).c_str(), percent_cell(r.sveb_pp).c_str());
  std::printf("AF      %s  %s      (duration: reference %.0f s, test %.0f s)\n", percent_cell(r.af_se).c_str(),
              percent_cell(r.af_pp).c_str(), static_cast<double>(r.af_reference) / sample_rate,
              static_cast<double>(r.af_test) / sample_rate);
  if (r.flutter_excluded > 0)
    std::printf("VF          %.0f s of the reference's ventricular flutter left out of the beat comparison\n",
                static_cast<double>(r.flutter_excluded) / sample_rate);
  std::printf("matrix      n      s      v      f      q      o   (rows: reference N S V F Q O)\n");
  const char* rows = "NSVFQO";
  for (std::size_t i = 0; i < 6; ++i) {
    std::printf("  %c   ", rows[i]);
    for (std::size_t j = 0; j < 6; ++j) {
      if (i == 5 && j == 5) continue;
      std::printf(" %6lld", static_cast<long long>(r.matrix[i][j]));
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

nlohmann::json ec57_json(const eval::ec57_result& r, double sample_rate) {
  auto stat = [](const eval::ratio_stat& s) {
    return nlohmann::json{{"value", s.denominator == 0 ? nlohmann::json(nullptr) : nlohmann::json(s.value())},
                          {"numerator", s.numerator},
                          {"denominator", s.denominator}};
  };
  nlohmann::json matrix = nlohmann::json::object();
  const char* names = "NSVFQO";
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j)
      if (i != 5 || j != 5) matrix[std::string{names[i], static_cast<char>(names[j] - 'A' + 'a')}] = r.matrix[i][j];
  return {{"start_seconds", static_cast<double>(r.start) / sample_rate},
          {"matrix", matrix},
          {"qrs_sensitivity", stat(r.qrs_se)},
          {"qrs_positive_predictivity", stat(r.qrs_pp)},
          {"veb_sensitivity", stat(r.veb_se)},
          {"veb_positive_predictivity", stat(r.veb_pp)},
          {"veb_false_positive_rate", stat(r.veb_fpr)},
          {"sveb_sensitivity", stat(r.sveb_se)},
          {"sveb_positive_predictivity", stat(r.sveb_pp)},
          {"af_reference_seconds", static_cast<double>(r.af_reference) / sample_rate},
          {"af_test_seconds", static_cast<double>(r.af_test) / sample_rate},
          {"af_duration_sensitivity", stat(r.af_se)},
          {"af_duration_positive_predictivity", stat(r.af_pp)},
          {"ventricular_flutter_excluded_seconds", static_cast<double>(r.flutter_excluded) / sample_rate}};
}

/// One run folder's EC57 comparison, when the run wrote beats.atr (its classes); empty otherwise.
struct folder_result {
  std::string name;
  double sample_rate = 0;
  std::int64_t match_samples = 0;
  std::optional<eval::ec57_result> ec57;
  eval::class_ranking ventricular{"V"}, supraventricular{"S"};  ///< against the N beats
};

folder_result evaluate_one(const evaluate_flags& f, const std::filesystem::path& out, bool single) {
  // A run replacing these results (--force) must not swap them while they are read.
  const folder_lock lock(out);
  // Where the results go is checked before the work.
  const std::filesystem::path json_file =
      f.json.empty() || !single ? out / "evaluation.json" : std::filesystem::path(f.json);
  require_replaceable_file(json_file, "the evaluation");
  if (!f.per_beat.empty()) require_replaceable_file(f.per_beat, "--per-beat");
  // Never over a file this evaluation reads: the run's results or the labels.
  std::vector<std::filesystem::path> reads = {out / "beats.csv",   out / "beats.atr",         out / "summary.json",
                                              out / "report.html", out / "model.safetensors", out / "model.pt"};
  if (!f.labels.empty()) reads.emplace_back(f.labels);
  const auto summary_text = read_text(out / "summary.json", "summary.json gives the sample rate");
  const auto summary = nlohmann::json::parse(summary_text, nullptr, /*allow_exceptions=*/false);
  if (summary.is_discarded() || !summary.is_object())
    ZF_THROW(parse_error, (out / "summary.json").string(), ": not a JSON object; is it the summary of `zeroflow run`?");
  const auto rate = summary.find("sample_rate");
  // The rates a run accepts are the rates a summary may hold: anything else was not written by a run.
  if (rate == summary.end() || !rate->is_number() || !(rate->get<double>() >= io::lowest_sample_rate) ||
      !(rate->get<double>() <= io::highest_sample_rate))
    ZF_THROW(parse_error, (out / "summary.json").string(), ": sample_rate must be a number from ",
             io::lowest_sample_rate, " to ", io::highest_sample_rate, " Hz, as a run writes it");
  const double sample_rate = rate->get<double>();
  const auto samples = summary.find("samples");
  if (samples != summary.end() && !(samples->is_number_unsigned() && samples->get<std::uint64_t>() > 0 &&
                                    samples->get<std::uint64_t>() <= (std::uint64_t{1} << 50)))
    ZF_THROW(parse_error, (out / "summary.json").string(), ": samples must be a positive whole number");
  const std::int64_t record_end = samples != summary.end() ? samples->get<std::int64_t>() : 0;

  std::filesystem::path labels_file = f.labels;
  if (labels_file.empty()) {
    const auto recorded = summary.find("labels");
    if (recorded == summary.end() || !recorded->is_string())
      ZF_THROW(error, "no labels to evaluate against: give --labels FILE (", (out / "summary.json").string(),
               " records none)");
    labels_file = recorded->get<std::string>();
    // A summary is followed only to the very file the run read: one from elsewhere must not make
    // evaluate read (and report on) another file of this machine. The message is the same
    // whether or not that file exists.
    const auto fingerprint = summary.find("labels_fingerprint");
    if (fingerprint == summary.end() || !fingerprint->is_string() ||
        !io::has_fingerprint(labels_file, fingerprint->get<std::string>()))
      ZF_THROW(error, (out / "summary.json").string(), " records the labels ", labels_file.string(),
               ", but not as the file this run read (it was changed or moved since, or the summary comes from "
               "elsewhere); pass --labels FILE to evaluate against labels you choose");
  }

  reads.push_back(labels_file);
  // Nor over the recording the run read (this command does not read it, but it is the user's data).
  const auto input = summary.find("input");
  if (input != summary.end() && input->is_string()) reads.emplace_back(input->get<std::string>());
  refuse_to_overwrite_input(json_file, reads, "the evaluation");
  if (!f.per_beat.empty()) refuse_to_overwrite_input(f.per_beat, reads, "--per-beat");
  const auto d = read_beats_csv(out / "beats.csv");
  require_readable_file(labels_file, "labels");
  const auto labels = io::read_labels_for(labels_file, sample_rate, record_end);
  const auto match = eval::tolerance_samples(f.tolerance, sample_rate);
  const auto e = eval::evaluate_beats(d.peaks, d.scores, labels, match);
  if (!single) std::printf("== %s\n", out.string().c_str());
  print_table(e, labels_file, sample_rate);

  nlohmann::json j = {{"out", std::filesystem::absolute(out).string()},
                      {"labels", std::filesystem::absolute(labels_file).string()},
                      {"sample_rate", sample_rate},
                      {"evaluation", report::evaluation_json(e, sample_rate)}};
  // "203/" names the record 203, as "203" does.
  const auto folder = out.lexically_normal();
  folder_result result{(folder.has_filename() ? folder : folder.parent_path()).filename().string(),
                       sample_rate,
                       match,
                       std::nullopt,
                       e.ventricular_against_normal,
                       e.supraventricular_against_normal};
  std::error_code ec;
  if (std::filesystem::exists(out / "beats.atr", ec)) {
    require_readable_file(out / "beats.atr", "the run's beat classes");
    const auto test = io::read_wfdb_annotations(out / "beats.atr");
    const auto start = static_cast<std::int64_t>(std::llround(f.start * sample_rate));
    result.ec57 = eval::compare_ec57(test, labels, match, start, record_end);
    print_ec57(*result.ec57, sample_rate, match);
    j["ec57"] = ec57_json(*result.ec57, sample_rate);
  } else {
    std::printf("EC57        not computed: %s has no beats.atr (a run with --segmentation seed has no classes)\n",
                out.string().c_str());
  }

  // A labels or output path that is not UTF-8 is written with U+FFFD where its bytes are not.
  const auto text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  io::write_atomically(json_file, [&](std::ostream& file) { file << text << '\n'; });
  progress("wrote " + json_file.string());
  if (!f.per_beat.empty()) {
    write_per_beat_csv(f.per_beat, e, labels, d);
    progress("wrote " + f.per_beat);
  }
  return result;
}

/// AUROC of V and S against the N beats, per record (every labelled beat; a beat without a scored
/// detection ranks lowest) and beat-weighted over the records; records with 20 or more beats of a
/// class that rank them under 0.90 are named.
void print_rankings_table(const std::vector<folder_result>& results) {
  std::printf("\nAUROC against N (every labelled beat)\n%-12s %8s %7s %8s %7s\n", "record", "V", "beats", "S", "beats");
  eval::weighted_auroc v, s;
  std::string weak;
  auto cell = [](const std::optional<double>& auroc, std::int64_t beats) {
    if (auroc)
      std::printf(" %8.4f %7lld", *auroc, static_cast<long long>(beats));
    else
      std::printf(" %8s %7lld", "-", static_cast<long long>(beats));
  };
  for (const auto& r : results) {
    std::printf("%-12s", r.name.c_str());
    cell(r.ventricular.auroc, r.ventricular.positives);
    cell(r.supraventricular.auroc, r.supraventricular.positives);
    std::printf("\n");
    v.add(r.ventricular);
    s.add(r.supraventricular);
    for (const auto* c : {&r.ventricular, &r.supraventricular})
      if (c->auroc && c->positives >= 20 && *c->auroc < 0.90)
        weak += " " + r.name + " " + c->name + " " + fixed(*c->auroc, "%.3f");
  }
  std::printf("%-12s", "weighted");
  for (const auto& w : {v, s}) cell(w.value(), w.positives);
  std::printf("\n%s\n", weak.empty() ? "no record with 20 or more V or S beats under 0.90"
                                     : ("under 0.90 with 20 or more beats:" + weak).c_str());
}

/// The standard table over several records: one line each, then gross (counts summed) and
/// average (the mean of the records' ratios, each over the records where it is defined).
void print_records_table(const std::vector<folder_result>& results) {
  std::printf("\n%-12s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n", "record", "QRS Se", "QRS +P", "VEB Se", "VEB +P",
              "VEB FPR", "SVEB Se", "SVEB +P", "AF Se", "AF +P");
  eval::ec57_result gross;
  std::vector<double> sums(9, 0.0);
  std::vector<int> counts(9, 0);
  double rate = 0;
  std::int64_t match = 0;
  for (const auto& r : results) {
    if (!r.ec57) continue;
    const auto& e = *r.ec57;
    eval::add_counts(gross, e);
    gross.start = e.start;
    rate = r.sample_rate;
    match = r.match_samples;
    const eval::ratio_stat* stats[] = {&e.qrs_se,  &e.qrs_pp,  &e.veb_se, &e.veb_pp, &e.veb_fpr,
                                       &e.sveb_se, &e.sveb_pp, &e.af_se,  &e.af_pp};
    std::printf("%-12s", r.name.c_str());
    for (std::size_t i = 0; i < 9; ++i) {
      std::printf(" %s", percent_cell(*stats[i], i == 4 ? "%7.3f" : "%7.2f").c_str());
      if (stats[i]->denominator > 0) sums[i] += 100 * stats[i]->value(), ++counts[i];
    }
    std::printf("\n");
  }
  const eval::ratio_stat* stats[] = {&gross.qrs_se,  &gross.qrs_pp,  &gross.veb_se, &gross.veb_pp, &gross.veb_fpr,
                                     &gross.sveb_se, &gross.sveb_pp, &gross.af_se,  &gross.af_pp};
  std::printf("%-12s", "gross");
  for (std::size_t i = 0; i < 9; ++i) std::printf(" %s", percent_cell(*stats[i], i == 4 ? "%7.3f" : "%7.2f").c_str());
  std::printf("\n%-12s", "average");
  for (std::size_t i = 0; i < 9; ++i) {
    if (counts[i] == 0)
      std::printf("       -");
    else
      std::printf(" %7.*f", i == 4 ? 3 : 2, sums[i] / counts[i]);
  }
  std::printf("\n");
  if (rate > 0) print_ec57(gross, rate, match);
  print_rankings_table(results);
  std::fflush(stdout);
}

void evaluate(const evaluate_flags& f) {
  const bool single = f.outs.size() == 1;
  if (!single && (!f.json.empty() || !f.per_beat.empty() || !f.labels.empty()))
    ZF_THROW(invalid_argument,
             "--json, --per-beat and --labels take one run folder; with several, each folder's "
             "evaluation.json is written and its labels are those its summary.json records");
  if (single) {
    (void)evaluate_one(f, f.outs.front(), true);
    return;
  }
  // Every folder that can be evaluated is: one that cannot is named with its reason, the table
  // holds the others, and the command fails at the end.
  std::vector<folder_result> results;
  std::size_t failed = 0;
  for (const auto& out : f.outs) {
    try {
      results.push_back(evaluate_one(f, out, false));
    } catch (const std::exception& e) {
      if (interrupted()) throw;  // Ctrl-C stops the command, not one folder
      ++failed;
      std::fflush(stdout);
      const std::string reason = message_of(e);
      const std::string line = reason.find(out) == std::string::npos ? out + ": " + reason : reason;
      std::fprintf(stderr, "zeroflow: error: %s\n", one_line(line).c_str());
    }
  }
  if (!results.empty()) print_records_table(results);
  if (failed > 0)
    ZF_THROW(error, failed, " of ", f.outs.size(), " folders could not be evaluated (each is named above)");
}

}  // namespace

void add_evaluate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "evaluate",
      "Evaluate a run's beats against reference labels: detection (Se, +P within the tolerance, one to one); for "
      "V, S and all abnormal beats, AUROC and average precision over every labelled beat (a beat without a scored "
      "detection ranks lowest; V and S also against the N beats alone); and the ANSI/AAMI EC57 table of the run's "
      "classes (beats.atr): QRS, VEB and SVEB "
      "Se/+P, VEB FPR and AF duration Se/+P, the first 5 minutes left out");
  auto flags = std::make_shared<evaluate_flags>();
  cmd->add_option("OUT_DIR", flags->outs,
                  "output folder(s) of `zeroflow run` or `zeroflow score` (beats.csv, summary.json, beats.atr); "
                  "several give the EC57 table per record, gross and average, and the AUROC against N per record "
                  "and beat-weighted")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--labels,-l", flags->labels,
                  "reference beats: a CSV (sample,label / sample,symbol / sample,symbol,aami) or a WFDB annotation "
                  "file such as 106.atr (default: the labels recorded in OUT_DIR/summary.json, when they are still the "
                  "file that run read)");
  cmd->add_option("--tolerance", flags->tolerance, "largest distance of a matched detection, seconds")
      ->capture_default_str()
      ->check(number_in(0.0, 60.0, "s"));
  cmd->add_option("--start", flags->start,
                  "seconds at the start of each record left out of the EC57 statistics (EC57's learning period; "
                  "0 counts every beat)")
      ->capture_default_str()
      ->check(number_in(0.0, 1e9, "s"));
  cmd->add_option("--json", flags->json, "where to write the results (default: OUT_DIR/evaluation.json)");
  cmd->add_option("--per-beat", flags->per_beat,
                  "also write one CSV row per labelled beat (sample,symbol,class,peak,score: its matched detection's "
                  "peak and score, each empty when there is none), e.g. to pool several records");
  cmd->callback([flags] { evaluate(*flags); });
}

}  // namespace zeroflow::cli
