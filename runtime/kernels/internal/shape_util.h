// Index arithmetic shared by the data-movement and reduction kernels (reference and, later,
// optimized): row-major strides, axis normalisation, TFLite's strided-slice start/stop rules, the
// mirror-pad index map, and a gather that copies elements of any fixed size by bytes.
// Nothing here touches TfLiteTensor: callers pass shapes, strides and raw buffers (element counts
// are tensor_util.h's ElementCount).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SHAPE_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SHAPE_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/tensor_util.h"

namespace touchstone {
namespace shape_util {

using Shape = std::vector<int>;

// Row-major strides in elements: strides[i] = product of shape[i+1..].
inline std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

// Maps a possibly negative axis into [0, rank); false when it is outside [-rank, rank).
inline bool NormalizeAxis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return true;
}

// Product of shape[begin..end).
inline int64_t ProductOfDims(const Shape& shape, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= shape[i];
  return n;
}

// TFLite 2.14's StridedSlice rules for one axis (strided_slice_logic.h). `start` is clamped to
// [0, size] for a positive stride and [-1, size-1] for a negative one; begin_mask selects the first
// element in the direction of travel. With shrink the slice is one element long.
inline int StridedSliceStart(int start, int stride, int axis_size, bool begin_mask) {
  if (begin_mask) return stride > 0 ? 0 : axis_size - 1;
  int64_t s = start;
  if (s < 0) s += axis_size;
  if (stride > 0) {
    s = std::min<int64_t>(std::max<int64_t>(s, 0), axis_size);
  } else {
    s = std::min<int64_t>(std::max<int64_t>(s, -1), axis_size - 1);
  }
  return static_cast<int>(s);
}

// `stop` as given (when `offset`, relative to the resolved start). Returns one past the last
// element in the direction of travel.
inline int StridedSliceStop(int stop, int start, int stride, int axis_size, bool end_mask, bool shrink, bool offset) {
  if (shrink) return start >= axis_size ? start : start + 1;
  if (end_mask) return stride > 0 ? axis_size : -1;
  int64_t e = stop;
  if (offset) e += start;
  if (e < 0) e += axis_size;
  if (stride > 0) {
    e = std::min<int64_t>(std::max<int64_t>(e, 0), axis_size);
  } else {
    e = std::min<int64_t>(std::max<int64_t>(e, -1), axis_size - 1);
  }
  return static_cast<int>(e);
}

// Number of elements visited by for (i = start; stride > 0 ? i < stop : i > stop; i += stride).
inline int StridedCount(int start, int stop, int stride) {
  const int64_t span = static_cast<int64_t>(stop) - start;
  if (stride > 0) return span <= 0 ? 0 : static_cast<int>((span + stride - 1) / stride);
  return span >= 0 ? 0
                   : static_cast<int>((-span + (-static_cast<int64_t>(stride)) - 1) / (-static_cast<int64_t>(stride)));
}

// Index into an axis of `size` elements for position `i` of its mirror-padded version with `left`
// elements of padding before it. `offset` is 1 for REFLECT (the edge is not repeated) and 0 for
// SYMMETRIC (it is). Callers check left, right <= size - offset beforehand.
inline int64_t MirrorPadIndex(int64_t i, int64_t left, int64_t size, int offset) {
  if (i < left) return left - 1 + offset - i;
  i -= left;
  if (i < size) return i;
  return size - 1 - offset - (i - size);
}

// Copies one element of `elem` bytes. Sizes of 1, 2, 4 and 8 bytes take a typed path.
inline void CopyElement(const char* from, char* to, size_t elem) {
  switch (elem) {
    case 1:
      *to = *from;
      break;
    case 2:
      std::memcpy(to, from, 2);
      break;
    case 4:
      std::memcpy(to, from, 4);
      break;
    case 8:
      std::memcpy(to, from, 8);
      break;
    default:
      std::memcpy(to, from, elem);
      break;
  }
}

// Copies a row of n bytes; rows of up to 32 bytes (a rotary embedding's pairs, an image's first
// convolution's runs of 9 or 12, the edge rows of a 3-channel float window) as two overlapping
// loads and stores instead of a call to memcpy.
__attribute__((always_inline)) inline void CopyRow(void* to_bytes, const void* from_bytes, size_t n) {
  char* to = static_cast<char*>(to_bytes);
  const char* from = static_cast<const char*>(from_bytes);
  if (n > 32) {
    std::memcpy(to, from, n);
  } else if (n >= 16) {
    char head[16], tail[16];
    std::memcpy(head, from, 16);
    std::memcpy(tail, from + n - 16, 16);
    std::memcpy(to, head, 16);
    std::memcpy(to + n - 16, tail, 16);
  } else if (n >= 8) {
    uint64_t head, tail;
    std::memcpy(&head, from, 8);
    std::memcpy(&tail, from + n - 8, 8);
    std::memcpy(to, &head, 8);
    std::memcpy(to + n - 8, &tail, 8);
  } else if (n >= 4) {
    uint32_t head, tail;
    std::memcpy(&head, from, 4);
    std::memcpy(&tail, from + n - 4, 4);
    std::memcpy(to, &head, 4);
    std::memcpy(to + n - 4, &tail, 4);
  } else if (n > 0) {
    to[0] = from[0];
    to[n / 2] = from[n / 2];
    to[n - 1] = from[n - 1];
  }
}

// The general data-movement primitive. For every output position o (row-major over out_shape),
// out[o] = in[sum_d maps[d][o_d] * in_strides[d]], where maps[d] has out_shape[d] entries giving
// the input coordinate (already multiplied into whatever axis in_strides[d] addresses), or
// `pad_value` when any maps[d][o_d] is negative. Transpose, slice, strided slice, tile, broadcast,
// reverse, pad and mirror pad are all such maps. Elements are `elem` bytes; nothing is interpreted.
inline void GatherByDimMaps(const char* in, size_t elem, const Shape& out_shape,
                            const std::vector<std::vector<int64_t>>& maps, const std::vector<int64_t>& in_strides,
                            const char* pad_value, char* out) {
  const int rank = static_cast<int>(out_shape.size());
  if (ElementCount(out_shape) == 0) return;
  if (rank == 0) {
    CopyElement(in, out, elem);
    return;
  }
  // Offsets of the per-dimension contributions, precomputed; -1 marks padding.
  std::vector<std::vector<int64_t>> offsets(rank);
  for (int d = 0; d < rank; ++d) {
    offsets[d].resize(out_shape[d]);
    for (int i = 0; i < out_shape[d]; ++i) {
      offsets[d][i] = maps[d][i] < 0 ? -1 : maps[d][i] * in_strides[d];
    }
  }
  std::vector<int> index(rank, 0);
  // partial[d] = sum of offsets of dims < d at the current index (-1 if any is padding).
  std::vector<int64_t> partial(rank + 1, 0);
  for (int d = 0; d < rank; ++d) {
    const int64_t o = offsets[d][0];
    partial[d + 1] = (partial[d] < 0 || o < 0) ? -1 : partial[d] + o;
  }
  const int inner = out_shape[rank - 1];
  const std::vector<int64_t>& last = offsets[rank - 1];
  // An innermost map that reads consecutive input elements (a slice, a copy, a broadcast row) is one
  // memcpy per row.
  bool contiguous = last[0] >= 0;
  for (int i = 1; i < inner && contiguous; ++i) contiguous = last[i] == last[0] + i;
  const size_t row_bytes = static_cast<size_t>(inner) * elem;
  if (contiguous && rank >= 2) {
    // Short rows (a slice of pairs): the second-to-last dimension's rows in one loop, the odometer
    // only above it.
    const std::vector<int64_t>& second = offsets[rank - 2];
    const int rows = out_shape[rank - 2];
    while (true) {
      const int64_t base = partial[rank - 2];
      for (int r = 0; r < rows; ++r) {
        const int64_t o = second[r];
        if (base < 0 || o < 0) {
          for (int i = 0; i < inner; ++i, out += elem) CopyElement(pad_value, out, elem);
        } else {
          CopyRow(out, in + (base + o + last[0]) * static_cast<int64_t>(elem), row_bytes);
          out += row_bytes;
        }
      }
      int d = rank - 3;
      while (d >= 0) {
        if (++index[d] < out_shape[d]) break;
        index[d] = 0;
        --d;
      }
      if (d < 0) return;
      for (int k = d; k < rank - 2; ++k) {
        const int64_t o = offsets[k][index[k]];
        partial[k + 1] = (partial[k] < 0 || o < 0) ? -1 : partial[k] + o;
      }
    }
  }
  while (true) {
    const int64_t base = partial[rank - 1];
    if (contiguous && base >= 0) {
      CopyRow(out, in + (base + last[0]) * static_cast<int64_t>(elem), row_bytes);
      out += row_bytes;
    } else {
      for (int i = 0; i < inner; ++i) {
        const int64_t o = last[i];
        if (base < 0 || o < 0) {
          CopyElement(pad_value, out, elem);
        } else {
          CopyElement(in + (base + o) * static_cast<int64_t>(elem), out, elem);
        }
        out += elem;
      }
    }
    // Advance the outer dimensions (odometer).
    int d = rank - 2;
    while (d >= 0) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
      --d;
    }
    if (d < 0) return;
    for (int k = d; k < rank - 1; ++k) {
      const int64_t o = offsets[k][index[k]];
      partial[k + 1] = (partial[k] < 0 || o < 0) ? -1 : partial[k] + o;
    }
  }
}

}  // namespace shape_util
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_SHAPE_UTIL_H_
