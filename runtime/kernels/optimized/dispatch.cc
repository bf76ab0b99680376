// Picks the microkernel set: the widest the CPU runs, or the one TOUCHSTONE_CPU_KERNELS names.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {
namespace {

// The sets this CPU runs, widest first.
std::vector<const MicroKernels*> Candidates() {
  std::vector<const MicroKernels*> sets;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    sets.push_back(isa_avx512::Table());
  }
  if (__builtin_cpu_supports("avx") && __builtin_cpu_supports("fma")) {
    sets.push_back(isa_avx_fma::Table());
  }
  sets.push_back(isa_sse2::Table());
#endif
#if defined(__aarch64__)
  sets.push_back(isa_neon::Table());
#endif
  sets.push_back(isa_scalar::Table());
  return sets;
}

const std::vector<const MicroKernels*>& AvailableSets() {
  static const std::vector<const MicroKernels*> sets = Candidates();
  return sets;
}

const MicroKernels* FindSet(const std::string& name) {
  for (const MicroKernels* set : AvailableSets()) {
    if (name == set->name) return set;
  }
  return nullptr;
}

const MicroKernels* InitialSet() {
  const char* requested = std::getenv("TOUCHSTONE_CPU_KERNELS");
  if (requested != nullptr && requested[0] != '\0') {
    if (const MicroKernels* set = FindSet(requested)) return set;
    std::fprintf(stderr, "TOUCHSTONE_CPU_KERNELS=%s is not available here; using %s\n", requested,
                 AvailableSets().front()->name);
  }
  return AvailableSets().front();
}

std::atomic<const MicroKernels*> g_current{nullptr};

}  // namespace

const MicroKernels& Kernels() {
  const MicroKernels* current = g_current.load(std::memory_order_acquire);
  if (current == nullptr) {
    const MicroKernels* initial = InitialSet();
    if (g_current.compare_exchange_strong(current, initial, std::memory_order_acq_rel)) {
      current = initial;
    }
  }
  return *current;
}

std::vector<std::string> AvailableKernelSets() {
  std::vector<std::string> names;
  for (const MicroKernels* set : AvailableSets()) names.push_back(set->name);
  return names;
}

bool SelectKernelSet(const std::string& name) {
  const MicroKernels* set = FindSet(name);
  if (set == nullptr) return false;
  g_current.store(set, std::memory_order_release);
  return true;
}

}  // namespace optimized
}  // namespace touchstone
