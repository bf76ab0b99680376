#include "runtime/kernels/optimized/gemm.h"

#include <algorithm>
#include <cstdint>

#include "runtime/kernels/optimized/op_common.h"

namespace touchstone {
namespace optimized {
namespace {

// Packed weights one task sweeps over all its rows: sized to stay in a core's L2 cache.
constexpr size_t kBlockBytes = 128 * 1024;

// The residual ADD of rows [row, row + rows) and columns [col, col + cols) of `q`'s C, just written.
void AddResidual(const GemmProblem& q, size_t row, size_t rows, size_t col, size_t cols) {
  float* c = q.c + row * q.c_stride + col;
  const float* residual = q.residual + row * q.c_stride + col;
  if (col == 0 && cols == q.c_stride) {
    q.residual_add(rows * cols, c, residual, false, c, q.residual_min, q.residual_max);
    if (q.post != nullptr) q.post(rows * cols, c, c, q.post_lo, q.post_hi);
    return;
  }
  for (size_t i = 0; i < rows; ++i) {
    float* c_row = c + i * q.c_stride;
    q.residual_add(cols, c_row, residual + i * q.c_stride, false, c_row, q.residual_min, q.residual_max);
    if (q.post != nullptr) q.post(cols, c_row, c_row, q.post_lo, q.post_hi);
  }
}

}  // namespace

const GemmVariant& ChooseGemmVariant(const MicroKernels& kernels, size_t n) {
  return n <= static_cast<size_t>(kernels.gemm_narrow.nr) ? kernels.gemm_narrow : kernels.gemm;
}

void RunGemm(TfLiteContext* context, const GemmProblem* problems, size_t count) {
  if (count == 0) return;
  const GemmProblem& p = problems[0];
  if (p.m == 0 || p.nc == 0) return;
  const GemmVariant& variant = *p.variant;
  const size_t mr = variant.mr;
  const size_t nr = variant.nr;
  const size_t panel_size = PackedPanelSize(p.ks, p.kc, nr);
  const size_t panels = (p.nc + nr - 1) / nr;
  const size_t block_panels = std::min(panels, std::max<size_t>(1, kBlockBytes / (panel_size * sizeof(float))));
  const size_t blocks = (panels + block_panels - 1) / block_panels;
  const size_t row_tiles = (p.m + mr - 1) / mr;
  // The rows spread evenly over the tiles rather than full tiles and one short one: a short tile
  // streams the same packed weights as a full one for a fraction of the work, and 7x7 = 49 rows
  // would be six tiles of 8 and one of 1 instead of seven of 7. The first tiles take the extra
  // rows, with no division (the loop below runs this per task, and a task can be ~100 cycles).
  const size_t tile_base_rows = p.m / row_tiles;
  const size_t tiles_with_extra_row = p.m % row_tiles;
  auto tile_first_row = [&](size_t tile) { return tile * tile_base_rows + std::min(tile, tiles_with_extra_row); };
  const size_t tasks_per_problem = blocks * row_tiles;
  // With several weight blocks, the rows are first cut into one part per thread, and each part
  // runs block by block (a block's weights stay in the cache over the part's tiles). Chunks are
  // contiguous runs of tasks, so each thread then computes rows of its own part, the rows it
  // wrote in the previous op. With one block, parts change nothing.
  const size_t parts =
      blocks > 1 ? std::min<size_t>(row_tiles, static_cast<size_t>(std::max(1, NumThreads(context)))) : 1;
  auto part_first_tile = [&](size_t part) { return part * row_tiles / parts; };
  const int64_t tasks = static_cast<int64_t>(tasks_per_problem * count);
  const int64_t macs_per_task = static_cast<int64_t>(mr * block_panels * nr * p.ks * p.kc);
  const int64_t min_tasks = std::max<int64_t>(1, kMinMacsPerChunk / std::max<int64_t>(1, macs_per_task));

  ParallelChunks(context, tasks, min_tasks, [&](int, int64_t begin, int64_t end) {
    // The chunk's first task, decomposed once (problem, part, block, tile within the part); the
    // loop then steps through the rest in order without dividing (a task can be ~100 cycles).
    size_t problem = static_cast<size_t>(begin) / tasks_per_problem;
    const size_t index = static_cast<size_t>(begin) % tasks_per_problem;
    size_t part = 0;
    while (part + 1 < parts && index >= blocks * part_first_tile(part + 1)) ++part;
    size_t first_tile = part_first_tile(part);
    size_t part_tiles = part_first_tile(part + 1) - first_tile;
    const size_t local = index - blocks * first_tile;
    size_t block = local / part_tiles;
    size_t tile_in_part = local % part_tiles;
    for (int64_t task = begin; task < end; ++task) {
      const GemmProblem& q = problems[problem];
      const size_t tile = first_tile + tile_in_part;
      const size_t row = tile_first_row(tile);
      const size_t rows = tile_first_row(tile + 1) - row;
      const size_t col = block * block_panels * nr;
      GemmArgs args = q;  // the problem's, for this task's rows, columns and panels
      args.a = q.a + row * q.a_row_stride;
      args.nc = std::min(block_panels * nr, p.nc - col);
      args.w = q.w + block * block_panels * panel_size;
      args.c = q.c + row * q.c_stride + col;
      variant.fn[rows](args);
      if (q.residual != nullptr) AddResidual(q, row, rows, col, args.nc);
      if (++tile_in_part < part_tiles) continue;
      tile_in_part = 0;
      if (++block < blocks) continue;
      block = 0;
      if (++part == parts) {
        part = 0;
        ++problem;
      }
      first_tile = part_first_tile(part);
      part_tiles = part_first_tile(part + 1) - first_tile;
    }
  });
}

}  // namespace optimized
}  // namespace touchstone
