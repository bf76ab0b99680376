// SHA-256 (FIPS 180-4) of a byte range, as lower-case hex: identifies the model in benchmark reports,
// so a regression gate can tell when a baseline was measured on another file.
#ifndef TOUCHSTONE_EVALUATION_SHA256_H_
#define TOUCHSTONE_EVALUATION_SHA256_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace touchstone {

std::string Sha256Hex(const uint8_t* data, size_t size);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_SHA256_H_
