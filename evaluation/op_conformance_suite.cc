#include "evaluation/op_conformance_suite.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

using Act = fb::ActivationFunctionType;

// A tensor type and, for integer types, its quantization.
struct QType {
  std::string name;
  TfLiteType type = kTfLiteFloat32;
  float scale = 0.0f;  // 0: not quantized
  int64_t zero_point = 0;
  bool quantized() const { return scale > 0.0f; }
};

QType Float32() { return {"float32", kTfLiteFloat32}; }
QType Uint8(float scale = 0.05f, int64_t zp = 128) { return {"uint8", kTfLiteUInt8, scale, zp}; }
QType Int8(float scale = 0.05f, int64_t zp = -3) { return {"int8", kTfLiteInt8, scale, zp}; }
// TFLite's int16 kernels take symmetric quantization only.
QType Int16(float scale = 1.0f / 3000) { return {"int16", kTfLiteInt16, scale, 0}; }

std::vector<QType> AllTypes() { return {Float32(), Uint8(), Int8(), Int16()}; }

// The version a converter writes for an op in a type (TFLite 2.14.1's op versioning, the common cases).
int VersionFor(const std::string& type, int int8_version, int int16_version) {
  if (type == "int8") return int8_version;
  if (type == "int16") return int16_version;
  return 1;
}

const char* ActName(Act act) {
  switch (act) {
    case Act::RELU:
      return " RELU";
    case Act::RELU6:
      return " RELU6";
    case Act::RELU_N1_TO_1:
      return " RELU_N1_TO_1";
    default:
      return "";
  }
}

// Builds one case: the callback adds the op's tensors and the op to the builder.
class CaseBuilder {
 public:
  CaseBuilder(std::vector<ConformanceCase>* cases, uint32_t seed) : cases_(cases), rng_(seed) {}

  int Input(const QType& q, const std::vector<int>& shape) {
    const int t = Tensor(q, shape, "in" + std::to_string(inputs_.size()));
    inputs_.push_back(t);
    return t;
  }
  int Output(const QType& q, const std::vector<int>& shape) {
    const int t = Tensor(q, shape, "out" + std::to_string(outputs_.size()));
    outputs_.push_back(t);
    return t;
  }
  int Tensor(const QType& q, const std::vector<int>& shape, const std::string& name) {
    const int t = b_.AddTensor(q.type, shape, name);
    if (q.quantized()) b_.SetQuantization(t, {q.scale}, {q.zero_point});
    return t;
  }
  // Constant weights in [-1, 1) as floats, or as quantized values of `q` (per channel along `axis` when
  // `per_channel`, scales chosen so the range is used).
  int Weights(const QType& q, const std::vector<int>& shape, bool per_channel = false, int axis = 0,
              std::vector<float>* channel_scales = nullptr) {
    int64_t count = 1;
    for (int d : shape) count *= d;
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    if (!q.quantized()) {
      std::vector<float> values(count);
      for (float& v : values) v = uniform(rng_);
      return b_.AddConstTensor(kTfLiteFloat32, shape, values, "weights");
    }
    const int channels = per_channel ? shape[axis] : 1;
    std::vector<float> scales(channels);
    for (int c = 0; c < channels; ++c) scales[c] = 0.004f + 0.002f * static_cast<float>(c % 5);
    if (channel_scales != nullptr) *channel_scales = scales;
    int t = -1;
    if (q.type == kTfLiteUInt8) {
      std::uniform_int_distribution<int> d(0, 255);
      std::vector<uint8_t> values(count);
      for (uint8_t& v : values) v = static_cast<uint8_t>(d(rng_));
      t = b_.AddConstTensor(kTfLiteUInt8, shape, values, "weights");
      b_.SetQuantization(t, scales, std::vector<int64_t>(channels, 128), axis);
    } else {
      std::uniform_int_distribution<int> d(-127, 127);
      std::vector<int8_t> values(count);
      for (int8_t& v : values) v = static_cast<int8_t>(d(rng_));
      t = b_.AddConstTensor(kTfLiteInt8, shape, values, "weights");
      b_.SetQuantization(t, scales, std::vector<int64_t>(channels, 0), axis);
    }
    return t;
  }
  // Bias for an op whose input has `input_scale` and weights `weight_scales` (one, or one per channel).
  int Bias(const QType& q, int channels, float input_scale, const std::vector<float>& weight_scales) {
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    if (!q.quantized()) {
      std::vector<float> values(channels);
      for (float& v : values) v = uniform(rng_);
      return b_.AddConstTensor(kTfLiteFloat32, {channels}, values, "bias");
    }
    std::vector<float> scales(channels);
    for (int c = 0; c < channels; ++c) scales[c] = input_scale * weight_scales[weight_scales.size() == 1 ? 0 : c];
    int t = -1;
    if (q.type == kTfLiteInt16) {
      std::vector<int64_t> values(channels);
      for (int c = 0; c < channels; ++c) values[c] = static_cast<int64_t>(std::lround(uniform(rng_) / scales[c]));
      t = b_.AddConstTensor(kTfLiteInt64, {channels}, values, "bias");
    } else {
      std::vector<int32_t> values(channels);
      for (int c = 0; c < channels; ++c) values[c] = static_cast<int32_t>(std::lround(uniform(rng_) / scales[c]));
      t = b_.AddConstTensor(kTfLiteInt32, {channels}, values, "bias");
    }
    const int axis = 0;
    if (weight_scales.size() == 1) {
      b_.SetQuantization(t, {scales[0]}, {0}, axis);
    } else {
      b_.SetQuantization(t, scales, std::vector<int64_t>(channels, 0), axis);
    }
    return t;
  }
  int Int32Const(const std::vector<int>& shape, const std::vector<int32_t>& values) {
    return b_.AddConstTensor(kTfLiteInt32, shape, values, "const");
  }
  ModelBuilder& b() { return b_; }
  flatbuffers::FlatBufferBuilder& fbb() { return b_.fbb(); }

  void Finish(const std::string& op, int version, const std::string& type, const std::string& variant) {
    b_.SetInputs(inputs_);
    b_.SetOutputs(outputs_);
    b_.SetDescription("Touchstone op conformance case " + op + "/" + type + "/" + variant);
    ConformanceCase c;
    c.op = op;
    c.version = version;
    c.type = type;
    c.variant = variant;
    c.model = b_.Finish();
    cases_->push_back(std::move(c));
  }

 private:
  std::vector<ConformanceCase>* cases_;
  ModelBuilder b_;
  std::mt19937 rng_;
  std::vector<int> inputs_, outputs_;
};

// The quantization an op's output takes when TFLite fixes it (LOGISTIC, SOFTMAX, TANH).
QType FixedOutput(const QType& in, const std::string& op) {
  if (!in.quantized()) return in;
  QType out = in;
  const bool tanh = op == "TANH";
  if (in.type == kTfLiteInt16) {
    out.scale = 1.0f / 32768;
    out.zero_point = 0;
  } else if (in.type == kTfLiteInt8) {
    out.scale = tanh ? 1.0f / 128 : 1.0f / 256;
    out.zero_point = tanh ? 0 : -128;
  } else {
    out.scale = tanh ? 1.0f / 128 : 1.0f / 256;
    out.zero_point = tanh ? 128 : 0;
  }
  return out;
}

// An output of twice the input's range (sums, products of small values).
QType Wider(const QType& q, float factor = 2.0f) {
  QType out = q;
  if (q.quantized()) out.scale = q.scale * factor;
  return out;
}

void AddElementwise(std::vector<ConformanceCase>* cases, uint32_t* seed) {
  struct Op {
    const char* name;
    int code;
    int int8_version, int16_version;
  };
  const Op ops[] = {
      {"ADD", kTfLiteBuiltinAdd, 2, 3}, {"SUB", kTfLiteBuiltinSub, 2, 3}, {"MUL", kTfLiteBuiltinMul, 2, 4}};
  struct Shape {
    std::vector<int> a, b, out;
    const char* name;
  };
  const Shape shapes[] = {{{1, 4, 4, 3}, {1, 4, 4, 3}, {1, 4, 4, 3}, "same shape"},
                          {{1, 4, 4, 3}, {3}, {1, 4, 4, 3}, "broadcast channel"},
                          {{2, 1, 3}, {1, 4, 1}, {2, 4, 3}, "broadcast both"}};
  for (const Op& op : ops) {
    for (const QType& q : AllTypes()) {
      for (const Shape& s : shapes) {
        for (Act act : {Act::NONE, Act::RELU6}) {
          if (act != Act::NONE && s.a != s.b) continue;
          CaseBuilder c(cases, (*seed)++);
          const int a = c.Input(q, s.a), b = c.Input(q, s.b);
          const int out = c.Output(op.code == kTfLiteBuiltinMul ? q : Wider(q), s.out);
          flatbuffers::Offset<void> options;
          fb::BuiltinOptions type;
          if (op.code == kTfLiteBuiltinAdd) {
            type = fb::BuiltinOptions::AddOptions;
            options = fb::CreateAddOptions(c.fbb(), act).Union();
          } else if (op.code == kTfLiteBuiltinSub) {
            type = fb::BuiltinOptions::SubOptions;
            options = fb::CreateSubOptions(c.fbb(), act).Union();
          } else {
            type = fb::BuiltinOptions::MulOptions;
            options = fb::CreateMulOptions(c.fbb(), act).Union();
          }
          c.b().AddOperator(op.code, {a, b}, {out}, type, options,
                            VersionFor(q.name, op.int8_version, op.int16_version));
          c.Finish(op.name, VersionFor(q.name, op.int8_version, op.int16_version), q.name,
                   std::string(s.name) + ActName(act));
        }
      }
    }
    // Extreme quantization: inputs of very different scales, zero points at the ends of the range.
    for (const auto& pair :
         {std::make_pair(Int8(0.001f, -128), Int8(2.0f, 127)), std::make_pair(Uint8(0.002f, 0), Uint8(4.0f, 255))}) {
      CaseBuilder c(cases, (*seed)++);
      const int a = c.Input(pair.first, {1, 2, 2, 4}), b = c.Input(pair.second, {1, 2, 2, 4});
      const int out = c.Output(Wider(pair.second), {1, 2, 2, 4});
      fb::BuiltinOptions type = op.code == kTfLiteBuiltinAdd   ? fb::BuiltinOptions::AddOptions
                                : op.code == kTfLiteBuiltinSub ? fb::BuiltinOptions::SubOptions
                                                               : fb::BuiltinOptions::MulOptions;
      flatbuffers::Offset<void> options = op.code == kTfLiteBuiltinAdd   ? fb::CreateAddOptions(c.fbb()).Union()
                                          : op.code == kTfLiteBuiltinSub ? fb::CreateSubOptions(c.fbb()).Union()
                                                                         : fb::CreateMulOptions(c.fbb()).Union();
      const int version = VersionFor(pair.first.name, op.int8_version, op.int16_version);
      c.b().AddOperator(op.code, {a, b}, {out}, type, options, version);
      c.Finish(op.name, version, pair.first.name, "extreme quantization (scales 1000x apart, zero points at the ends)");
    }
  }
}

void AddConvolutions(std::vector<ConformanceCase>* cases, uint32_t* seed) {
  struct Variant {
    int kernel, stride, dilation, multiplier;
    fb::Padding padding;
    Act act;
  };
  const Variant variants[] = {{3, 1, 1, 1, fb::Padding::SAME, Act::NONE},
                              {3, 2, 1, 1, fb::Padding::VALID, Act::RELU},
                              {1, 1, 1, 2, fb::Padding::VALID, Act::NONE},
                              {3, 1, 2, 1, fb::Padding::SAME, Act::RELU6},
                              {5, 2, 1, 2, fb::Padding::SAME, Act::RELU_N1_TO_1}};
  for (bool depthwise : {false, true}) {
    const char* op = depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D";
    for (const QType& q : AllTypes()) {
      for (const Variant& v : variants) {
        const int in_channels = depthwise ? 3 : 4;
        const int out_channels = depthwise ? in_channels * v.multiplier : 6;
        CaseBuilder c(cases, (*seed)++);
        const int in = c.Input(q, {1, 9, 9, in_channels});
        // uint8 takes per-tensor weights; int8 and int16 (16x8) per-channel int8 weights.
        const QType wq = q.type == kTfLiteInt16 ? Int8() : q;
        const bool per_channel = q.type == kTfLiteInt8 || q.type == kTfLiteInt16;
        std::vector<float> scales;
        const std::vector<int> wshape = depthwise ? std::vector<int>{1, v.kernel, v.kernel, out_channels}
                                                  : std::vector<int>{out_channels, v.kernel, v.kernel, in_channels};
        const int w = c.Weights(wq, wshape, per_channel, depthwise ? 3 : 0, &scales);
        const int bias = c.Bias(q, out_channels, q.scale, scales);
        const int out = c.Output(Wider(q, 4.0f), {});
        const int version = depthwise ? VersionFor(q.name, 3, 5) : VersionFor(q.name, 3, 4);
        if (depthwise) {
          c.b().AddOperator(kTfLiteBuiltinDepthwiseConv2d, {in, w, bias}, {out},
                            fb::BuiltinOptions::DepthwiseConv2DOptions,
                            fb::CreateDepthwiseConv2DOptions(c.fbb(), v.padding, v.stride, v.stride, v.multiplier,
                                                             v.act, v.dilation, v.dilation)
                                .Union(),
                            version);
        } else {
          c.b().AddOperator(
              kTfLiteBuiltinConv2d, {in, w, bias}, {out}, fb::BuiltinOptions::Conv2DOptions,
              fb::CreateConv2DOptions(c.fbb(), v.padding, v.stride, v.stride, v.act, v.dilation, v.dilation).Union(),
              version);
        }
        std::string variant = std::to_string(v.kernel) + "x" + std::to_string(v.kernel) + " stride " +
                              std::to_string(v.stride) + " " + (v.padding == fb::Padding::SAME ? "SAME" : "VALID");
        if (v.dilation > 1) variant += " dilation " + std::to_string(v.dilation);
        if (depthwise && v.multiplier > 1) variant += " multiplier " + std::to_string(v.multiplier);
        c.Finish(op, version, q.name, variant + ActName(v.act));
      }
    }
  }
  for (const QType& q : AllTypes()) {
    for (Act act : {Act::NONE, Act::RELU}) {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {2, 8});
      const QType wq = q.type == kTfLiteInt16 ? Int8() : q;
      std::vector<float> scales;
      const int w = c.Weights(wq, {5, 8}, false, 0, &scales);
      const int bias = c.Bias(q, 5, q.scale, scales);
      const int out = c.Output(Wider(q, 4.0f), {2, 5});
      const int version = VersionFor(q.name, 4, 7);
      c.b().AddOperator(kTfLiteBuiltinFullyConnected, {in, w, bias}, {out}, fb::BuiltinOptions::FullyConnectedOptions,
                        fb::CreateFullyConnectedOptions(c.fbb(), act).Union(), version);
      c.Finish("FULLY_CONNECTED", version, q.name, std::string("2x8 by 5x8") + ActName(act));
    }
  }
}

void AddPooling(std::vector<ConformanceCase>* cases, uint32_t* seed) {
  struct Variant {
    int filter, stride;
    fb::Padding padding;
    Act act;
  };
  const Variant variants[] = {{2, 2, fb::Padding::VALID, Act::NONE},
                              {3, 1, fb::Padding::SAME, Act::NONE},
                              {3, 2, fb::Padding::SAME, Act::RELU6}};
  for (int code : {kTfLiteBuiltinAveragePool2d, kTfLiteBuiltinMaxPool2d}) {
    const char* op = code == kTfLiteBuiltinAveragePool2d ? "AVERAGE_POOL_2D" : "MAX_POOL_2D";
    for (const QType& q : AllTypes()) {
      for (const Variant& v : variants) {
        CaseBuilder c(cases, (*seed)++);
        const int in = c.Input(q, {1, 7, 7, 3});
        const int out = c.Output(q, {});
        const int version = VersionFor(q.name, 2, 3);
        c.b().AddOperator(
            code, {in}, {out}, fb::BuiltinOptions::Pool2DOptions,
            fb::CreatePool2DOptions(c.fbb(), v.padding, v.stride, v.stride, v.filter, v.filter, v.act).Union(),
            version);
        c.Finish(op, version, q.name,
                 std::to_string(v.filter) + "x" + std::to_string(v.filter) + " stride " + std::to_string(v.stride) +
                     (v.padding == fb::Padding::SAME ? " SAME" : " VALID") + ActName(v.act));
      }
    }
  }
}

void AddActivations(std::vector<ConformanceCase>* cases, uint32_t* seed) {
  struct Op {
    const char* name;
    int code;
    bool int16;
    bool versioned;  // HARD_SWISH has one version in every type
  };
  const Op ops[] = {{"LOGISTIC", kTfLiteBuiltinLogistic, true, true},
                    {"TANH", kTfLiteBuiltinTanh, true, true},
                    {"RELU", kTfLiteBuiltinRelu, false, true},
                    {"RELU6", kTfLiteBuiltinRelu6, false, true},
                    {"HARD_SWISH", kTfLiteBuiltinHardSwish, false, false}};
  for (const Op& op : ops) {
    for (const QType& q : AllTypes()) {
      if (q.type == kTfLiteInt16 && !op.int16) continue;
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {1, 3, 5, 4});
      const int out = c.Output(FixedOutput(q, op.name), {1, 3, 5, 4});
      const int version = op.versioned ? VersionFor(q.name, 2, 3) : 1;
      c.b().AddOperator(op.code, {in}, {out}, fb::BuiltinOptions::NONE, 0, version);
      c.Finish(op.name, version, q.name, "rank 4");
    }
  }
  for (const QType& q : AllTypes()) {
    for (float beta : {1.0f, 0.5f}) {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {2, 10});
      QType oq = FixedOutput(q, "SOFTMAX");
      const int out = c.Output(oq, {2, 10});
      const int version = VersionFor(q.name, 2, 3);
      c.b().AddOperator(kTfLiteBuiltinSoftmax, {in}, {out}, fb::BuiltinOptions::SoftmaxOptions,
                        fb::CreateSoftmaxOptions(c.fbb(), beta).Union(), version);
      c.Finish("SOFTMAX", version, q.name, beta == 1.0f ? "beta 1" : "beta 0.5");
    }
  }
}

void AddShapeOps(std::vector<ConformanceCase>* cases, uint32_t* seed) {
  for (const QType& q : AllTypes()) {
    {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {1, 4, 6});
      const int shape = c.Int32Const({2}, {6, 4});
      const int out = c.Output(q, {6, 4});
      c.b().AddOperator(kTfLiteBuiltinReshape, {in, shape}, {out}, fb::BuiltinOptions::NONE, 0, 1);
      c.Finish("RESHAPE", 1, q.name, "rank 3 to rank 2");
    }
    for (int axis : {3, 1}) {
      CaseBuilder c(cases, (*seed)++);
      const int a = c.Input(q, {1, 2, 3, 2});
      const int b = c.Input(q, {1, 2, 3, 2});
      const int out = c.Output(q, {});
      const int version = VersionFor(q.name, 2, 3);
      c.b().AddOperator(kTfLiteBuiltinConcatenation, {a, b}, {out}, fb::BuiltinOptions::ConcatenationOptions,
                        fb::CreateConcatenationOptions(c.fbb(), axis).Union(), version);
      c.Finish("CONCATENATION", version, q.name, "axis " + std::to_string(axis));
    }
    {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {1, 4, 4, 3});
      const int axes = c.Int32Const({2}, {1, 2});
      const int out = c.Output(q, {});
      const int version = VersionFor(q.name, 2, 3);
      c.b().AddOperator(kTfLiteBuiltinMean, {in, axes}, {out}, fb::BuiltinOptions::ReducerOptions,
                        fb::CreateReducerOptions(c.fbb(), true).Union(), version);
      c.Finish("MEAN", version, q.name, "axes 1,2 keep_dims");
    }
    {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {1, 3, 3, 2});
      const int paddings = c.Int32Const({4, 2}, {0, 0, 1, 2, 2, 1, 0, 0});
      const int out = c.Output(q, {});
      const int version = VersionFor(q.name, 2, 4);
      c.b().AddOperator(kTfLiteBuiltinPad, {in, paddings}, {out}, fb::BuiltinOptions::PadOptions,
                        fb::CreatePadOptions(c.fbb()).Union(), version);
      c.Finish("PAD", version, q.name, "spatial, uneven");
    }
  }
}

void AddQuantization(std::vector<ConformanceCase>* cases, uint32_t* seed) {
  for (const QType& q : {Uint8(), Int8(), Int16()}) {
    {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(Float32(), {1, 4, 4, 2});
      const int out = c.Output(q, {1, 4, 4, 2});
      const int version = VersionFor(q.name, 2, 3);
      c.b().AddOperator(kTfLiteBuiltinQuantize, {in}, {out}, fb::BuiltinOptions::NONE, 0, version);
      c.Finish("QUANTIZE", version, q.name, "from float32");
    }
    {
      CaseBuilder c(cases, (*seed)++);
      const int in = c.Input(q, {1, 4, 4, 2});
      const int out = c.Output(Float32(), {1, 4, 4, 2});
      const int version = VersionFor(q.name, 2, 4);
      c.b().AddOperator(kTfLiteBuiltinDequantize, {in}, {out}, fb::BuiltinOptions::NONE, 0, version);
      c.Finish("DEQUANTIZE", version, q.name, "to float32");
    }
  }
  // float16 weights, as converters write them: a constant DEQUANTIZE feeding a float32 op.
  {
    CaseBuilder c(cases, (*seed)++);
    const int in = c.Input(Float32(), {1, 2, 2, 3});
    std::vector<uint16_t> halves = {0x3c00, 0xbc00, 0x3800, 0x4000, 0xb800, 0x0000,
                                    0x3555, 0xc000, 0x3a00, 0x2e66, 0xb266, 0x4200};
    const int weights = c.b().AddConstTensor(kTfLiteFloat16, {1, 2, 2, 3}, halves, "weights_fp16");
    const int dequantized = c.Tensor(Float32(), {1, 2, 2, 3}, "weights");
    const int out = c.Output(Float32(), {1, 2, 2, 3});
    c.b().AddOperator(kTfLiteBuiltinDequantize, {weights}, {dequantized}, fb::BuiltinOptions::NONE, 0, 3);
    c.b().AddOperator(kTfLiteBuiltinAdd, {in, dequantized}, {out}, fb::BuiltinOptions::AddOptions,
                      fb::CreateAddOptions(c.fbb()).Union(), 1);
    c.Finish("DEQUANTIZE", 3, "float16", "float16 weights into ADD");
  }
}

}  // namespace

std::string ConformanceCase::id() const {
  std::string slug;
  for (char ch : variant) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-';
    if (keep) {
      slug += ch;
    } else if (!slug.empty() && slug.back() != '_') {
      slug += '_';
    }
  }
  while (!slug.empty() && slug.back() == '_') slug.pop_back();
  return op + "/" + type + "/" + slug;
}

std::vector<ConformanceCase> BuildConformanceSuite() {
  std::vector<ConformanceCase> cases;
  uint32_t seed = 2914;
  AddElementwise(&cases, &seed);
  AddConvolutions(&cases, &seed);
  AddPooling(&cases, &seed);
  AddActivations(&cases, &seed);
  AddShapeOps(&cases, &seed);
  AddQuantization(&cases, &seed);
  return cases;
}

}  // namespace touchstone
