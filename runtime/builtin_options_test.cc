#include "runtime/builtin_options.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

// Builds a one-operator model with the given options through ModelBuilder, then parses the
// operator back out of the serialized bytes.
class BuiltinOptionsTest : public ::testing::Test {
 protected:
  ~BuiltinOptionsTest() override { std::free(data_); }

  flatbuffers::FlatBufferBuilder& fbb() { return builder_.fbb(); }

  Status Parse(int code, fb::BuiltinOptions type = fb::BuiltinOptions::NONE, flatbuffers::Offset<void> options = 0) {
    const int t = builder_.AddTensor(kTfLiteFloat32, {1});
    builder_.AddOperator(code, {t}, {t}, type, options);
    bytes_ = builder_.Finish();
    const fb::Operator* op = fb::GetModel(bytes_.data())->subgraphs()->Get(0)->operators()->Get(0);
    data_ = reinterpret_cast<void*>(0x1);  // must be reset by the parser
    Status status = ParseBuiltinOptions(op, code, &data_);
    if (!status.ok()) {
      EXPECT_EQ(data_, nullptr);
    }
    return status;
  }

  template <typename P>
  const P& Params() {
    EXPECT_NE(data_, nullptr);
    return *static_cast<const P*>(data_);
  }

  bool PointsIntoModel(const void* p) const {
    const auto* c = static_cast<const uint8_t*>(p);
    return c >= bytes_.data() && c < bytes_.data() + bytes_.size();
  }

  ModelBuilder builder_;
  std::vector<uint8_t> bytes_;
  void* data_ = nullptr;
};

// Errors: kInvalidInput, message naming the option (the interpreter adds the operator).
void ExpectError(const Status& status, const std::string& option) {
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find(option), std::string::npos) << status.message();
}

TEST_F(BuiltinOptionsTest, Conv2D) {
  auto o = fb::CreateConv2DOptions(fbb(), fb::Padding::SAME, /*stride_w=*/2, /*stride_h=*/3,
                                   fb::ActivationFunctionType::RELU6, /*dilation_w=*/4,
                                   /*dilation_h=*/5);
  ASSERT_TRUE(Parse(kTfLiteBuiltinConv2d, fb::BuiltinOptions::Conv2DOptions, o.Union()).ok());
  const auto& p = Params<TfLiteConvParams>();
  EXPECT_EQ(p.padding, kTfLitePaddingSame);
  EXPECT_EQ(p.stride_width, 2);
  EXPECT_EQ(p.stride_height, 3);
  EXPECT_EQ(p.activation, kTfLiteActRelu6);
  EXPECT_EQ(p.dilation_width_factor, 4);
  EXPECT_EQ(p.dilation_height_factor, 5);
}

TEST_F(BuiltinOptionsTest, Conv2DTableDefaultsGiveDilationOne) {
  auto o = fb::CreateConv2DOptions(fbb(), fb::Padding::VALID, 1, 1);
  ASSERT_TRUE(Parse(kTfLiteBuiltinConv2d, fb::BuiltinOptions::Conv2DOptions, o.Union()).ok());
  const auto& p = Params<TfLiteConvParams>();
  EXPECT_EQ(p.padding, kTfLitePaddingValid);
  EXPECT_EQ(p.activation, kTfLiteActNone);
  EXPECT_EQ(p.dilation_width_factor, 1);
  EXPECT_EQ(p.dilation_height_factor, 1);
}

TEST_F(BuiltinOptionsTest, AbsentTableGivesZeroedParamsAsTfLite) {
  ASSERT_TRUE(Parse(kTfLiteBuiltinConv2d).ok());
  const auto& p = Params<TfLiteConvParams>();
  EXPECT_EQ(p.padding, kTfLitePaddingUnknown);
  EXPECT_EQ(p.stride_width, 0);
  EXPECT_EQ(p.activation, kTfLiteActNone);
  EXPECT_EQ(p.dilation_width_factor, 0);
  EXPECT_EQ(p.dilation_height_factor, 0);
}

TEST_F(BuiltinOptionsTest, TableOfAnotherTypeIsIgnored) {
  auto o = fb::CreateAddOptions(fbb(), fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(Parse(kTfLiteBuiltinConv2d, fb::BuiltinOptions::AddOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteConvParams>().activation, kTfLiteActNone);
}

TEST_F(BuiltinOptionsTest, DepthwiseConvWithTanh) {
  auto o = fb::CreateDepthwiseConv2DOptions(fbb(), fb::Padding::VALID, 1, 2, /*depth_multiplier=*/3,
                                            fb::ActivationFunctionType::TANH, 2, 1);
  ASSERT_TRUE(Parse(kTfLiteBuiltinDepthwiseConv2d, fb::BuiltinOptions::DepthwiseConv2DOptions, o.Union()).ok());
  const auto& p = Params<TfLiteDepthwiseConvParams>();
  EXPECT_EQ(p.padding, kTfLitePaddingValid);
  EXPECT_EQ(p.stride_width, 1);
  EXPECT_EQ(p.stride_height, 2);
  EXPECT_EQ(p.depth_multiplier, 3);
  EXPECT_EQ(p.activation, kTfLiteActTanh);
  EXPECT_EQ(p.dilation_width_factor, 2);
  EXPECT_EQ(p.dilation_height_factor, 1);
}

TEST_F(BuiltinOptionsTest, MaxPoolWithSignBit) {
  auto o = fb::CreatePool2DOptions(fbb(), fb::Padding::SAME, 2, 2, /*filter_w=*/3, /*filter_h=*/4,
                                   fb::ActivationFunctionType::SIGN_BIT);
  ASSERT_TRUE(Parse(kTfLiteBuiltinMaxPool2d, fb::BuiltinOptions::Pool2DOptions, o.Union()).ok());
  const auto& p = Params<TfLitePoolParams>();
  EXPECT_EQ(p.filter_width, 3);
  EXPECT_EQ(p.filter_height, 4);
  EXPECT_EQ(p.activation, kTfLiteActSignBit);
}

TEST_F(BuiltinOptionsTest, UnknownActivationIsAnError) {
  auto o = fb::CreateConv2DOptions(fbb(), fb::Padding::SAME, 1, 1, static_cast<fb::ActivationFunctionType>(9));
  ExpectError(Parse(kTfLiteBuiltinConv2d, fb::BuiltinOptions::Conv2DOptions, o.Union()),
              "Conv2DOptions.fused_activation_function");
}

TEST_F(BuiltinOptionsTest, UnknownPaddingIsAnError) {
  auto o = fb::CreatePool2DOptions(fbb(), static_cast<fb::Padding>(2));
  ExpectError(Parse(kTfLiteBuiltinAveragePool2d, fb::BuiltinOptions::Pool2DOptions, o.Union()),
              "Pool2DOptions.padding");
}

TEST_F(BuiltinOptionsTest, Reshape) {
  auto o = fb::CreateReshapeOptions(fbb(), fbb().CreateVector<int32_t>({2, -1, 3}));
  ASSERT_TRUE(Parse(kTfLiteBuiltinReshape, fb::BuiltinOptions::ReshapeOptions, o.Union()).ok());
  const auto& p = Params<TfLiteReshapeParams>();
  ASSERT_EQ(p.num_dimensions, 3);
  EXPECT_EQ(p.shape[0], 2);
  EXPECT_EQ(p.shape[1], -1);
  EXPECT_EQ(p.shape[2], 3);
}

TEST_F(BuiltinOptionsTest, ReshapeWithoutNewShape) {
  auto o = fb::CreateReshapeOptions(fbb());
  ASSERT_TRUE(Parse(kTfLiteBuiltinReshape, fb::BuiltinOptions::ReshapeOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteReshapeParams>().num_dimensions, 0);
}

TEST_F(BuiltinOptionsTest, ReshapeWithTooManyDimensions) {
  std::vector<int32_t> dims(TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT + 1, 1);
  auto o = fb::CreateReshapeOptions(fbb(), fbb().CreateVector(dims));
  ExpectError(Parse(kTfLiteBuiltinReshape, fb::BuiltinOptions::ReshapeOptions, o.Union()), "ReshapeOptions.new_shape");
}

TEST_F(BuiltinOptionsTest, Squeeze) {
  auto o = fb::CreateSqueezeOptions(fbb(), fbb().CreateVector<int32_t>({0, 2}));
  ASSERT_TRUE(Parse(kTfLiteBuiltinSqueeze, fb::BuiltinOptions::SqueezeOptions, o.Union()).ok());
  const auto& p = Params<TfLiteSqueezeParams>();
  ASSERT_EQ(p.num_squeeze_dims, 2);
  EXPECT_EQ(p.squeeze_dims[0], 0);
  EXPECT_EQ(p.squeeze_dims[1], 2);
}

TEST_F(BuiltinOptionsTest, SqueezeWithTooManyDimensions) {
  auto o = fb::CreateSqueezeOptions(fbb(), fbb().CreateVector(std::vector<int32_t>(9, 0)));
  ExpectError(Parse(kTfLiteBuiltinSqueeze, fb::BuiltinOptions::SqueezeOptions, o.Union()),
              "SqueezeOptions.squeeze_dims");
}

TEST_F(BuiltinOptionsTest, Lstm) {
  auto o = fb::CreateLSTMOptions(fbb(), fb::ActivationFunctionType::TANH, /*cell_clip=*/10.f,
                                 /*proj_clip=*/2.5f, fb::LSTMKernelType::BASIC,
                                 /*asymmetric_quantize_inputs=*/true);
  ASSERT_TRUE(Parse(kTfLiteBuiltinLstm, fb::BuiltinOptions::LSTMOptions, o.Union()).ok());
  const auto& p = Params<TfLiteLSTMParams>();
  EXPECT_EQ(p.activation, kTfLiteActTanh);
  EXPECT_FLOAT_EQ(p.cell_clip, 10.f);
  EXPECT_FLOAT_EQ(p.proj_clip, 2.5f);
  EXPECT_EQ(p.kernel_type, kTfLiteLSTMBasicKernel);
  EXPECT_TRUE(p.asymmetric_quantize_inputs);
}

TEST_F(BuiltinOptionsTest, LstmRequiresItsOptions) { ExpectError(Parse(kTfLiteBuiltinLstm), "LSTMOptions"); }

TEST_F(BuiltinOptionsTest, LstmUnknownKernelType) {
  auto o = fb::CreateLSTMOptions(fbb(), fb::ActivationFunctionType::TANH, 0.f, 0.f, static_cast<fb::LSTMKernelType>(2));
  ExpectError(Parse(kTfLiteBuiltinLstm, fb::BuiltinOptions::LSTMOptions, o.Union()), "LSTMOptions.kernel_type");
}

TEST_F(BuiltinOptionsTest, UnidirectionalSequenceLstm) {
  auto o = fb::CreateUnidirectionalSequenceLSTMOptions(
      fbb(), fb::ActivationFunctionType::RELU, 1.f, 0.f, /*time_major=*/true,
      /*asymmetric_quantize_inputs=*/false, /*diagonal_recurrent_tensors=*/true);
  ASSERT_TRUE(
      Parse(kTfLiteBuiltinUnidirectionalSequenceLstm, fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions, o.Union())
          .ok());
  const auto& p = Params<TfLiteUnidirectionalSequenceLSTMParams>();
  EXPECT_EQ(p.activation, kTfLiteActRelu);
  EXPECT_FLOAT_EQ(p.cell_clip, 1.f);
  EXPECT_TRUE(p.time_major);
  EXPECT_FALSE(p.asymmetric_quantize_inputs);
  EXPECT_TRUE(p.diagonal_recurrent_tensors);
}

TEST_F(BuiltinOptionsTest, BidirectionalSequenceLstmSchemaDefaultTimeMajor) {
  auto o = fb::CreateBidirectionalSequenceLSTMOptions(fbb(), fb::ActivationFunctionType::TANH, 0.f, 0.f,
                                                      /*merge_outputs=*/true);
  ASSERT_TRUE(
      Parse(kTfLiteBuiltinBidirectionalSequenceLstm, fb::BuiltinOptions::BidirectionalSequenceLSTMOptions, o.Union())
          .ok());
  const auto& p = Params<TfLiteBidirectionalSequenceLSTMParams>();
  EXPECT_TRUE(p.merge_outputs);
  EXPECT_TRUE(p.time_major);  // schema default true
}

TEST_F(BuiltinOptionsTest, AddPotScaleDefaults) {
  auto o = fb::CreateAddOptions(fbb(), fb::ActivationFunctionType::RELU_N1_TO_1);
  ASSERT_TRUE(Parse(kTfLiteBuiltinAdd, fb::BuiltinOptions::AddOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteAddParams>().activation, kTfLiteActReluN1To1);
  EXPECT_TRUE(Params<TfLiteAddParams>().pot_scale_int16);  // schema default true
}

TEST_F(BuiltinOptionsTest, AddWithoutTable) {
  ASSERT_TRUE(Parse(kTfLiteBuiltinAdd).ok());
  EXPECT_FALSE(Params<TfLiteAddParams>().pot_scale_int16);  // zeroed, as TFLite
}

TEST_F(BuiltinOptionsTest, FullyConnected) {
  auto o = fb::CreateFullyConnectedOptions(fbb(), fb::ActivationFunctionType::RELU,
                                           fb::FullyConnectedOptionsWeightsFormat::SHUFFLED4x16INT8,
                                           /*keep_num_dims=*/true);
  ASSERT_TRUE(Parse(kTfLiteBuiltinFullyConnected, fb::BuiltinOptions::FullyConnectedOptions, o.Union()).ok());
  const auto& p = Params<TfLiteFullyConnectedParams>();
  EXPECT_EQ(p.activation, kTfLiteActRelu);
  EXPECT_EQ(p.weights_format, kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8);
  EXPECT_TRUE(p.keep_num_dims);
  EXPECT_FALSE(p.asymmetric_quantize_inputs);
}

TEST_F(BuiltinOptionsTest, FullyConnectedUnknownWeightsFormat) {
  auto o = fb::CreateFullyConnectedOptions(fbb(), fb::ActivationFunctionType::NONE,
                                           static_cast<fb::FullyConnectedOptionsWeightsFormat>(7));
  ExpectError(Parse(kTfLiteBuiltinFullyConnected, fb::BuiltinOptions::FullyConnectedOptions, o.Union()),
              "FullyConnectedOptions.weights_format");
}

TEST_F(BuiltinOptionsTest, Cast) {
  auto o = fb::CreateCastOptions(fbb(), fb::TensorType::UINT8, fb::TensorType::INT64);
  ASSERT_TRUE(Parse(kTfLiteBuiltinCast, fb::BuiltinOptions::CastOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteCastParams>().in_data_type, kTfLiteUInt8);
  EXPECT_EQ(Params<TfLiteCastParams>().out_data_type, kTfLiteInt64);
}

TEST_F(BuiltinOptionsTest, CastToTypeTheCApiLacks) {
  auto o = fb::CreateCastOptions(fbb(), fb::TensorType::FLOAT32, fb::TensorType::BFLOAT16);
  ExpectError(Parse(kTfLiteBuiltinCast, fb::BuiltinOptions::CastOptions, o.Union()), "CastOptions.out_data_type");
}

TEST_F(BuiltinOptionsTest, ArgMaxOutputType) {
  auto o = fb::CreateArgMaxOptions(fbb(), fb::TensorType::INT64);
  ASSERT_TRUE(Parse(kTfLiteBuiltinArgMax, fb::BuiltinOptions::ArgMaxOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteArgMaxParams>().output_type, kTfLiteInt64);
}

TEST_F(BuiltinOptionsTest, ReducerKeepDims) {
  auto o = fb::CreateReducerOptions(fbb(), /*keep_dims=*/true);
  ASSERT_TRUE(Parse(kTfLiteBuiltinReduceMax, fb::BuiltinOptions::ReducerOptions, o.Union()).ok());
  EXPECT_TRUE(Params<TfLiteReducerParams>().keep_dims);
}

TEST_F(BuiltinOptionsTest, StridedSlice) {
  auto o = fb::CreateStridedSliceOptions(fbb(), 1, 2, 4, 8, 16, /*offset=*/true);
  ASSERT_TRUE(Parse(kTfLiteBuiltinStridedSlice, fb::BuiltinOptions::StridedSliceOptions, o.Union()).ok());
  const auto& p = Params<TfLiteStridedSliceParams>();
  EXPECT_EQ(p.begin_mask, 1);
  EXPECT_EQ(p.end_mask, 2);
  EXPECT_EQ(p.ellipsis_mask, 4);
  EXPECT_EQ(p.new_axis_mask, 8);
  EXPECT_EQ(p.shrink_axis_mask, 16);
  EXPECT_TRUE(p.offset);
}

TEST_F(BuiltinOptionsTest, MirrorPad) {
  auto o = fb::CreateMirrorPadOptions(fbb(), fb::MirrorPadMode::SYMMETRIC);
  ASSERT_TRUE(Parse(kTfLiteBuiltinMirrorPad, fb::BuiltinOptions::MirrorPadOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteMirrorPaddingParams>().mode, kTfLiteMirrorPaddingSymmetric);
}

TEST_F(BuiltinOptionsTest, MirrorPadUnknownMode) {
  auto o = fb::CreateMirrorPadOptions(fbb(), static_cast<fb::MirrorPadMode>(3));
  ExpectError(Parse(kTfLiteBuiltinMirrorPad, fb::BuiltinOptions::MirrorPadOptions, o.Union()), "MirrorPadOptions.mode");
}

TEST_F(BuiltinOptionsTest, WhileSubgraphs) {
  auto o = fb::CreateWhileOptions(fbb(), 1, 2);
  ASSERT_TRUE(Parse(kTfLiteBuiltinWhile, fb::BuiltinOptions::WhileOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteWhileParams>().cond_subgraph_index, 1);
  EXPECT_EQ(Params<TfLiteWhileParams>().body_subgraph_index, 2);
}

TEST_F(BuiltinOptionsTest, VarHandleStringsPointIntoTheModel) {
  auto o = fb::CreateVarHandleOptions(fbb(), fbb().CreateString("c"), fbb().CreateString("var"));
  ASSERT_TRUE(Parse(kTfLiteBuiltinVarHandle, fb::BuiltinOptions::VarHandleOptions, o.Union()).ok());
  const auto& p = Params<TfLiteVarHandleParams>();
  EXPECT_STREQ(p.container, "c");
  EXPECT_STREQ(p.shared_name, "var");
  EXPECT_TRUE(PointsIntoModel(p.shared_name));
}

TEST_F(BuiltinOptionsTest, BucketizeBoundariesPointIntoTheModel) {
  auto o = fb::CreateBucketizeOptions(fbb(), fbb().CreateVector<float>({0.f, 1.5f, 3.f}));
  ASSERT_TRUE(Parse(kTfLiteBuiltinBucketize, fb::BuiltinOptions::BucketizeOptions, o.Union()).ok());
  const auto& p = Params<TfLiteBucketizeParams>();
  ASSERT_EQ(p.num_boundaries, 3);
  EXPECT_FLOAT_EQ(p.boundaries[1], 1.5f);
  EXPECT_TRUE(PointsIntoModel(p.boundaries));
}

TEST_F(BuiltinOptionsTest, BucketizeWithoutBoundaries) {
  auto o = fb::CreateBucketizeOptions(fbb());
  ExpectError(Parse(kTfLiteBuiltinBucketize, fb::BuiltinOptions::BucketizeOptions, o.Union()),
              "BucketizeOptions.boundaries");
}

TEST_F(BuiltinOptionsTest, RandomSeeds) {
  auto o = fb::CreateRandomOptions(fbb(), 7, 11);
  ASSERT_TRUE(Parse(kTfLiteBuiltinRandomUniform, fb::BuiltinOptions::RandomOptions, o.Union()).ok());
  EXPECT_EQ(Params<TfLiteRandomParams>().seed, 7);
  EXPECT_EQ(Params<TfLiteRandomParams>().seed2, 11);
}

TEST_F(BuiltinOptionsTest, OpWithoutParamsGivesNull) {
  ASSERT_TRUE(Parse(kTfLiteBuiltinRelu).ok());
  EXPECT_EQ(data_, nullptr);
}

TEST_F(BuiltinOptionsTest, PlaceholderParamsAreAllocated) {
  ASSERT_TRUE(Parse(kTfLiteBuiltinPad).ok());
  EXPECT_NE(data_, nullptr);
}

TEST_F(BuiltinOptionsTest, DelegateIsRejected) { ExpectError(Parse(kTfLiteBuiltinDelegate), "DELEGATE"); }

TEST_F(BuiltinOptionsTest, PlaceholderCodeIsRejected) {
  EXPECT_EQ(Parse(kTfLiteBuiltinPlaceholderForGreaterOpCodes).code(), StatusCode::kInvalidInput);
}

// Operators whose tables live in builtin_options_2 (not reachable through ModelBuilder).
class BuiltinOptions2Test : public ::testing::Test {
 protected:
  ~BuiltinOptions2Test() override { std::free(data_); }

  Status Parse(int code, fb::BuiltinOptions2 type, flatbuffers::Offset<void> options) {
    fb::OperatorBuilder op(fbb_);
    op.add_builtin_options_2_type(type);
    op.add_builtin_options_2(options);
    fbb_.Finish(op.Finish());
    return ParseBuiltinOptions(flatbuffers::GetRoot<fb::Operator>(fbb_.GetBufferPointer()), code, &data_);
  }

  flatbuffers::FlatBufferBuilder fbb_;
  void* data_ = nullptr;
};

TEST_F(BuiltinOptions2Test, StablehloPad) {
  auto o = fb::CreateStablehloPadOptions(fbb_, fbb_.CreateVector<int64_t>({1, 2}), fbb_.CreateVector<int64_t>({3, 4}),
                                         fbb_.CreateVector<int64_t>({0, 5}));
  ASSERT_TRUE(Parse(kTfLiteBuiltinStablehloPad, fb::BuiltinOptions2::StablehloPadOptions, o.Union()).ok());
  const auto* p = static_cast<const TfLiteStablehloPadParams*>(data_);
  EXPECT_EQ(p->edge_padding_low[1], 2);
  EXPECT_EQ(p->edge_padding_high[0], 3);
  EXPECT_EQ(p->interior_padding[1], 5);
}

TEST_F(BuiltinOptions2Test, StablehloPadInconsistentLengths) {
  auto o = fb::CreateStablehloPadOptions(fbb_, fbb_.CreateVector<int64_t>({1, 2}), fbb_.CreateVector<int64_t>({3}),
                                         fbb_.CreateVector<int64_t>({0, 5}));
  ExpectError(Parse(kTfLiteBuiltinStablehloPad, fb::BuiltinOptions2::StablehloPadOptions, o.Union()),
              "StablehloPadOptions");
  EXPECT_EQ(data_, nullptr);
}

TEST_F(BuiltinOptions2Test, StablehloReduceWindowDefaults) {
  auto o = fb::CreateStablehloReduceWindowOptions(fbb_, fbb_.CreateVector<int64_t>({2, 3}),
                                                  fbb_.CreateVector<int64_t>({1, 2}), 0, 0, 0,
                                                  /*body_subgraph_index=*/4);
  ASSERT_TRUE(
      Parse(kTfLiteBuiltinStablehloReduceWindow, fb::BuiltinOptions2::StablehloReduceWindowOptions, o.Union()).ok());
  const auto* p = static_cast<const TfLiteStablehloReduceWindowParams*>(data_);
  EXPECT_EQ(p->window_dimensions[1], 3);
  EXPECT_EQ(p->window_strides[1], 2);
  EXPECT_EQ(p->base_dilations[0], 1);
  EXPECT_EQ(p->window_dilations[1], 1);
  EXPECT_EQ(p->padding[3], 0);
  EXPECT_EQ(p->body_subgraph_index, 4);
}

TEST(BuiltinOptionsNoOperatorTest, UnknownCodes) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fb::CreateOperator(fbb));
  const auto* op = flatbuffers::GetRoot<fb::Operator>(fbb.GetBufferPointer());
  void* data = nullptr;
  ExpectError(ParseBuiltinOptions(op, 999, &data), "999");
  ExpectError(ParseBuiltinOptions(op, -1, &data), "-1");
  EXPECT_EQ(data, nullptr);
}

TEST(BuiltinOperatorNameTest, Names) {
  EXPECT_STREQ(BuiltinOperatorName(kTfLiteBuiltinConv2d), "CONV_2D");
  EXPECT_STREQ(BuiltinOperatorName(kTfLiteBuiltinGelu), "GELU");
  EXPECT_STREQ(BuiltinOperatorName(209), "STABLEHLO_CASE");
  EXPECT_STREQ(BuiltinOperatorName(210), "UNKNOWN");
  EXPECT_STREQ(BuiltinOperatorName(-1), "UNKNOWN");
}

}  // namespace
}  // namespace touchstone
