#include "zeroflow/io/labels.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;

namespace {

/// One MIT annotation word (code, interval) as its two little-endian bytes.
std::string mit_word(unsigned code, unsigned interval) {
  const unsigned w = (code << 10) | interval;
  return std::string{static_cast<char>(w & 0xff), static_cast<char>(w >> 8)};
}

/// what() of the parse_error that reading `content` as a labels CSV throws ("" when none).
std::string csv_error(const std::string& content) {
  zf::test::scratch_dir dir;
  const auto file = dir.write("rec.labels.csv", content);
  try {
    (void)io::read_labels_csv(file);
  } catch (const zf::parse_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Labels, AamiClassesOfTheMitBihBeatSymbols) {
  // The AAMI EC57 table (ANSI/AAMI EC57:1998, table 1) as MIT-BIH spells it.
  const std::vector<std::pair<std::string, char>> table = {{"N", 'N'},
                                                           {"L", 'N'},
                                                           {"R", 'N'},
                                                           {"e", 'N'},
                                                           {"j", 'N'},
                                                           {"A", 'S'},
                                                           {"a", 'S'},
                                                           {"J", 'S'},
                                                           {"S", 'S'},
                                                           {"V", 'V'},
                                                           {"E", 'V'},
                                                           {"F", 'F'},
                                                           {"/", 'Q'},
                                                           {"f", 'Q'},
                                                           {"Q", 'Q'},
                                                           // beats (WFDB's isqrs) the table does not name
                                                           {"B", 'Q'},
                                                           {"?", 'Q'},
                                                           {"n", 'Q'},
                                                           {"r", 'Q'}};
  for (const auto& [symbol, aami] : table) {
    EXPECT_EQ(io::aami_class_of(symbol), aami) << symbol;
    EXPECT_FALSE(io::is_non_beat_annotation(symbol)) << symbol;
  }
  // Annotations that are no beat: rhythm change, noise, comment, pacemaker spike, signal quality...
  for (const char* other : {"+", "~", "|", "\"", "!", "[", "]", "x", "(", ")", "p",
                            "t", "u", "`", "'",  "^", "s", "T", "*", "D", "=", "@"}) {
    EXPECT_EQ(io::aami_class_of(other), 0) << "'" << other << "'";
    EXPECT_TRUE(io::is_non_beat_annotation(other)) << "'" << other << "'";
  }
  // ... and what is neither: refused by the readers, not dropped.
  for (const char* unknown : {"", "NN", "v", " N", "PVC", "0", "1", "nan"}) {
    EXPECT_EQ(io::aami_class_of(unknown), 0) << "'" << unknown << "'";
    EXPECT_FALSE(io::is_non_beat_annotation(unknown)) << "'" << unknown << "'";
  }
}

TEST(Labels, ReadsTheSampleLabelLayoutWithCrlfAndBlankLines) {
  zf::test::scratch_dir dir;
  const auto file = dir.write("a.labels.csv", "sample,label\r\n10,N\r\n\r\n250,V\r\n  \r\n499,N\r\n");
  const auto l = io::read_labels_csv(file);
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{10, 250, 499}));
  EXPECT_EQ(l.symbols, (std::vector<std::string>{"N", "V", "N"}));
  EXPECT_EQ(l.classes, (std::vector<char>{'N', 'V', 'N'}));
}

TEST(Labels, ReadsTheSampleSymbolLayoutSkippingNonBeats) {
  zf::test::scratch_dir dir;
  // MIT-BIH style: a rhythm change at the first beat's sample, noise, and a comment written as
  // a quoted '"' — none of them is a beat, and none may stop the read.
  const auto file = dir.write("b.labels.csv",
                              "sample,symbol\n18,+\n77,N\n370,A\n500,~\n662,L\n700,\"\"\"\"\n946,E\n1000,|\n"
                              "1200,/\n1300,f\n1400,F\n1500,Q\n1600,j\n");
  const auto l = io::read_labels_csv(file);
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{77, 370, 662, 946, 1200, 1300, 1400, 1500, 1600}));
  EXPECT_EQ(l.symbols, (std::vector<std::string>{"N", "A", "L", "E", "/", "f", "F", "Q", "j"}));
  EXPECT_EQ(l.classes, (std::vector<char>{'N', 'S', 'N', 'V', 'Q', 'Q', 'F', 'Q', 'N'}));
}

TEST(Labels, TheAamiColumnOverridesTheSymbolsMapping) {
  zf::test::scratch_dir dir;
  const auto file =
      dir.write("c.labels.csv", "sample,symbol,aami\n10,N,\n20,N,S\n30,r,V\n40,+,\n50,~,-\n60,A,Q\n70,L, N \n");
  const auto l = io::read_labels_csv(file);
  // 'r' (R-on-T) is a Q beat by the table, but the aami column makes it a V beat; '+' and '~'
  // stay skipped (an empty or odd class on a row that is no beat).
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{10, 20, 30, 60, 70}));
  EXPECT_EQ(l.symbols, (std::vector<std::string>{"N", "N", "r", "A", "L"}));
  EXPECT_EQ(l.classes, (std::vector<char>{'N', 'S', 'V', 'Q', 'N'}));
}

TEST(Labels, HeaderNamesAreFoundInAnyOrderAndCase) {
  zf::test::scratch_dir dir;
  const auto file = dir.write("d.labels.csv", "\xEF\xBB\xBFSymbol, Sample\nV,5\nN,9\n");
  const auto l = io::read_labels_csv(file);
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{5, 9}));
  EXPECT_EQ(l.classes, (std::vector<char>{'V', 'N'}));
}

TEST(Labels, AFileWithoutBeatsIsRefused) {
  // Evaluating against no beats gave "+P 0.00 %" as if it were a result.
  EXPECT_NE(csv_error("sample,symbol\n").find("rec.labels.csv: no beats"), std::string::npos);
  EXPECT_NE(csv_error("sample,symbol\n10,+\n20,~\n").find("rec.labels.csv: no beats"), std::string::npos);
  zf::test::scratch_dir dir;
  const auto rhythm_only = dir.write("r.atr", mit_word(28, 5) + mit_word(14, 10) + std::string(2, '\0'));
  try {
    (void)io::read_wfdb_annotations(rhythm_only);
    FAIL() << "no error";
  } catch (const zf::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("r.atr: no beat annotations"), std::string::npos) << e.what();
  }
}

TEST(Labels, UnknownSymbolsAreRefusedNotDropped) {
  // Each of these rows vanished from every count before.
  for (const char* symbol : {"PVC", "0", "1", "nan", "v"}) {
    const std::string message = csv_error(std::string("sample,label\n10,N\n20,") + symbol + "\n30,N\n");
    EXPECT_NE(message.find("rec.labels.csv:3: unknown beat symbol '" + std::string(symbol) + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("map yours to one of them"), std::string::npos) << message;
  }
  // An aami column that names the class makes any symbol a beat of it.
  zf::test::scratch_dir dir;
  const auto l = io::read_labels_csv(dir.write("x.labels.csv", "sample,symbol,aami\n10,PVC,V\n"));
  EXPECT_EQ(l.classes, (std::vector<char>{'V'}));
}

TEST(Labels, OneSampleTwiceIsOneBeatOnlyWhenTheClassesAgreeInBothReaders) {
  zf::test::scratch_dir dir;
  const auto l = io::read_labels_csv(dir.write("a.labels.csv", "sample,symbol\n10,N\n10,L\n20,V\n20,E\n"));
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{10, 20}));
  EXPECT_EQ(l.symbols, (std::vector<std::string>{"N", "V"}));
  EXPECT_NE(csv_error("sample,symbol\n10,N\n10,V\n")
                .find("rec.labels.csv:3: two beats of different classes at "
                      "sample 10 ('N' and 'V'); keep one row per beat"),
            std::string::npos)
      << csv_error("sample,symbol\n10,N\n10,V\n");
  const auto agree =
      io::read_wfdb_annotations(dir.write("a.atr", mit_word(1, 10) + mit_word(2, 0) + std::string(2, '\0')));
  EXPECT_EQ(agree.samples, (std::vector<std::int64_t>{10}));
  try {
    (void)io::read_wfdb_annotations(dir.write("b.atr", mit_word(1, 10) + mit_word(5, 0) + std::string(2, '\0')));
    FAIL() << "no error";
  } catch (const zf::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("b.atr: byte 2: two beats of different classes at sample 10 (N and V)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Labels, ErrorsNameTheFileTheLineAndWhatToDo) {
  auto expect_error = [](const std::string& content, const std::string& line, const std::string& what) {
    const std::string message = csv_error(content);
    EXPECT_NE(message.find("rec.labels.csv:" + line + ":"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find(".cpp"), std::string::npos) << message;
  };
  expect_error("", "1", "empty");
  expect_error("time,type\n1,N\n", "1", "expected the header 'sample,label'");
  expect_error("sample,label,label\n1,N,N\n", "1", "expected the header");
  expect_error("sample\n1\n", "1", "expected the header");
  expect_error("sample,symbol\n10,N\n\n12x,V\n", "4", "'12x' is not a whole number");
  expect_error("sample,symbol\n-5,N\n", "2", "'-5' is not a whole number");
  expect_error("sample,symbol\n10,N\n10,V\n", "3", "two beats of different classes at sample 10");
  expect_error("sample,symbol\n10,N\n9,V\n", "3", "sort the rows");
  expect_error("sample,symbol\n10,N,extra\n", "2", "expected 2 fields");
  expect_error("sample,symbol\n10,\"N\n", "2", "quote is not closed");
  expect_error("sample,symbol,aami\n10,N,Z\n", "2", "expected one of N, S, V, F, Q");
}

TEST(Labels, OddRowsThatAreNoBeatNeverStopTheRead) {
  zf::test::scratch_dir dir;
  // A non-beat row may hold anything: a bad sample, extra fields, a sample out of order.
  const auto file = dir.write("f.labels.csv", "sample,symbol\n100,N\nabc,~\n50,+,(AFIB\n,|\n200,V\n");
  const auto l = io::read_labels_csv(file);
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{100, 200}));
}

TEST(Labels, AMissingFileIsAnErrorNamingIt) {
  try {
    (void)io::read_labels_csv("/nonexistent/zeroflow/x.labels.csv");
    FAIL() << "no error";
  } catch (const zf::parse_error&) {
    FAIL() << "a missing file is no parse error";
  } catch (const zf::error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/zeroflow/x.labels.csv"), std::string::npos) << e.what();
  }
}

TEST(Labels, ReadLabelsTakesTextForALabelsCsv) {
  zf::test::scratch_dir dir;
  const auto file = dir.write("g.CSV", "sample,symbol\n3,V\n");
  const auto l = io::read_labels(file);
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(l.classes, (std::vector<char>{'V'}));
}

TEST(Labels, ReadLabelsTakesBinaryForWfdbAnnotations) {
  // A MIT-format annotation file written from the format's definition (PhysioNet, annot(5)):
  // little-endian 16-bit words, annotation code in the top 6 bits, sample difference in the low
  // 10; code 1 is N, 5 is V, 22 ('"', a comment) no beat; a zero word ends the file.
  const std::string atr =
      mit_word(1, 100) + mit_word(22, 20) + mit_word(5, 130) + mit_word(1, 300) + std::string(2, '\0');
  zf::test::scratch_dir dir;
  const auto l = io::read_labels(dir.write("rec.atr", atr));
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{100, 250, 550}));
  EXPECT_EQ(l.classes, (std::vector<char>{'N', 'V', 'N'}));
}

TEST(Labels, WfdbAnnotationsKeepVentricularFlutterEpisodes) {
  // Codes 32 ('[') and 33 (']') open and close ventricular flutter, 31 ('!') marks its waves:
  // an N at 100, flutter from 200 to 500 with two waves, an N at 600, then a flutter left open.
  const std::string atr = mit_word(1, 100) + mit_word(32, 100) + mit_word(31, 100) + mit_word(31, 100) +
                          mit_word(33, 100) + mit_word(1, 100) + mit_word(32, 50) + std::string(2, '\0');
  zf::test::scratch_dir dir;
  const auto l = io::read_labels(dir.write("vf.atr", atr));
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{100, 600}));
  ASSERT_EQ(l.ventricular_flutter.size(), 2U);
  EXPECT_EQ(l.ventricular_flutter[0], (std::pair<std::int64_t, std::int64_t>{200, 500}));
  EXPECT_EQ(l.ventricular_flutter[1].first, 650);
  EXPECT_EQ(l.ventricular_flutter[1].second, std::numeric_limits<std::int64_t>::max());
}

namespace {

/// what() of the parse_error that read_labels throws for `content` in a file named `name` ("" when none).
std::string labels_error(const std::string& name, const std::string& content) {
  zf::test::scratch_dir dir;
  try {
    (void)io::read_labels(dir.write(name, content));
  } catch (const zf::parse_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Labels, AFileIsReadByWhatItHoldsNotByItsName) {
  zf::test::scratch_dir dir;
  const std::string csv = "sample,symbol\n10,N\n20,V\n";
  const std::string mit = mit_word(1, 10) + mit_word(5, 10) + std::string(2, '\0');
  for (const char* name : {"a.csv", "a.atr", "a.txt", "a"}) {
    EXPECT_TRUE(io::looks_like_text(dir.write(name, csv))) << name;
    EXPECT_EQ(io::read_labels(dir.write(name, csv)).samples, (std::vector<std::int64_t>{10, 20})) << name;
    EXPECT_FALSE(io::looks_like_text(dir.write(name, mit))) << name;
    EXPECT_EQ(io::read_labels(dir.write(name, mit)).symbols, (std::vector<std::string>{"N", "V"})) << name;
  }
  // rdann's printout saved as the annotation file: refused as text, naming the header expected,
  // where it was once decoded as MIT words and scored.
  const std::string printout =
      "      0:00.050       18     N    0    0    0\n      0:00.833      300     V    0    0    0\n";
  EXPECT_NE(labels_error("100.atr", printout).find("100.atr:1: expected the header"), std::string::npos)
      << labels_error("100.atr", printout);
}

TEST(Labels, WhatIsPlainlyNoLabelsFileIsNamedNotDecoded) {
  // A labels CSV saved as UTF-16 (with or without a byte-order mark, either byte order).
  const std::string text = "sample,symbol\n10,N\n20,V\n";
  std::string little = "\xFF\xFE", big = "\xFE\xFF", bare;
  for (char c : text) {
    little += std::string{c, '\0'};
    big += std::string{'\0', c};
    bare += std::string{c, '\0'};
  }
  for (const auto& [name, content] : {std::pair{"le.csv", little}, {"be.atr", big}, {"bare.txt", bare}})
    EXPECT_NE(labels_error(name, content).find(std::string(name) + ": text in UTF-16"), std::string::npos)
        << name << ": " << labels_error(name, content);
  // An EDF file: its header starts with the version "0" and seven spaces.
  const std::string edf = "0       " + std::string(248, ' ') + std::string(64, '\0');
  EXPECT_NE(labels_error("rec.edf", edf).find("rec.edf: an EDF file"), std::string::npos)
      << labels_error("rec.edf", edf);
  // A safetensors file whose length prefix reads as one MIT annotation and a zero word.
  const std::string model = mit_word(1, 200) + std::string(6, '\0') + "{\"__metadata__\":{}}";
  EXPECT_NE(labels_error("model.safetensors", model).find("data after the end-of-file marker"), std::string::npos)
      << labels_error("model.safetensors", model);
}

TEST(Labels, MitAnnotationsAreReadOnlyWhenTheirStructureHolds) {
  // A code that is neither an annotation (1-49) nor an escape (59-63).
  EXPECT_NE(labels_error("a.atr", mit_word(1, 10) + mit_word(53, 4) + std::string(2, '\0'))
                .find("a.atr: byte 2: 53 is no MIT annotation code"),
            std::string::npos);
  // No end-of-file marker.
  EXPECT_NE(labels_error("a.atr", mit_word(1, 10) + mit_word(1, 10)).find("a.atr: byte 4: no end-of-file marker"),
            std::string::npos);
  // SKIP to before the start (a 32-bit interval of -100, high word first): a note may stand there
  // (wfdb-python writes the time resolution at sample -1), a beat may not.
  const std::string skip_back = mit_word(59, 0) + std::string("\xff\xff\x9c\xff", 4);
  const std::string beat_before = mit_word(1, 10) + skip_back + mit_word(1, 0) + std::string(2, '\0');
  EXPECT_NE(
      labels_error("a.atr", beat_before).find("a.atr: byte 8: a beat (N) at sample -90, before the recording's start"),
      std::string::npos)
      << labels_error("a.atr", beat_before);
  const std::string note_before = skip_back + mit_word(22, 0) + mit_word(59, 0) + std::string("\x00\x00\x6e\x00", 4) +
                                  mit_word(1, 10) + std::string(2, '\0');
  EXPECT_EQ(labels_error("a.atr", note_before), "");
}

TEST(Labels, BeatsPastTheRecordingAreRefusedForEitherKind) {
  zf::test::scratch_dir dir;
  const auto csv = dir.write("a.labels.csv", "sample,symbol\n10,N\n20,N\n30,V\n");
  const auto mit = dir.write("a.atr", mit_word(1, 10) + mit_word(1, 10) + mit_word(5, 10) + std::string(2, '\0'));
  for (const auto& file : {csv, mit}) {
    const auto labels = io::read_labels(file);
    EXPECT_NO_THROW(io::check_labels_within(labels, 31, file));
    EXPECT_NO_THROW(io::check_labels_within(labels, 0, file));  // length unknown
    try {
      io::check_labels_within(labels, 20, file);
      ADD_FAILURE() << file << ": no error";
    } catch (const zf::parse_error& e) {
      EXPECT_NE(std::string(e.what()).find(": 2 of 3 beats lie past the end of the recording (20 samples; the last "
                                           "at sample 30)"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Labels, TheStatedTimeResolutionIsHonoured) {
  // As wfdb-python's wrann writes it: a note at sample 0 with the text, then SKIP -1 and an empty
  // word of interval 1 back to sample 0, then the beats.
  const std::string text = "## time resolution: 250";
  const std::string header = mit_word(22, 0) + mit_word(63, static_cast<unsigned>(text.size())) + text +
                             std::string(1, '\0') + mit_word(59, 0) + std::string("\xff\xff\xff\xff", 4) +
                             mit_word(0, 1);
  const std::string beats = mit_word(1, 10) + mit_word(5, 290) + mit_word(1, 400) + std::string(2, '\0');
  zf::test::scratch_dir dir;
  const auto file = dir.write("t.atr", header + beats);
  const auto labels = io::read_labels(file);
  EXPECT_EQ(labels.time_resolution, 250.0);
  EXPECT_EQ(labels.samples, (std::vector<std::int64_t>{10, 300, 700}));
  // At the recording's own rate the samples stay; at twice the rate they double.
  EXPECT_EQ(io::read_labels_for(file, 250.0, 1000).samples, (std::vector<std::int64_t>{10, 300, 700}));
  EXPECT_EQ(io::read_labels_for(file, 500.0, 2000).samples, (std::vector<std::int64_t>{20, 600, 1400}));
  // Past the end after conversion is past the end.
  EXPECT_THROW((void)io::read_labels_for(file, 500.0, 1000), zf::parse_error);
  // A file without the note is at the recording's rate, whatever it is.
  const auto plain = dir.write("p.atr", beats);
  EXPECT_EQ(io::read_labels(plain).time_resolution, 0.0);
  EXPECT_EQ(io::read_labels_for(plain, 500.0, 1000).samples, (std::vector<std::int64_t>{10, 300, 700}));
  // Two beats that one recording sample cannot tell apart are refused.
  const auto fine = dir.write("f.atr", header + mit_word(1, 10) + mit_word(1, 1) + std::string(2, '\0'));
  EXPECT_THROW((void)io::read_labels_for(fine, 50.0, 1000), zf::parse_error);
  // A resolution that is no rate is refused.
  const std::string bad = "## time resolution: fast";
  EXPECT_THROW((void)io::read_labels(dir.write("b.atr", mit_word(22, 0) + mit_word(63, 24) + bad + beats)),
               zf::parse_error);
}
