// beats.atr's writer against the reader (wfdb_annotations.cpp): every sample, code and rhythm
// text comes back, across SKIP intervals and texts of odd and even length.
#include "zeroflow/io/wfdb_annotation_writer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/labels.hpp"

namespace zio = zeroflow::io;

TEST(WfdbAnnotationWriter, WhatIsWrittenReadsBack) {
  const zeroflow::test::scratch_dir dir;
  const auto path = dir.path() / "beats.atr";
  const std::vector<zio::annotation> out = {
      {0, zio::annotation_code::rhythm, "(N"},
      {0, zio::annotation_code::normal, "0.5"},
      {300, zio::annotation_code::pvc, "12.25"},
      {300 + 70000, zio::annotation_code::rhythm, "(AFIB"},  // a SKIP: more than 1023 samples
      {300 + 70000, zio::annotation_code::supraventricular, ""},
      {300 + 70000 + 1023, zio::annotation_code::unknown, "x"},
      {5'000'000, zio::annotation_code::rhythm, "(N"},
      {5'000'000, zio::annotation_code::normal, "1"},
  };
  zio::write_wfdb_annotations(path, out);
  const auto back = zio::read_wfdb_annotations(path);
  EXPECT_EQ(back.samples, (std::vector<std::int64_t>{0, 300, 70300, 71323, 5'000'000}));
  EXPECT_EQ(back.classes, (std::vector<char>{'N', 'V', 'S', 'Q', 'N'}));
  ASSERT_EQ(back.rhythm.size(), 3U);
  EXPECT_EQ(back.rhythm[1].sample, 70300);
  EXPECT_EQ(back.rhythm[1].rhythm, "AFIB");
  EXPECT_EQ(back.rhythm[2].rhythm, "N");
}

TEST(WfdbAnnotationWriter, ClassLettersMapToMitCodes) {
  EXPECT_EQ(zio::annotation_code_of_class('N'), 1);
  EXPECT_EQ(zio::annotation_code_of_class('S'), 9);
  EXPECT_EQ(zio::annotation_code_of_class('V'), 5);
  EXPECT_EQ(zio::annotation_code_of_class('Q'), 13);
  EXPECT_EQ(zio::annotation_code_of_class('?'), 13);
}

TEST(WfdbAnnotationWriter, RefusesAnnotationsItCannotWrite) {
  const zeroflow::test::scratch_dir dir;
  const auto path = dir.path() / "bad.atr";
  const std::vector<zio::annotation> backwards = {{10, 1, ""}, {5, 1, ""}};
  EXPECT_THROW(zio::write_wfdb_annotations(path, backwards), zeroflow::invalid_argument);
  const std::vector<zio::annotation> bad_code = {{10, 60, ""}};
  EXPECT_THROW(zio::write_wfdb_annotations(path, bad_code), zeroflow::invalid_argument);
  const std::vector<zio::annotation> long_text = {{10, 1, std::string(256, 'a')}};
  EXPECT_THROW(zio::write_wfdb_annotations(path, long_text), zeroflow::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(path));  // nothing half-written
}
