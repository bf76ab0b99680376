// The machine a benchmark ran on, as far as Linux lets a process read it: CPU model, logical cores
// (and those this process may use), the instruction sets the optimized kernels take, the frequency
// governor and current/maximum frequency of CPU 0, the operating system and the kernel. Fields that
// cannot be read stay empty or 0.
#ifndef TOUCHSTONE_EVALUATION_MACHINE_INFO_H_
#define TOUCHSTONE_EVALUATION_MACHINE_INFO_H_

#include <cstdint>
#include <string>

namespace touchstone {

struct MachineInfo {
  std::string cpu_model;     // /proc/cpuinfo "model name" (or "Hardware"/"CPU part" on Arm)
  int logical_cores = 0;     // online CPUs
  int usable_cores = 0;      // CPUs in this process's affinity mask
  std::string isa;           // the optimized kernels' instruction sets (OptimizedKernelsIsa)
  std::string governor;      // /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
  int64_t cur_freq_khz = 0;  // scaling_cur_freq of CPU 0
  int64_t max_freq_khz = 0;  // cpuinfo_max_freq of CPU 0
  std::string os;            // /etc/os-release PRETTY_NAME ("Android" on Android), else uname's sysname
  std::string kernel;        // uname: sysname release machine
  std::string hostname;
};

MachineInfo ReadMachineInfo();

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_MACHINE_INFO_H_
