// The interpreter's own behaviour: arena reuse, resizing, dynamic shapes re-prepared during Invoke,
// variables, and errors that name the op.
#include "runtime/interpreter.h"

#include <gtest/gtest.h>

#include "runtime/c/builtin_ops.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

flatbuffers::Offset<void> AddOptions(OpTest& t) {
  return fb::CreateAddOptions(t.fbb()).Union();
}

TEST(InterpreterTest, ChainReusesArenaMemory) {
  OpTest t;
  int x = t.AddInput(kTfLiteFloat32, {1, 256});
  for (int i = 0; i < 6; ++i) {
    const int y = i == 5 ? t.AddOutput(kTfLiteFloat32, {1, 256}) : t.AddIntermediate(kTfLiteFloat32, {1, 256});
    t.AddOp(kTfLiteBuiltinAdd, {x, x}, {y}, fb::BuiltinOptions::AddOptions, AddOptions(t));
    x = y;
  }
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, std::vector<float>(256, 1.0f));
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), std::vector<float>(256, 64.0f));
  // Seven 1 KiB tensors, but at most three live at once.
  EXPECT_LE(t.interpreter()->arena_bytes(), 3u * 1024u);
}

TEST(InterpreterTest, ResizeInputThenReallocate) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {1, 2});
  const int b = t.AddInput(kTfLiteFloat32, {1, 2});
  const int out = t.AddOutput(kTfLiteFloat32, {1, 2});
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.ResizeInput(0, {3, 2}).ok());
  ASSERT_TRUE(t.ResizeInput(1, {3, 2}).ok());
  EXPECT_EQ(t.Invoke().code(), StatusCode::kExecution);  // not allocated since the resize
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  t.SetInput<float>(1, {10, 20, 30, 40, 50, 60});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{11, 22, 33, 44, 55, 66}));
}

TEST(InterpreterTest, DataDependentShapeIsPreparedDuringInvoke) {
  // RESHAPE takes its shape from a graph input, so its output (and the ADD after it) is sized
  // only when Invoke has the shape's values.
  OpTest t;
  const int data = t.AddInput(kTfLiteFloat32, {6});
  const int shape = t.AddInput(kTfLiteInt32, {2});
  const int reshaped = t.AddIntermediate(kTfLiteFloat32);
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {data, shape}, {reshaped});
  t.AddOp(kTfLiteBuiltinAdd, {reshaped, reshaped}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  t.SetInput<int32_t>(1, {3, 2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  t.SetInput<int32_t>(1, {2, 3});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
}

TEST(InterpreterTest, UnsupportedOpIsNamed) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {1});
  const int out = t.AddOutput(kTfLiteFloat32, {1});
  t.AddOp(kTfLiteBuiltinHashtableLookup, {a}, {out});
  Status s = t.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HASHTABLE_LOOKUP"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
}

TEST(InterpreterTest, KernelErrorsNameTheOp) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2, 3});
  const int b = t.AddInput(kTfLiteFloat32, {4, 5});  // cannot broadcast with [2,3]
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  Status s = t.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op 0 (ADD)"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace touchstone
