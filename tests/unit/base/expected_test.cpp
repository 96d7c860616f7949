// SPDX-License-Identifier: BSD-3-Clause
// symmer::Expected / Status: values and errors travel, value() on an error throws with the
// message, and nothing is default-successful by accident.
#include "symmer/expected.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

symmer::Expected<int> parse_positive(const std::string& s) {
  if (s.empty()) return symmer::Error(symmer::Errc::kParse, "empty input");
  const int v = std::stoi(s);
  if (v <= 0) return symmer::Error(symmer::Errc::kInvalidArgument, s + " is not positive");
  return v;
}

TEST(Expected, HoldsValue) {
  auto v = parse_positive("42");
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(static_cast<bool>(v));
  EXPECT_EQ(*v, 42);
  EXPECT_EQ(v.value(), 42);
  EXPECT_EQ(v.value_or(7), 42);
}

TEST(Expected, HoldsErrorWithClassAndMessage) {
  auto v = parse_positive("-3");
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().code, symmer::Errc::kInvalidArgument);
  EXPECT_EQ(v.error().message, "-3 is not positive");
  EXPECT_EQ(v.error().to_string(), "invalid argument: -3 is not positive");
  EXPECT_EQ(v.value_or(7), 7);
}

TEST(Expected, ValueOnErrorThrowsWithTheMessage) {
  auto v = parse_positive("");
  try {
    (void)v.value();
    FAIL() << "value() on an error must throw";
  } catch (const symmer::BadExpectedAccess& e) {
    EXPECT_EQ(std::string(e.what()), "parse error: empty input");
    EXPECT_EQ(e.error().code, symmer::Errc::kParse);
  }
}

TEST(Expected, ErrorOnAValueIsAnInternalErrorNotACrash) {
  auto v = parse_positive("1");
  EXPECT_EQ(v.error().code, symmer::Errc::kInternal);
  EXPECT_EQ(std::move(v).error().code, symmer::Errc::kInternal);
}

TEST(Expected, ConvertsFromWhatTIsConstructibleFrom) {
  auto make = [](bool ok) -> symmer::Expected<std::string> {
    if (!ok) return symmer::Error(symmer::Errc::kNotFound, "no such thing");
    return "text";  // const char* -> std::string
  };
  EXPECT_EQ(make(true).value(), "text");
  EXPECT_EQ(make(false).error().code, symmer::Errc::kNotFound);
}

TEST(Expected, MovesOnlyTypes) {
  symmer::Expected<std::unique_ptr<int>> p = std::make_unique<int>(5);
  ASSERT_TRUE(p);
  std::unique_ptr<int> owned = std::move(p).value();
  EXPECT_EQ(*owned, 5);
}

TEST(Status, DefaultIsSuccessAndErrorIsNot) {
  symmer::Status ok;
  EXPECT_TRUE(ok.has_value());
  EXPECT_NO_THROW(ok.value());
  symmer::Status bad = symmer::Error(symmer::Errc::kIo, "/dev/shm/x: permission denied");
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(), "I/O error: /dev/shm/x: permission denied");
  EXPECT_THROW(bad.value(), symmer::BadExpectedAccess);
}

TEST(Errc, EveryClassHasAName) {
  for (auto c : {symmer::Errc::kInvalidArgument, symmer::Errc::kNotFound, symmer::Errc::kIo,
                 symmer::Errc::kParse, symmer::Errc::kUnsupported, symmer::Errc::kInternal})
    EXPECT_STRNE(symmer::errc_name(c), "");
}

}  // namespace
