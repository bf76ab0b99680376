#include "runtime/model_builder.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/model.h"

namespace touchstone {
namespace {

std::vector<int> Ints(const flatbuffers::Vector<int32_t>* v) {
  return v == nullptr ? std::vector<int>() : std::vector<int>(v->begin(), v->end());
}

// in + bias -> ADD (fused RELU) -> sum -> RESHAPE to [1, 4] -> out, with a signature; a second
// subgraph holds a GELU (code 150 > 127) and a custom op.
class ModelBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ModelBuilder b;
    b.SetDescription("two ops");
    in_ = b.AddTensor(kTfLiteFloat32, {1, 2, 2, 1}, "input");
    b.SetShapeSignature(in_, {-1, 2, 2, 1});
    bias_ = b.AddConstTensor(kTfLiteFloat32, {1, 2, 2, 1}, bias_values_, "bias");
    sum_ = b.AddTensor(kTfLiteFloat32, {1, 2, 2, 1}, "sum");
    shape_ = b.AddConstTensor(kTfLiteInt32, {2}, std::vector<int32_t>{1, 4}, "shape");
    out_ = b.AddTensor(kTfLiteFloat32, {1, 4}, "output");
    quant_ = b.AddConstTensor(kTfLiteInt8, {2, 1}, std::vector<int8_t>{-3, 7}, "per_channel");
    b.SetQuantization(quant_, {0.5f, 0.25f}, {0, 1}, /*quantized_dimension=*/0);
    state_ = b.AddTensor(kTfLiteInt16, {3}, "state");
    b.SetQuantization(state_, {0.125f}, {-2});
    b.SetVariable(state_, true);

    add_ = b.AddOperator(kTfLiteBuiltinAdd, {in_, bias_}, {sum_}, fb::BuiltinOptions::AddOptions,
                         fb::CreateAddOptions(b.fbb(), fb::ActivationFunctionType::RELU).Union());
    reshape_ = b.AddOperator(kTfLiteBuiltinReshape, {sum_, shape_}, {out_}, fb::BuiltinOptions::ReshapeOptions,
                             fb::CreateReshapeOptions(b.fbb(), b.fbb().CreateVector<int32_t>({1, 4})).Union());
    b.SetIntermediates(reshape_, {state_});
    b.SetInputs({in_});
    b.SetOutputs({out_});
    b.AddSignature("serving_default", 0, {{"x", in_}}, {{"y", out_}});

    EXPECT_EQ(b.AddSubgraph("gelu"), 1);
    EXPECT_EQ(b.current_subgraph(), 1);
    const int g_in = b.AddTensor(kTfLiteFloat32, {4}, "g_in");
    const int g_mid = b.AddTensor(kTfLiteFloat32, {4}, "g_mid");
    const int g_out = b.AddTensor(kTfLiteFloat32, {4}, "g_out");
    b.AddOperator(kTfLiteBuiltinGelu, {g_in}, {g_mid}, fb::BuiltinOptions::GeluOptions,
                  fb::CreateGeluOptions(b.fbb(), true).Union(), /*version=*/2);
    b.AddCustomOperator("MyOp", {g_mid, -1}, {g_out}, {1, 2, 3});
    b.SetInputs({g_in});
    b.SetOutputs({g_out});
    b.SetCurrentSubgraph(0);
    // Lands in subgraph 0 again and reuses the ADD operator code.
    second_add_ = b.AddOperator(kTfLiteBuiltinAdd, {out_, out_}, {out_}, fb::BuiltinOptions::AddOptions,
                                fb::CreateAddOptions(b.fbb()).Union());

    bytes_ = b.Finish();
    flatbuffers::Verifier verifier(bytes_.data(), bytes_.size());
    ASSERT_TRUE(fb::VerifyModelBuffer(verifier));
    ASSERT_TRUE(fb::ModelBufferHasIdentifier(bytes_.data()));
    model_ = fb::GetModel(bytes_.data());
  }

  const fb::Tensor* Tensor(int subgraph, int index) const {
    return model_->subgraphs()->Get(subgraph)->tensors()->Get(index);
  }
  const fb::OperatorCode* Code(const fb::Operator* op) const {
    return model_->operator_codes()->Get(op->opcode_index());
  }

  const std::vector<float> bias_values_ = {0.5f, -1.0f, 2.0f, 3.25f};
  int in_, bias_, sum_, shape_, out_, quant_, state_, add_, reshape_, second_add_;
  std::vector<uint8_t> bytes_;
  const fb::Model* model_ = nullptr;
};

TEST_F(ModelBuilderTest, ModelHeader) {
  EXPECT_EQ(model_->version(), 3u);
  ASSERT_NE(model_->description(), nullptr);
  EXPECT_EQ(model_->description()->str(), "two ops");
  ASSERT_EQ(model_->subgraphs()->size(), 2u);
  EXPECT_EQ(model_->subgraphs()->Get(1)->name()->str(), "gelu");
}

TEST_F(ModelBuilderTest, TensorsShapesAndFlags) {
  const fb::SubGraph* sg = model_->subgraphs()->Get(0);
  ASSERT_EQ(sg->tensors()->size(), 7u);
  EXPECT_EQ(Ints(sg->inputs()), std::vector<int>({in_}));
  EXPECT_EQ(Ints(sg->outputs()), std::vector<int>({out_}));

  const fb::Tensor* in = Tensor(0, in_);
  EXPECT_EQ(in->name()->str(), "input");
  EXPECT_EQ(in->type(), fb::TensorType::FLOAT32);
  EXPECT_EQ(Ints(in->shape()), std::vector<int>({1, 2, 2, 1}));
  EXPECT_EQ(Ints(in->shape_signature()), std::vector<int>({-1, 2, 2, 1}));
  EXPECT_EQ(in->buffer(), 0u);
  EXPECT_EQ(in->quantization(), nullptr);
  EXPECT_FALSE(in->is_variable());

  EXPECT_EQ(Tensor(0, shape_)->type(), fb::TensorType::INT32);
  EXPECT_EQ(Tensor(0, quant_)->type(), fb::TensorType::INT8);
  EXPECT_EQ(Ints(Tensor(0, out_)->shape()), std::vector<int>({1, 4}));
  EXPECT_EQ(Tensor(0, out_)->shape_signature(), nullptr);

  const fb::Tensor* state = Tensor(0, state_);
  EXPECT_EQ(state->type(), fb::TensorType::INT16);
  EXPECT_TRUE(state->is_variable());
  EXPECT_EQ(state->buffer(), 0u);
}

TEST_F(ModelBuilderTest, Quantization) {
  const fb::QuantizationParameters* q = Tensor(0, quant_)->quantization();
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(std::vector<float>(q->scale()->begin(), q->scale()->end()), std::vector<float>({0.5f, 0.25f}));
  EXPECT_EQ(std::vector<int64_t>(q->zero_point()->begin(), q->zero_point()->end()), std::vector<int64_t>({0, 1}));
  EXPECT_EQ(q->quantized_dimension(), 0);

  const fb::QuantizationParameters* s = Tensor(0, state_)->quantization();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->scale()->size(), 1u);
  EXPECT_FLOAT_EQ(s->scale()->Get(0), 0.125f);
  EXPECT_EQ(s->zero_point()->Get(0), -2);
}

TEST_F(ModelBuilderTest, BuffersHoldConstantDataAligned) {
  const auto* buffers = model_->buffers();
  ASSERT_EQ(buffers->size(), 4u);  // sentinel + bias + shape + per_channel
  EXPECT_TRUE(buffers->Get(0)->data() == nullptr || buffers->Get(0)->data()->size() == 0);

  const uint32_t bias_buffer = Tensor(0, bias_)->buffer();
  const uint32_t shape_buffer = Tensor(0, shape_)->buffer();
  const uint32_t quant_buffer = Tensor(0, quant_)->buffer();
  EXPECT_NE(bias_buffer, 0u);
  EXPECT_NE(bias_buffer, shape_buffer);
  EXPECT_NE(shape_buffer, quant_buffer);

  const auto* bias = buffers->Get(bias_buffer)->data();
  ASSERT_EQ(bias->size(), bias_values_.size() * sizeof(float));
  std::vector<float> bias_read(bias_values_.size());
  std::memcpy(bias_read.data(), bias->data(), bias->size());
  EXPECT_EQ(bias_read, bias_values_);

  const auto* shape = buffers->Get(shape_buffer)->data();
  ASSERT_EQ(shape->size(), 2 * sizeof(int32_t));
  int32_t shape_read[2];
  std::memcpy(shape_read, shape->data(), sizeof(shape_read));
  EXPECT_EQ(shape_read[0], 1);
  EXPECT_EQ(shape_read[1], 4);

  const auto* quant = buffers->Get(quant_buffer)->data();
  ASSERT_EQ(quant->size(), 2u);
  EXPECT_EQ(static_cast<int8_t>(quant->Get(0)), -3);
  EXPECT_EQ(static_cast<int8_t>(quant->Get(1)), 7);

  for (uint32_t b : {bias_buffer, shape_buffer, quant_buffer}) {
    const size_t offset = buffers->Get(b)->data()->data() - bytes_.data();
    EXPECT_EQ(offset % 16, 0u) << "buffer " << b;
  }
}

TEST_F(ModelBuilderTest, OperatorsAndOptions) {
  const fb::SubGraph* sg = model_->subgraphs()->Get(0);
  ASSERT_EQ(sg->operators()->size(), 3u);
  EXPECT_EQ(add_, 0);
  EXPECT_EQ(reshape_, 1);
  EXPECT_EQ(second_add_, 2);

  const fb::Operator* add = sg->operators()->Get(add_);
  EXPECT_EQ(Code(add)->builtin_code(), fb::BuiltinOperator::ADD);
  EXPECT_EQ(Ints(add->inputs()), std::vector<int>({in_, bias_}));
  EXPECT_EQ(Ints(add->outputs()), std::vector<int>({sum_}));
  ASSERT_NE(add->builtin_options_as_AddOptions(), nullptr);
  EXPECT_EQ(add->builtin_options_as_AddOptions()->fused_activation_function(), fb::ActivationFunctionType::RELU);

  const fb::Operator* reshape = sg->operators()->Get(reshape_);
  EXPECT_EQ(Code(reshape)->builtin_code(), fb::BuiltinOperator::RESHAPE);
  ASSERT_NE(reshape->builtin_options_as_ReshapeOptions(), nullptr);
  EXPECT_EQ(Ints(reshape->builtin_options_as_ReshapeOptions()->new_shape()), std::vector<int>({1, 4}));

  EXPECT_EQ(add->intermediates(), nullptr);
  EXPECT_EQ(Ints(reshape->intermediates()), std::vector<int>({state_}));

  // Both ADDs share one operator code.
  EXPECT_EQ(sg->operators()->Get(second_add_)->opcode_index(), add->opcode_index());
  EXPECT_EQ(sg->operators()->Get(second_add_)->builtin_options_as_AddOptions()->fused_activation_function(),
            fb::ActivationFunctionType::NONE);
}

TEST_F(ModelBuilderTest, OperatorCodes) {
  ASSERT_EQ(model_->operator_codes()->size(), 4u);  // ADD, RESHAPE, GELU, custom
  const fb::OperatorCode* add = model_->operator_codes()->Get(0);
  EXPECT_EQ(add->deprecated_builtin_code(), 0);
  EXPECT_EQ(add->builtin_code(), fb::BuiltinOperator::ADD);
  EXPECT_EQ(add->version(), 1);
  EXPECT_EQ(add->custom_code(), nullptr);

  const fb::OperatorCode* reshape = model_->operator_codes()->Get(1);
  EXPECT_EQ(reshape->deprecated_builtin_code(), 22);
  EXPECT_EQ(reshape->builtin_code(), fb::BuiltinOperator::RESHAPE);

  const fb::SubGraph* gelu_sg = model_->subgraphs()->Get(1);
  ASSERT_EQ(gelu_sg->operators()->size(), 2u);
  const fb::Operator* gelu_op = gelu_sg->operators()->Get(0);
  const fb::OperatorCode* gelu = Code(gelu_op);
  EXPECT_EQ(gelu->deprecated_builtin_code(), 127);  // PLACEHOLDER_FOR_GREATER_OP_CODES
  EXPECT_EQ(static_cast<int>(gelu->builtin_code()), 150);
  EXPECT_EQ(gelu->version(), 2);
  ASSERT_NE(gelu_op->builtin_options_as_GeluOptions(), nullptr);
  EXPECT_TRUE(gelu_op->builtin_options_as_GeluOptions()->approximate());

  const fb::Operator* custom_op = gelu_sg->operators()->Get(1);
  const fb::OperatorCode* custom = Code(custom_op);
  EXPECT_EQ(custom->builtin_code(), fb::BuiltinOperator::CUSTOM);
  EXPECT_EQ(custom->deprecated_builtin_code(), 32);
  ASSERT_NE(custom->custom_code(), nullptr);
  EXPECT_EQ(custom->custom_code()->str(), "MyOp");
  EXPECT_EQ(Ints(custom_op->inputs()), std::vector<int>({1, -1}));
  ASSERT_NE(custom_op->custom_options(), nullptr);
  EXPECT_EQ(std::vector<uint8_t>(custom_op->custom_options()->begin(), custom_op->custom_options()->end()),
            std::vector<uint8_t>({1, 2, 3}));
  EXPECT_EQ(custom_op->custom_options_format(), fb::CustomOptionsFormat::FLEXBUFFERS);
}

TEST_F(ModelBuilderTest, Signatures) {
  ASSERT_NE(model_->signature_defs(), nullptr);
  ASSERT_EQ(model_->signature_defs()->size(), 1u);
  const fb::SignatureDef* sig = model_->signature_defs()->Get(0);
  EXPECT_EQ(sig->signature_key()->str(), "serving_default");
  EXPECT_EQ(sig->subgraph_index(), 0u);
  ASSERT_EQ(sig->inputs()->size(), 1u);
  EXPECT_EQ(sig->inputs()->Get(0)->name()->str(), "x");
  EXPECT_EQ(sig->inputs()->Get(0)->tensor_index(), static_cast<uint32_t>(in_));
  ASSERT_EQ(sig->outputs()->size(), 1u);
  EXPECT_EQ(sig->outputs()->Get(0)->name()->str(), "y");
  EXPECT_EQ(sig->outputs()->Get(0)->tensor_index(), static_cast<uint32_t>(out_));
}

TEST_F(ModelBuilderTest, LoaderAcceptsTheModel) {
  auto model = Model::FromBuffer(bytes_, "built.tflite");
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ((*model)->BuiltinCode(2), 150);
  size_t bytes = 0;
  ASSERT_NE((*model)->BufferData(Tensor(0, bias_)->buffer(), &bytes), nullptr);
  EXPECT_EQ(bytes, bias_values_.size() * sizeof(float));
}

TEST(ModelBuilderTypesTest, EveryTfLiteTypeRoundTrips) {
  ModelBuilder b;
  for (int t = kTfLiteFloat32; t <= kTfLiteInt4; ++t) b.AddTensor(static_cast<TfLiteType>(t), {1});
  b.AddTensor(kTfLiteNoType, {1});
  std::vector<uint8_t> bytes = b.Finish();
  const auto* tensors = fb::GetModel(bytes.data())->subgraphs()->Get(0)->tensors();
  for (int t = kTfLiteFloat32; t <= kTfLiteInt4; ++t) {
    TfLiteType read = kTfLiteNoType;
    ASSERT_TRUE(ConvertTensorType(tensors->Get(t - 1)->type(), &read)) << t;
    EXPECT_EQ(read, t);
  }
  TfLiteType read;
  EXPECT_FALSE(ConvertTensorType(tensors->Get(kTfLiteInt4)->type(), &read));  // NoType
}

TEST(ModelBuilderEmptyTest, FreshBuilderMakesOneEmptySubgraph) {
  ModelBuilder b;
  EXPECT_EQ(b.current_subgraph(), 0);
  std::vector<uint8_t> bytes = b.Finish();
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  ASSERT_TRUE(fb::VerifyModelBuffer(verifier));
  const fb::Model* model = fb::GetModel(bytes.data());
  EXPECT_EQ(model->version(), 3u);
  ASSERT_EQ(model->subgraphs()->size(), 1u);
  EXPECT_EQ(model->subgraphs()->Get(0)->tensors()->size(), 0u);
  ASSERT_EQ(model->buffers()->size(), 1u);
  EXPECT_EQ(model->operator_codes()->size(), 0u);
  EXPECT_EQ(model->signature_defs(), nullptr);
}

}  // namespace
}  // namespace touchstone
