#include "runtime/status.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace touchstone {
namespace {

StatusOr<int> Half(int n) {
  if (n % 2 != 0) return InvalidInputError(std::to_string(n) + " is odd");
  return n / 2;
}

// Halves twice through the macro, declaring the results.
StatusOr<int> Quarter(int n) {
  TS_ASSIGN_OR_RETURN(int half, Half(n));
  TS_ASSIGN_OR_RETURN(const int quarter, Half(half));
  return quarter;
}

TEST(AssignOrReturnTest, DeclaresTheValue) {
  StatusOr<int> q = Quarter(12);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.value(), 3);
}

TEST(AssignOrReturnTest, ReturnsTheFirstError) {
  StatusOr<int> q = Quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(q.status().message(), "3 is odd");
  q = Quarter(5);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().message(), "5 is odd");
}

// Into a variable declared before, in a function returning a plain Status.
Status HalfInto(int n, int* out) {
  int value = -1;
  TS_ASSIGN_OR_RETURN(value, Half(n));
  *out = value;
  return Status::Ok();
}

TEST(AssignOrReturnTest, AssignsAnExistingVariable) {
  int out = 0;
  EXPECT_TRUE(HalfInto(8, &out).ok());
  EXPECT_EQ(out, 4);
  Status s = HalfInto(7, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(out, 4);
}

// A move-only value is moved out; a template argument list's comma is no macro argument separator.
StatusOr<std::unique_ptr<std::string>> Make(bool ok) {
  if (!ok) return ExecutionError("no");
  return std::make_unique<std::string>("made");
}
StatusOr<std::map<int, int>> Map() { return std::map<int, int>{{1, 2}}; }

StatusOr<std::string> UseMoveOnly(bool ok) {
  TS_ASSIGN_OR_RETURN(auto made, Make(ok));
  TS_ASSIGN_OR_RETURN(auto map, std::pair<StatusOr<std::map<int, int>>, int>(Map(), 0).first);
  return *made + std::to_string(map.at(1));
}

TEST(AssignOrReturnTest, MovesAndTakesCommas) {
  StatusOr<std::string> s = UseMoveOnly(true);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value(), "made2");
  s = UseMoveOnly(false);
  EXPECT_EQ(s.status().code(), StatusCode::kExecution);
  EXPECT_EQ(s.status().message(), "no");
}

}  // namespace
}  // namespace touchstone
