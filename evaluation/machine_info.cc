#include "evaluation/machine_info.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "runtime/kernels/optimized/isa_name.h"

namespace touchstone {
namespace {

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

int64_t ReadInt(const std::string& path) {
  int64_t value = 0;
  return absl::SimpleAtoi(FirstLine(path), &value) ? value : 0;
}

}  // namespace

MachineInfo ReadMachineInfo() {
  MachineInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, hardware, part;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, colon)));
    const std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    if (key == "model name" && info.cpu_model.empty()) info.cpu_model = value;
    if (key == "Hardware" && hardware.empty()) hardware = value;
    if (key == "CPU part" && part.empty()) part = value;
  }
  if (info.cpu_model.empty()) info.cpu_model = !hardware.empty() ? hardware : (!part.empty() ? "CPU part " + part : "");
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  info.logical_cores = online > 0 ? static_cast<int>(online) : 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) info.usable_cores = CPU_COUNT(&set);
  const std::string cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq/";
  info.governor = FirstLine(cpufreq + "scaling_governor");
  info.cur_freq_khz = ReadInt(cpufreq + "scaling_cur_freq");
  info.max_freq_khz = ReadInt(cpufreq + "cpuinfo_max_freq");
  info.isa = OptimizedKernelsIsa();
  std::ifstream os_release("/etc/os-release");
  while (std::getline(os_release, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string value = line.substr(12);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    info.os = value;
  }
  struct utsname name;
  if (uname(&name) == 0) {
    info.kernel = std::string(name.sysname) + " " + name.release + " " + name.machine;
    info.hostname = name.nodename;
    if (info.os.empty()) info.os = name.sysname;
  }
#if defined(__ANDROID__)
  info.os = "Android";
#endif
  return info;
}

}  // namespace touchstone
