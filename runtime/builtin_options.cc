#include "runtime/builtin_options.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#include "runtime/c/builtin_op_data.h"
#include "runtime/model.h"

namespace touchstone {

namespace {

using BO = fb::BuiltinOperator;

// Schema enum value -> C API value, indexed by the schema value (TFLite's conversions). Values
// outside the schema's enums are errors here; TFLite maps some of them (activation, padding, mirror
// pad mode, LSH type, combiner, RNG algorithm) silently to None / Unknown / Sum instead.
constexpr TfLiteFusedActivation kActivations[] = {kTfLiteActNone,  kTfLiteActRelu, kTfLiteActReluN1To1,
                                                  kTfLiteActRelu6, kTfLiteActTanh, kTfLiteActSignBit};
constexpr TfLitePadding kPaddings[] = {kTfLitePaddingSame, kTfLitePaddingValid};
constexpr TfLiteMirrorPaddingMode kMirrorPadModes[] = {kTfLiteMirrorPaddingReflect, kTfLiteMirrorPaddingSymmetric};
constexpr TfLiteLSTMKernelType kLstmKernelTypes[] = {kTfLiteLSTMFullKernel, kTfLiteLSTMBasicKernel};
constexpr TfLiteFullyConnectedWeightsFormat kWeightsFormats[] = {kTfLiteFullyConnectedWeightsFormatDefault,
                                                                 kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8};
constexpr TfLiteLSHProjectionType kLshProjectionTypes[] = {kTfLiteLshProjectionUnknown, kTfLiteLshProjectionSparse,
                                                           kTfLiteLshProjectionDense};
constexpr TfLiteCombinerType kCombinerTypes[] = {kTfLiteCombinerTypeSum, kTfLiteCombinerTypeMean,
                                                 kTfLiteCombinerTypeSqrtn};
constexpr TfLiteRngAlgorithm kRngAlgorithms[] = {kTfLiteRngAlgorithmDefault, kTfLiteRngAlgorithmPhilox,
                                                 kTfLiteRngAlgorithmThreefry};
// ReduceWindowFunction::UNSUPPORTED (0) is rejected like an unknown value.
constexpr TfLiteReduceWindowFunction kReduceWindowFunctions[] = {
    TfLiteReduceWindowFunctionUnsupported, TfLiteReduceWindowFunctionAdd, TfLiteReduceWindowFunctionMul,
    TfLiteReduceWindowFunctionMin,         TfLiteReduceWindowFunctionMax, TfLiteReduceWindowFunctionAll,
    TfLiteReduceWindowFunctionAny};

// Fills one params struct from one options table and keeps the first conversion error.
class OptionsParser {
 public:
  OptionsParser(const fb::Operator* op, void** out) : op_(op), out_(out) {}

  // Allocates a zeroed P; when the operator carries an O table (in builtin_options or, for
  // BuiltinOptions2 tables, builtin_options_2), `fill(options, params)` copies it. Without the
  // table P stays zero, as in TFLite, unless the table is `required`.
  template <typename P, typename O, typename Fill>
  Status Parse(Fill fill, bool required = false) {
    const O* options = Table<O>();
    if (options == nullptr && required) {
      return Error(std::string(table_) + " is missing; the operator requires it");
    }
    P* params = static_cast<P*>(std::calloc(1, sizeof(P)));
    if (params == nullptr) return Error("cannot allocate the params struct");
    if (options != nullptr) fill(*options, params);
    if (!status_.ok()) {
      std::free(params);
      return status_;
    }
    *out_ = params;
    return Status::Ok();
  }

  // Callers add the operator (index and name) as context.
  Status Error(const std::string& message) const { return InvalidInputError(message); }
  void Fail(const char* field, const std::string& problem) {
    if (status_.ok()) status_ = Error(std::string(table_) + "." + field + " " + problem);
  }

  // An enum value through its conversion table; values outside the schema's enum are errors.
  template <typename To, typename From, size_t N>
  To Enum(From value, const To (&table)[N], const char* field) {
    const int64_t v = static_cast<int64_t>(value);
    if (v >= 0 && v < static_cast<int64_t>(N)) return table[v];
    Fail(field, "has unknown value " + std::to_string(v));
    return table[0];
  }
  TfLiteFusedActivation Activation(fb::ActivationFunctionType v) {
    return Enum(v, kActivations, "fused_activation_function");
  }
  TfLitePadding Padding(fb::Padding v) { return Enum(v, kPaddings, "padding"); }
  TfLiteType Type(fb::TensorType v, const char* field) {
    TfLiteType type = kTfLiteNoType;
    if (!ConvertTensorType(v, &type)) {
      Fail(field, "has unsupported tensor type " + std::to_string(static_cast<int>(v)));
    }
    return type;
  }
  // Copies a vector into a fixed params array and returns its length; a missing vector counts
  // as empty unless `required`.
  template <typename T, size_t N, typename E>
  int Ints(const flatbuffers::Vector<E>* v, T (&dst)[N], const char* field, bool required = false) {
    if (v == nullptr) {
      if (required) Fail(field, "is missing");
      return 0;
    }
    if (v->size() > N) {
      Fail(field, "has " + std::to_string(v->size()) + " entries; the params hold at most " + std::to_string(N));
      return 0;
    }
    for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) dst[i] = static_cast<T>(v->Get(i));
    return static_cast<int>(v->size());
  }

 private:
  template <typename O>
  const O* Table() {
    constexpr fb::BuiltinOptions2 kType2 = fb::BuiltinOptions2Traits<O>::enum_value;
    if constexpr (kType2 != fb::BuiltinOptions2::NONE) {
      table_ = fb::EnumNameBuiltinOptions2(kType2);
      return op_->builtin_options_2_as<O>();
    } else {
      table_ = fb::EnumNameBuiltinOptions(fb::BuiltinOptionsTraits<O>::enum_value);
      return op_->builtin_options_as<O>();
    }
  }

  const fb::Operator* op_;
  void** out_;
  const char* table_ = "";
  Status status_;
};

// STABLEHLO_REDUCE_WINDOW: every attribute has one entry per window dimension (padding two), or
// is absent and takes its default.
void FillReduceWindow(OptionsParser& x, const fb::StablehloReduceWindowOptions& o,
                      TfLiteStablehloReduceWindowParams* p) {
  const auto* dims = o.window_dimensions();
  if (dims == nullptr || dims->size() == 0) {
    x.Fail("window_dimensions", "is missing or empty");
    return;
  }
  const flatbuffers::uoffset_t rank = dims->size();
  auto load = [&x, rank](const flatbuffers::Vector<int64_t>* v, auto& dst, const char* field,
                         flatbuffers::uoffset_t expected, int64_t fill) {
    if (v == nullptr || v->size() == 0) {
      for (int64_t& d : dst) d = fill;
    } else if (v->size() != expected) {
      x.Fail(field, "has " + std::to_string(v->size()) + " entries for " + std::to_string(rank) + " window dimensions");
    } else {
      x.Ints(v, dst, field);
    }
  };
  load(dims, p->window_dimensions, "window_dimensions", rank, 1);
  load(o.window_strides(), p->window_strides, "window_strides", rank, 1);
  load(o.base_dilations(), p->base_dilations, "base_dilations", rank, 1);
  load(o.window_dilations(), p->window_dilations, "window_dilations", rank, 1);
  load(o.padding(), p->padding, "padding", 2 * rank, 0);
  p->body_subgraph_index = o.body_subgraph_index();
}

}  // namespace

const char* BuiltinOperatorName(int builtin_code) {
  if (builtin_code < 0 || builtin_code > static_cast<int>(BO::MAX)) return "UNKNOWN";
  const char* name = fb::EnumNameBuiltinOperator(static_cast<BO>(builtin_code));
  return (name != nullptr && *name != '\0') ? name : "UNKNOWN";
}

Status ParseBuiltinOptions(const fb::Operator* op, int builtin_code, void** builtin_data) {
  *builtin_data = nullptr;
  OptionsParser x(op, builtin_data);
  if (builtin_code < 0 || builtin_code > static_cast<int>(BO::MAX)) {
    return x.Error("unknown builtin operator code " + std::to_string(builtin_code));
  }

  // Fills shared by several operators.
  const auto no_fields = [](const auto&, auto*) {};
  const auto activation = [&x](const auto& o, auto* p) { p->activation = x.Activation(o.fused_activation_function()); };
  const auto activation_asymmetric = [&x](const auto& o, auto* p) {
    p->activation = x.Activation(o.fused_activation_function());
    p->asymmetric_quantize_inputs = o.asymmetric_quantize_inputs();
  };
  const auto window = [&x](const auto& o, auto* p) {  // convolutions and pools
    p->padding = x.Padding(o.padding());
    p->stride_width = o.stride_w();
    p->stride_height = o.stride_h();
    p->activation = x.Activation(o.fused_activation_function());
  };
  const auto dilations = [](const auto& o, auto* p) {
    p->dilation_width_factor = o.dilation_w_factor();
    p->dilation_height_factor = o.dilation_h_factor();
  };
  const auto add_sub = [&x](const auto& o, auto* p) {
    p->activation = x.Activation(o.fused_activation_function());
    p->pot_scale_int16 = o.pot_scale_int16();
  };
  const auto lstm_common = [&](const auto& o, auto* p) {
    activation_asymmetric(o, p);
    p->cell_clip = o.cell_clip();
    p->proj_clip = o.proj_clip();
  };
  const auto resize = [](const auto& o, auto* p) {
    p->align_corners = o.align_corners();
    p->half_pixel_centers = o.half_pixel_centers();
  };
  const auto output_type = [&x](const auto& o, auto* p) { p->output_type = x.Type(o.output_type(), "output_type"); };
  const auto num_splits = [](const auto& o, auto* p) { p->num_splits = o.num_splits(); };
  const auto block_size = [](const auto& o, auto* p) { p->block_size = o.block_size(); };

  switch (static_cast<BO>(builtin_code)) {
    case BO::CONV_2D:
      return x.Parse<TfLiteConvParams, fb::Conv2DOptions>([&](const auto& o, auto* p) {
        window(o, p);
        dilations(o, p);
      });
    case BO::DEPTHWISE_CONV_2D:
      return x.Parse<TfLiteDepthwiseConvParams, fb::DepthwiseConv2DOptions>([&](const auto& o, auto* p) {
        window(o, p);
        dilations(o, p);
        p->depth_multiplier = o.depth_multiplier();
      });
    case BO::CONV_3D:
    case BO::CONV_3D_TRANSPOSE:
      return x.Parse<TfLiteConv3DParams, fb::Conv3DOptions>([&](const auto& o, auto* p) {
        window(o, p);
        dilations(o, p);
        p->stride_depth = o.stride_d();
        p->dilation_depth_factor = o.dilation_d_factor();
      });
    case BO::AVERAGE_POOL_2D:
    case BO::MAX_POOL_2D:
    case BO::L2_POOL_2D:
      return x.Parse<TfLitePoolParams, fb::Pool2DOptions>([&](const auto& o, auto* p) {
        window(o, p);
        p->filter_width = o.filter_width();
        p->filter_height = o.filter_height();
      });
    case BO::TRANSPOSE_CONV:
      return x.Parse<TfLiteTransposeConvParams, fb::TransposeConvOptions>(window);
    case BO::FULLY_CONNECTED:
      return x.Parse<TfLiteFullyConnectedParams, fb::FullyConnectedOptions>([&](const auto& o, auto* p) {
        activation_asymmetric(o, p);
        p->keep_num_dims = o.keep_num_dims();
        p->weights_format = x.Enum(o.weights_format(), kWeightsFormats, "weights_format");
      });
    case BO::SVDF:
      return x.Parse<TfLiteSVDFParams, fb::SVDFOptions>([&](const auto& o, auto* p) {
        activation_asymmetric(o, p);
        p->rank = o.rank();
      });
    case BO::RNN:
      return x.Parse<TfLiteRNNParams, fb::RNNOptions>(activation_asymmetric);
    case BO::UNIDIRECTIONAL_SEQUENCE_RNN:
      return x.Parse<TfLiteSequenceRNNParams, fb::SequenceRNNOptions>([&](const auto& o, auto* p) {
        activation_asymmetric(o, p);
        p->time_major = o.time_major();
      });
    case BO::BIDIRECTIONAL_SEQUENCE_RNN:
      return x.Parse<TfLiteBidirectionalSequenceRNNParams, fb::BidirectionalSequenceRNNOptions>(
          [&](const auto& o, auto* p) {
            activation_asymmetric(o, p);
            p->time_major = o.time_major();
            p->merge_outputs = o.merge_outputs();
          });
    case BO::LSTM:  // the one table TFLite insists on
      return x.Parse<TfLiteLSTMParams, fb::LSTMOptions>(
          [&](const auto& o, auto* p) {
            lstm_common(o, p);
            p->kernel_type = x.Enum(o.kernel_type(), kLstmKernelTypes, "kernel_type");
          },
          /*required=*/true);
    case BO::UNIDIRECTIONAL_SEQUENCE_LSTM:
      return x.Parse<TfLiteUnidirectionalSequenceLSTMParams, fb::UnidirectionalSequenceLSTMOptions>(
          [&](const auto& o, auto* p) {
            lstm_common(o, p);
            p->time_major = o.time_major();
            p->diagonal_recurrent_tensors = o.diagonal_recurrent_tensors();
          });
    case BO::BIDIRECTIONAL_SEQUENCE_LSTM:
      return x.Parse<TfLiteBidirectionalSequenceLSTMParams, fb::BidirectionalSequenceLSTMOptions>(
          [&](const auto& o, auto* p) {
            lstm_common(o, p);
            p->merge_outputs = o.merge_outputs();
            p->time_major = o.time_major();
          });
    case BO::ADD:
      return x.Parse<TfLiteAddParams, fb::AddOptions>(add_sub);
    case BO::SUB:
      return x.Parse<TfLiteSubParams, fb::SubOptions>(add_sub);
    case BO::MUL:
      return x.Parse<TfLiteMulParams, fb::MulOptions>(activation);
    case BO::DIV:
      return x.Parse<TfLiteDivParams, fb::DivOptions>(activation);
    case BO::L2_NORMALIZATION:
      return x.Parse<TfLiteL2NormParams, fb::L2NormOptions>(activation);
    case BO::CONCATENATION:
      return x.Parse<TfLiteConcatenationParams, fb::ConcatenationOptions>([&x](const auto& o, auto* p) {
        p->axis = o.axis();
        p->activation = x.Activation(o.fused_activation_function());
      });
    case BO::SOFTMAX:
      return x.Parse<TfLiteSoftmaxParams, fb::SoftmaxOptions>([](const auto& o, auto* p) { p->beta = o.beta(); });
    case BO::LOCAL_RESPONSE_NORMALIZATION:
      return x.Parse<TfLiteLocalResponseNormParams, fb::LocalResponseNormalizationOptions>([](const auto& o, auto* p) {
        p->radius = o.radius();
        p->bias = o.bias();
        p->alpha = o.alpha();
        p->beta = o.beta();
      });
    case BO::LSH_PROJECTION:
      return x.Parse<TfLiteLSHProjectionParams, fb::LSHProjectionOptions>(
          [&x](const auto& o, auto* p) { p->type = x.Enum(o.type(), kLshProjectionTypes, "type"); });
    case BO::EMBEDDING_LOOKUP_SPARSE:
      return x.Parse<TfLiteEmbeddingLookupSparseParams, fb::EmbeddingLookupSparseOptions>(
          [&x](const auto& o, auto* p) { p->combiner = x.Enum(o.combiner(), kCombinerTypes, "combiner"); });
    case BO::SKIP_GRAM:
      return x.Parse<TfLiteSkipGramParams, fb::SkipGramOptions>([](const auto& o, auto* p) {
        p->ngram_size = o.ngram_size();
        p->max_skip_size = o.max_skip_size();
        p->include_all_ngrams = o.include_all_ngrams();
      });
    case BO::RESIZE_BILINEAR:
      return x.Parse<TfLiteResizeBilinearParams, fb::ResizeBilinearOptions>(resize);
    case BO::RESIZE_NEAREST_NEIGHBOR:
      return x.Parse<TfLiteResizeNearestNeighborParams, fb::ResizeNearestNeighborOptions>(resize);
    case BO::RESHAPE:
      return x.Parse<TfLiteReshapeParams, fb::ReshapeOptions>(
          [&x](const auto& o, auto* p) { p->num_dimensions = x.Ints(o.new_shape(), p->shape, "new_shape"); });
    case BO::SQUEEZE:
      return x.Parse<TfLiteSqueezeParams, fb::SqueezeOptions>([&x](const auto& o, auto* p) {
        p->num_squeeze_dims = x.Ints(o.squeeze_dims(), p->squeeze_dims, "squeeze_dims");
      });
    case BO::SPACE_TO_DEPTH:
      return x.Parse<TfLiteSpaceToDepthParams, fb::SpaceToDepthOptions>(block_size);
    case BO::DEPTH_TO_SPACE:
      return x.Parse<TfLiteDepthToSpaceParams, fb::DepthToSpaceOptions>(block_size);
    case BO::CAST:
      return x.Parse<TfLiteCastParams, fb::CastOptions>([&x](const auto& o, auto* p) {
        p->in_data_type = x.Type(o.in_data_type(), "in_data_type");
        p->out_data_type = x.Type(o.out_data_type(), "out_data_type");
      });
    case BO::GATHER:
      return x.Parse<TfLiteGatherParams, fb::GatherOptions>([](const auto& o, auto* p) {
        p->axis = o.axis();
        p->batch_dims = o.batch_dims();
      });
    case BO::MEAN:
    case BO::SUM:
    case BO::REDUCE_PROD:
    case BO::REDUCE_MAX:
    case BO::REDUCE_MIN:
    case BO::REDUCE_ANY:
    case BO::REDUCE_ALL:
      return x.Parse<TfLiteReducerParams, fb::ReducerOptions>(
          [](const auto& o, auto* p) { p->keep_dims = o.keep_dims(); });
    case BO::SPLIT:
      return x.Parse<TfLiteSplitParams, fb::SplitOptions>(num_splits);
    case BO::SPLIT_V:
      return x.Parse<TfLiteSplitVParams, fb::SplitVOptions>(num_splits);
    case BO::STRIDED_SLICE:
      return x.Parse<TfLiteStridedSliceParams, fb::StridedSliceOptions>([](const auto& o, auto* p) {
        p->begin_mask = o.begin_mask();
        p->end_mask = o.end_mask();
        p->ellipsis_mask = o.ellipsis_mask();
        p->new_axis_mask = o.new_axis_mask();
        p->shrink_axis_mask = o.shrink_axis_mask();
        p->offset = o.offset();
      });
    case BO::ARG_MAX:
      return x.Parse<TfLiteArgMaxParams, fb::ArgMaxOptions>(output_type);
    case BO::ARG_MIN:
      return x.Parse<TfLiteArgMinParams, fb::ArgMinOptions>(output_type);
    case BO::SHAPE:
      return x.Parse<TfLiteShapeParams, fb::ShapeOptions>(
          [&x](const auto& o, auto* p) { p->out_type = x.Type(o.out_type(), "out_type"); });
    case BO::SPARSE_TO_DENSE:
      return x.Parse<TfLiteSparseToDenseParams, fb::SparseToDenseOptions>(
          [](const auto& o, auto* p) { p->validate_indices = o.validate_indices(); });
    case BO::FAKE_QUANT:
      return x.Parse<TfLiteFakeQuantParams, fb::FakeQuantOptions>([](const auto& o, auto* p) {
        p->min = o.min();
        p->max = o.max();
        p->num_bits = o.num_bits();
        p->narrow_range = o.narrow_range();
      });
    case BO::PACK:
      return x.Parse<TfLitePackParams, fb::PackOptions>([](const auto& o, auto* p) {
        p->values_count = o.values_count();
        p->axis = o.axis();
      });
    case BO::UNPACK:
      return x.Parse<TfLiteUnpackParams, fb::UnpackOptions>([](const auto& o, auto* p) {
        p->num = o.num();
        p->axis = o.axis();
      });
    case BO::ONE_HOT:
      return x.Parse<TfLiteOneHotParams, fb::OneHotOptions>([](const auto& o, auto* p) { p->axis = o.axis(); });
    case BO::LEAKY_RELU:
      return x.Parse<TfLiteLeakyReluParams, fb::LeakyReluOptions>([](const auto& o, auto* p) { p->alpha = o.alpha(); });
    case BO::MIRROR_PAD:
      return x.Parse<TfLiteMirrorPaddingParams, fb::MirrorPadOptions>(
          [&x](const auto& o, auto* p) { p->mode = x.Enum(o.mode(), kMirrorPadModes, "mode"); });
    case BO::UNIQUE:  // TFLite: INT64 or else INT32, unchecked
      return x.Parse<TfLiteUniqueParams, fb::UniqueOptions>([](const auto& o, auto* p) {
        p->index_out_type = o.idx_out_type() == fb::TensorType::INT64 ? kTfLiteInt64 : kTfLiteInt32;
      });
    case BO::REVERSE_SEQUENCE:
      return x.Parse<TfLiteReverseSequenceParams, fb::ReverseSequenceOptions>([](const auto& o, auto* p) {
        p->seq_dim = o.seq_dim();
        p->batch_dim = o.batch_dim();
      });
    case BO::IF:
      return x.Parse<TfLiteIfParams, fb::IfOptions>([](const auto& o, auto* p) {
        p->then_subgraph_index = o.then_subgraph_index();
        p->else_subgraph_index = o.else_subgraph_index();
      });
    case BO::WHILE:
      return x.Parse<TfLiteWhileParams, fb::WhileOptions>([](const auto& o, auto* p) {
        p->cond_subgraph_index = o.cond_subgraph_index();
        p->body_subgraph_index = o.body_subgraph_index();
      });
    case BO::CALL_ONCE:
      return x.Parse<TfLiteCallOnceParams, fb::CallOnceOptions>(
          [](const auto& o, auto* p) { p->init_subgraph_index = o.init_subgraph_index(); });
    case BO::BATCH_MATMUL:
      return x.Parse<TfLiteBatchMatMulParams, fb::BatchMatMulOptions>([](const auto& o, auto* p) {
        p->adj_x = o.adj_x();
        p->adj_y = o.adj_y();
        p->asymmetric_quantize_inputs = o.asymmetric_quantize_inputs();
      });
    case BO::CUMSUM:
      return x.Parse<TfLiteCumsumParams, fb::CumsumOptions>([](const auto& o, auto* p) {
        p->exclusive = o.exclusive();
        p->reverse = o.reverse();
      });
    case BO::HASHTABLE:
      return x.Parse<TfLiteHashtableParams, fb::HashtableOptions>([&x](const auto& o, auto* p) {
        p->table_id = o.table_id();
        p->key_dtype = x.Type(o.key_dtype(), "key_dtype");
        p->value_dtype = x.Type(o.value_dtype(), "value_dtype");
      });
    case BO::VAR_HANDLE:  // the strings stay in the model, as in TFLite
      return x.Parse<TfLiteVarHandleParams, fb::VarHandleOptions>([](const auto& o, auto* p) {
        if (o.container() != nullptr) p->container = o.container()->c_str();
        if (o.shared_name() != nullptr) p->shared_name = o.shared_name()->c_str();
      });
    case BO::RANDOM_STANDARD_NORMAL:
    case BO::RANDOM_UNIFORM:
    case BO::MULTINOMIAL:
      return x.Parse<TfLiteRandomParams, fb::RandomOptions>([](const auto& o, auto* p) {
        p->seed = static_cast<int>(o.seed());
        p->seed2 = static_cast<int>(o.seed2());
      });
    case BO::BUCKETIZE:  // boundaries point into the model, as in TFLite
      return x.Parse<TfLiteBucketizeParams, fb::BucketizeOptions>([&x](const auto& o, auto* p) {
        if (o.boundaries() == nullptr) return x.Fail("boundaries", "is missing");
        p->num_boundaries = static_cast<int>(o.boundaries()->size());
        p->boundaries = o.boundaries()->data();
      });
    case BO::GELU:
      return x.Parse<TfLiteGeluParams, fb::GeluOptions>(
          [](const auto& o, auto* p) { p->approximate = o.approximate(); });

    // Kernels that take no params; the structs are empty placeholders.
    case BO::PAD:
      return x.Parse<TfLitePadParams, fb::PadOptions>(no_fields);
    case BO::PADV2:
      return x.Parse<TfLitePadV2Params, fb::PadV2Options>(no_fields);
    case BO::SPACE_TO_BATCH_ND:
      return x.Parse<TfLiteSpaceToBatchNDParams, fb::SpaceToBatchNDOptions>(no_fields);
    case BO::BATCH_TO_SPACE_ND:
      return x.Parse<TfLiteBatchToSpaceNDParams, fb::BatchToSpaceNDOptions>(no_fields);
    case BO::TRANSPOSE:
      return x.Parse<TfLiteTransposeParams, fb::TransposeOptions>(no_fields);
    case BO::RANK:
      return x.Parse<TfLiteRankParams, fb::RankOptions>(no_fields);
    case BO::MATRIX_DIAG:
      return x.Parse<TfLiteMatrixDiagParams, fb::MatrixDiagOptions>(no_fields);
    case BO::MATRIX_SET_DIAG:
      return x.Parse<TfLiteMatrixSetDiagParams, fb::MatrixSetDiagOptions>(no_fields);

    // StableHLO ops (tables in builtin_options_2).
    case BO::STABLEHLO_CONCATENATE:
      return x.Parse<TfLiteStablehloConcatenateParams, fb::StablehloConcatenateOptions>(
          [](const auto& o, auto* p) { p->dimension = o.dimension(); });
    case BO::STABLEHLO_SCATTER:
      return x.Parse<TfLiteStablehloScatterParams, fb::StablehloScatterOptions>([&x](const auto& o, auto* p) {
        p->indices_are_sorted = o.indices_are_sorted();
        p->num_update_window_dims = x.Ints(o.update_window_dims(), p->update_window_dims, "update_window_dims");
        p->num_inserted_window_dims = x.Ints(o.inserted_window_dims(), p->inserted_window_dims, "inserted_window_dims");
        p->num_scatter_dims_to_operand_dims =
            x.Ints(o.scatter_dims_to_operand_dims(), p->scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims");
        p->index_vector_dim = o.index_vector_dim();
        p->unique_indices = o.unique_indices();
        p->update_computation_subgraph_index = o.update_computation_subgraph_index();
      });
    case BO::STABLEHLO_GATHER:
      return x.Parse<TfLiteStablehloGatherParams, fb::StablehloGatherOptions>([&x](const auto& o, auto* p) {
        p->num_offset_dims = x.Ints(o.offset_dims(), p->offset_dims, "offset_dims");
        p->num_collapsed_slice_dims = x.Ints(o.collapsed_slice_dims(), p->collapsed_slice_dims, "collapsed_slice_dims");
        p->num_start_index_map = x.Ints(o.start_index_map(), p->start_index_map, "start_index_map");
        p->index_vector_dim = o.index_vector_dim();
        p->num_slice_sizes = x.Ints(o.slice_sizes(), p->slice_sizes, "slice_sizes");
        p->indices_are_sorted = o.indices_are_sorted();
      });
    case BO::STABLEHLO_RNG_BIT_GENERATOR:
      return x.Parse<TfLiteStablehloRngBitGeneratorParams, fb::StablehloRngBitGeneratorOptions>(
          [&x](const auto& o, auto* p) { p->algorithm = x.Enum(o.algorithm(), kRngAlgorithms, "algorithm"); });
    case BO::STABLEHLO_REDUCE_WINDOW:
      return x.Parse<TfLiteStablehloReduceWindowParams, fb::StablehloReduceWindowOptions>(
          [&x](const auto& o, auto* p) { FillReduceWindow(x, o, p); }, /*required=*/true);
    case BO::REDUCE_WINDOW:
      return x.Parse<TfLiteReduceWindowParams, fb::ReduceWindowOptions>([&x](const auto& o, auto* p) {
        p->reduce_function = x.Enum(o.reduce_function(), kReduceWindowFunctions, "reduce_function");
        if (p->reduce_function == TfLiteReduceWindowFunctionUnsupported) {
          x.Fail("reduce_function", "is UNSUPPORTED");
        }
      });
    case BO::STABLEHLO_PAD:
      return x.Parse<TfLiteStablehloPadParams, fb::StablehloPadOptions>(
          [&x](const auto& o, auto* p) {
            const int low = x.Ints(o.edge_padding_low(), p->edge_padding_low, "edge_padding_low",
                                   /*required=*/true);
            const int high =
                x.Ints(o.edge_padding_high(), p->edge_padding_high, "edge_padding_high", /*required=*/true);
            const int interior =
                x.Ints(o.interior_padding(), p->interior_padding, "interior_padding", /*required=*/true);
            if (low != high || low != interior) {
              x.Fail("edge_padding_low", "differs in length from edge_padding_high or interior_padding");
            }
          },
          /*required=*/true);
    case BO::STABLEHLO_COMPOSITE:  // name and attributes point into the model
      return x.Parse<TfLiteStablehloCompositeParams, fb::StableHLOCompositeOptions>(
          [&x](const auto& o, auto* p) {
            if (o.name() == nullptr) return x.Fail("name", "is missing");
            if (o.composite_attributes() == nullptr) {
              return x.Fail("composite_attributes", "is missing");
            }
            p->name = o.name()->c_str();
            p->version = o.version();
            p->subgraph_index = o.decomposition_subgraph_index();
            p->attributes = o.composite_attributes()->data();
            p->attributes_size = o.composite_attributes()->size();
          },
          /*required=*/true);
    case BO::STABLEHLO_CASE:
      return x.Parse<TfLiteStablehloCaseParams, fb::StablehloCaseOptions>(
          [&x](const auto& o, auto* p) {
            p->num_branches = static_cast<uint32_t>(x.Ints(o.branch_subgraph_indices(), p->branch_subgraph_indices,
                                                           "branch_subgraph_indices",
                                                           /*required=*/true));
          },
          /*required=*/true);

    case BO::DELEGATE:
      return x.Error("DELEGATE operators cannot appear in a model");
    case BO::PLACEHOLDER_FOR_GREATER_OP_CODES:
      return x.Error("operator code 127 is only a placeholder for codes above it");
    default:  // no params
      return Status::Ok();
  }
}

}  // namespace touchstone
