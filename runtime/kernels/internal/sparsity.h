// Sparse constant tensors: TensorFlow Lite's TACO-style encoding (schema SparsityParameters) and its
// expansion to a dense row-major tensor, with TFLite 2.14.1's meaning
// (tensorflow/lite/kernels/internal/utils/sparsity_format_converter.cc, FormatConverter::SparseToDense).
//
// The encoding: a tensor of rank r may be split into blocks along some dimensions (block_map lists
// the blocked original dimensions, in increasing order); that gives n = r + len(block_map)
// "expanded" dimensions, the r blocked-shape dimensions followed by one per block. The expanded
// dimensions are stored in traversal_order; dim_metadata[level] encodes the dimension traversed at
// that level, DENSE (every index, dense_size of them) or SPARSE_CSR (for each position of the
// previous levels, array_segments[p]..array_segments[p+1] delimit its stored indices in
// array_indices). The values array holds one element per position of the last level, in traversal
// order. Elements absent from the encoding are zero.
//
// Sparse tensors come from model files, so everything here treats the encoding as hostile:
// ValidateSparsity proves every index and every value position in range before anything is written,
// and the expansion itself then needs no checks.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SPARSITY_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SPARSITY_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/schema/schema_generated.h"

namespace touchstone {
namespace sparsity {

// More levels than any real tensor has; the bound keeps the expansion's recursion shallow.
constexpr int kMaxSparsityLevels = 64;

namespace internal {

// What the expansion needs per level, derived and checked by BuildPlan.
struct Level {
  bool sparse = false;
  int extent = 0;     // number of distinct indices at this level
  size_t stride = 0;  // dense elements one step of this level's index moves by
  const int* segments = nullptr;
  const int* indices = nullptr;
};

inline bool Fail(std::string* error, const std::string& message) {
  if (error != nullptr) *error = message;
  return false;
}

inline int ArraySize(const TfLiteIntArray* a) { return a != nullptr ? a->size : 0; }

// Checks the encoding against the dense shape and the number of stored values and, when valid,
// fills one Level per traversal level.
inline bool BuildPlan(const TfLiteSparsity& sparsity, const TfLiteIntArray* dense_shape, size_t num_values,
                      std::vector<Level>* levels, std::string* error) {
  if (dense_shape == nullptr) return Fail(error, "sparse tensor has no shape");
  const int rank = dense_shape->size;
  for (int d = 0; d < rank; ++d) {
    if (dense_shape->data[d] < 0) {
      return Fail(error, "sparse tensor has negative dimension " + std::to_string(dense_shape->data[d]));
    }
  }
  if (sparsity.traversal_order == nullptr || sparsity.dim_metadata == nullptr) {
    return Fail(error, "sparsity lacks traversal_order or dim_metadata");
  }
  const int num_levels = sparsity.traversal_order->size;
  if (num_levels < rank || num_levels > kMaxSparsityLevels) {
    return Fail(error, "sparsity traversal_order has " + std::to_string(num_levels) + " entries; a rank-" +
                           std::to_string(rank) + " tensor needs between " + std::to_string(rank) + " and " +
                           std::to_string(kMaxSparsityLevels));
  }
  if (sparsity.dim_metadata_size != num_levels) {
    return Fail(error, "sparsity has " + std::to_string(sparsity.dim_metadata_size) +
                           " dim_metadata entries but traversal_order has " + std::to_string(num_levels));
  }
  const int num_blocks = num_levels - rank;
  if (ArraySize(sparsity.block_map) != num_blocks) {
    return Fail(error, "sparsity block_map has " + std::to_string(ArraySize(sparsity.block_map)) +
                           " entries but traversal_order implies " + std::to_string(num_blocks) + " block dimensions");
  }

  // traversal_order: a permutation of the expanded dimensions, original ones first (TFLite's
  // converter indexes the original dimensions by the first r levels).
  const int* order = sparsity.traversal_order->data;
  std::vector<bool> seen(num_levels, false);
  for (int level = 0; level < num_levels; ++level) {
    const int dim = order[level];
    const bool in_range = level < rank ? (dim >= 0 && dim < rank) : (dim >= rank && dim < num_levels);
    if (!in_range || seen[dim]) {
      return Fail(error, "sparsity traversal_order entry " + std::to_string(level) + " (" + std::to_string(dim) +
                             ") is not a valid " + (level < rank ? "original" : "block") + " dimension");
    }
    seen[dim] = true;
  }

  // block_map: the blocked original dimensions, strictly increasing.
  std::vector<int> block_of_dim(rank, -1);
  for (int b = 0; b < num_blocks; ++b) {
    const int dim = sparsity.block_map->data[b];
    if (dim < 0 || dim >= rank || (b > 0 && dim <= sparsity.block_map->data[b - 1])) {
      return Fail(error, "sparsity block_map entry " + std::to_string(b) + " (" + std::to_string(dim) +
                             ") is out of range or out of order");
    }
    block_of_dim[dim] = b;
  }

  // Block sizes: block dimensions are always dense (the only kind TFLite supports).
  std::vector<int> block_size(num_blocks, 0);
  for (int level = rank; level < num_levels; ++level) {
    const TfLiteDimensionMetadata& m = sparsity.dim_metadata[level];
    if (m.format != kTfLiteDimDense || m.dense_size <= 0) {
      return Fail(error, "sparsity block level " + std::to_string(level) + " must be dense with a positive size");
    }
    block_size[order[level] - rank] = m.dense_size;
  }

  std::vector<size_t> dense_stride(rank, 1);
  size_t dense_elements = 1;
  for (int d = rank - 1; d >= 0; --d) {
    dense_stride[d] = dense_elements;
    const size_t size = static_cast<size_t>(dense_shape->data[d]);
    if (size > 0 && dense_elements > std::numeric_limits<size_t>::max() / size) {
      return Fail(error, "sparse tensor's dense shape has too many elements");
    }
    dense_elements *= size;
  }

  levels->assign(num_levels, Level());
  uint64_t positions = 1;  // positions enumerated by the levels so far
  for (int level = 0; level < num_levels; ++level) {
    Level& out = (*levels)[level];
    const int dim = order[level];
    if (level < rank) {
      const int b = block_of_dim[dim];
      out.extent = b < 0 ? dense_shape->data[dim] : dense_shape->data[dim] / block_size[b];
      out.stride = b < 0 ? dense_stride[dim] : dense_stride[dim] * static_cast<size_t>(block_size[b]);
    } else {
      const int b = dim - rank;
      out.extent = block_size[b];
      out.stride = dense_stride[sparsity.block_map->data[b]];
    }
    const TfLiteDimensionMetadata& m = sparsity.dim_metadata[level];
    const std::string where = "sparsity level " + std::to_string(level);
    if (m.format == kTfLiteDimDense) {
      if (m.dense_size != out.extent) {
        return Fail(error, where + " has dense_size " + std::to_string(m.dense_size) +
                               " but the tensor's shape gives " + std::to_string(out.extent));
      }
      if (out.extent > 0 && positions > std::numeric_limits<uint64_t>::max() / out.extent) {
        return Fail(error, where + " enumerates too many positions");
      }
      positions *= static_cast<uint64_t>(out.extent);
      continue;
    }
    if (m.format != kTfLiteDimSparseCSR) {
      return Fail(error, where + " has unknown format " + std::to_string(static_cast<int>(m.format)));
    }
    if (m.array_segments == nullptr || m.array_indices == nullptr) {
      return Fail(error, where + " is SPARSE_CSR without array_segments and array_indices");
    }
    const int num_segments = m.array_segments->size;
    const int num_indices = m.array_indices->size;
    if (static_cast<uint64_t>(num_segments) != positions + 1) {
      return Fail(error, where + " has " + std::to_string(num_segments) + " segment entries, expected " +
                             std::to_string(positions + 1));
    }
    const int* segments = m.array_segments->data;
    if (segments[0] != 0 || segments[num_segments - 1] != num_indices) {
      return Fail(error, where + " array_segments must start at 0 and end at the " + std::to_string(num_indices) +
                             " stored indices");
    }
    for (int s = 1; s < num_segments; ++s) {
      if (segments[s] < segments[s - 1]) {
        return Fail(error, where + " array_segments decreases at entry " + std::to_string(s));
      }
    }
    const int* indices = m.array_indices->data;
    for (int k = 0; k < num_indices; ++k) {
      if (indices[k] < 0 || indices[k] >= out.extent) {
        return Fail(error, where + " index " + std::to_string(indices[k]) + " is outside [0, " +
                               std::to_string(out.extent) + ")");
      }
    }
    out.sparse = true;
    out.segments = segments;
    out.indices = indices;
    positions = static_cast<uint64_t>(num_indices);
  }
  if (positions != num_values) {
    return Fail(error, "sparsity encodes " + std::to_string(positions) + " values but the tensor stores " +
                           std::to_string(num_values));
  }
  return true;
}

// Copies the value at each position of level `level` and below into place.
inline void Expand(const std::vector<Level>& levels, size_t level, size_t position, size_t offset, size_t element_size,
                   const uint8_t* values, uint8_t* dense) {
  if (level == levels.size()) {
    std::memcpy(dense + offset * element_size, values + position * element_size, element_size);
    return;
  }
  const Level& l = levels[level];
  if (l.sparse) {
    for (int k = l.segments[position]; k < l.segments[position + 1]; ++k) {
      Expand(levels, level + 1, static_cast<size_t>(k), offset + static_cast<size_t>(l.indices[k]) * l.stride,
             element_size, values, dense);
    }
  } else {
    for (int i = 0; i < l.extent; ++i) {
      Expand(levels, level + 1, position * static_cast<size_t>(l.extent) + static_cast<size_t>(i),
             offset + static_cast<size_t>(i) * l.stride, element_size, values, dense);
    }
  }
}

// Widens one of the file's index vectors (int32, uint16 or uint8 entries) into a TfLiteIntArray.
template <typename Vector>
inline TfLiteIntArray* IntArrayFromVector(const Vector* vector) {
  if (vector == nullptr || vector->values() == nullptr) return nullptr;
  const auto* values = vector->values();
  if (values->size() > static_cast<flatbuffers::uoffset_t>(std::numeric_limits<int>::max())) return nullptr;
  TfLiteIntArray* array = TfLiteIntArrayCreate(static_cast<int>(values->size()));
  if (array == nullptr) return nullptr;
  for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) array->data[i] = static_cast<int>(values->Get(i));
  return array;
}

inline TfLiteIntArray* IndexVector(fb::SparseIndexVector type, const fb::Int32Vector* i32, const fb::Uint16Vector* u16,
                                   const fb::Uint8Vector* u8) {
  switch (type) {
    case fb::SparseIndexVector::Int32Vector:
      return IntArrayFromVector(i32);
    case fb::SparseIndexVector::Uint16Vector:
      return IntArrayFromVector(u16);
    case fb::SparseIndexVector::Uint8Vector:
      return IntArrayFromVector(u8);
    default:
      return nullptr;
  }
}

}  // namespace internal

// Checks that `sparsity` encodes a tensor of `dense_shape` holding exactly `num_values` stored
// values: sizes and formats of every level, traversal_order a permutation with the original
// dimensions first, block_map increasing with dense block levels, dense sizes matching the shape,
// CSR segments monotone from 0 to the number of indices, every index inside its dimension.
inline bool ValidateSparsity(const TfLiteSparsity& sparsity, const TfLiteIntArray* dense_shape, size_t num_values,
                             std::string* error) {
  std::vector<internal::Level> levels;
  return internal::BuildPlan(sparsity, dense_shape, num_values, &levels, error);
}

// Writes the dense row-major form of a sparse tensor: `values` holds its stored elements
// (`values_bytes`, a multiple of `element_size`), `dense` receives NumElements(dense_shape)
// elements (`dense_bytes`), zero where the encoding stores nothing. Validates first; on an invalid
// encoding or mismatched sizes returns false with *error set and leaves `dense` untouched.
inline bool SparseToDense(const TfLiteSparsity& sparsity, const TfLiteIntArray* dense_shape, size_t element_size,
                          const void* values, size_t values_bytes, void* dense, size_t dense_bytes,
                          std::string* error) {
  if (element_size == 0 || values_bytes % element_size != 0) {
    return internal::Fail(error, "sparse tensor holds " + std::to_string(values_bytes) +
                                     " bytes, not a whole number of " + std::to_string(element_size) +
                                     "-byte elements");
  }
  std::vector<internal::Level> levels;
  if (!internal::BuildPlan(sparsity, dense_shape, values_bytes / element_size, &levels, error)) {
    return false;
  }
  size_t dense_elements = 1;
  for (int d = 0; d < dense_shape->size; ++d) dense_elements *= static_cast<size_t>(dense_shape->data[d]);
  if (dense_bytes != dense_elements * element_size) {
    return internal::Fail(error, "dense buffer has " + std::to_string(dense_bytes) + " bytes, expected " +
                                     std::to_string(dense_elements * element_size));
  }
  if (dense_bytes == 0) return true;
  std::memset(dense, 0, dense_bytes);  // zero is all-zero bits for every numeric type
  internal::Expand(levels, 0, 0, 0, element_size, static_cast<const uint8_t*>(values), static_cast<uint8_t*>(dense));
  return true;
}

// Converts a tensor's SparsityParameters from the model file into a TfLiteSparsity (malloc'd;
// free with TfLiteSparsityFree), and validates it against the tensor's dense shape and its stored
// data (`value_bytes` bytes of `element_size`-byte elements). Returns null with *error set when the
// parameters are malformed.
inline TfLiteSparsity* SparsityFromFlatbuffer(const fb::SparsityParameters* src, const TfLiteIntArray* dense_shape,
                                              size_t element_size, size_t value_bytes, std::string* error) {
  if (src == nullptr || src->traversal_order() == nullptr || src->dim_metadata() == nullptr) {
    internal::Fail(error, "sparsity lacks traversal_order or dim_metadata");
    return nullptr;
  }
  const flatbuffers::uoffset_t num_levels = src->dim_metadata()->size();
  const flatbuffers::uoffset_t max_levels = static_cast<flatbuffers::uoffset_t>(kMaxSparsityLevels);
  if (src->traversal_order()->size() > max_levels || num_levels > max_levels ||
      (src->block_map() != nullptr && src->block_map()->size() > max_levels)) {
    internal::Fail(error, "sparsity has more than " + std::to_string(kMaxSparsityLevels) + " levels");
    return nullptr;
  }
  auto* sparsity = static_cast<TfLiteSparsity*>(calloc(1, sizeof(TfLiteSparsity)));
  if (sparsity == nullptr) {
    internal::Fail(error, "out of memory");
    return nullptr;
  }
  auto fail = [&](const std::string& message) -> TfLiteSparsity* {
    TfLiteSparsityFree(sparsity);
    internal::Fail(error, message);
    return nullptr;
  };
  const auto* order = src->traversal_order();
  sparsity->traversal_order = TfLiteIntArrayCreate(static_cast<int>(order->size()));
  if (sparsity->traversal_order == nullptr) return fail("out of memory");
  for (flatbuffers::uoffset_t i = 0; i < order->size(); ++i) sparsity->traversal_order->data[i] = order->Get(i);
  if (src->block_map() != nullptr) {
    const auto* map = src->block_map();
    sparsity->block_map = TfLiteIntArrayCreate(static_cast<int>(map->size()));
    if (sparsity->block_map == nullptr) return fail("out of memory");
    for (flatbuffers::uoffset_t i = 0; i < map->size(); ++i) sparsity->block_map->data[i] = map->Get(i);
  }
  sparsity->dim_metadata =
      static_cast<TfLiteDimensionMetadata*>(calloc(num_levels > 0 ? num_levels : 1, sizeof(TfLiteDimensionMetadata)));
  if (sparsity->dim_metadata == nullptr) return fail("out of memory");
  sparsity->dim_metadata_size = static_cast<int>(num_levels);
  for (flatbuffers::uoffset_t i = 0; i < num_levels; ++i) {
    const fb::DimensionMetadata* m = src->dim_metadata()->Get(i);
    const std::string where = "sparsity level " + std::to_string(i);
    if (m == nullptr) return fail(where + " has no metadata");
    TfLiteDimensionMetadata& out = sparsity->dim_metadata[i];
    if (m->format() == fb::DimensionType::DENSE) {
      out.format = kTfLiteDimDense;
      out.dense_size = m->dense_size();
    } else if (m->format() == fb::DimensionType::SPARSE_CSR) {
      out.format = kTfLiteDimSparseCSR;  // set first: TfLiteSparsityFree frees CSR arrays only
      out.array_segments =
          internal::IndexVector(m->array_segments_type(), m->array_segments_as_Int32Vector(),
                                m->array_segments_as_Uint16Vector(), m->array_segments_as_Uint8Vector());
      out.array_indices = internal::IndexVector(m->array_indices_type(), m->array_indices_as_Int32Vector(),
                                                m->array_indices_as_Uint16Vector(), m->array_indices_as_Uint8Vector());
      if (out.array_segments == nullptr || out.array_indices == nullptr) {
        return fail(where + " is SPARSE_CSR without array_segments and array_indices");
      }
    } else {
      return fail(where + " has unknown format " + std::to_string(static_cast<int>(m->format())));
    }
  }
  if (element_size == 0 || value_bytes % element_size != 0) {
    return fail("sparse tensor holds " + std::to_string(value_bytes) + " bytes, not a whole number of " +
                std::to_string(element_size) + "-byte elements");
  }
  std::string reason;
  if (!ValidateSparsity(*sparsity, dense_shape, value_bytes / element_size, &reason)) return fail(reason);
  return sparsity;
}

}  // namespace sparsity
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SPARSITY_H_
