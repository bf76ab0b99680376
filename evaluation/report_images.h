// Pictures of images for the report pages (report_view), drawn with OpenCV, the library the design card
// names for drawing: a thumbnail of an image, and an image with boxes and their labels drawn on it, each
// as a data: URI of a JPEG to inline in a page. Only for looking at: the TFLite-exact preprocessing of
// the evaluations is evaluation/image_preprocessing, never this.
#ifndef TOUCHSTONE_EVALUATION_REPORT_IMAGES_H_
#define TOUCHSTONE_EVALUATION_REPORT_IMAGES_H_

#include <string>
#include <vector>

#include "runtime/status.h"

namespace touchstone {

// "data:image/jpeg;base64,..." of the image at `path` scaled down to fit `max_side` pixels. Errors
// (kInvalidInput) name the file: missing, unreadable, not an image.
StatusOr<std::string> ThumbnailDataUri(const std::string& path, int max_side);

// A box to draw, normalised [ymin, xmin, ymax, xmax], and what it is.
struct DrawnBox {
  float ymin = 0, xmin = 0, ymax = 0, xmax = 0;
  std::string label;
  enum Kind { kTruth, kMissedTruth, kHit, kFalsePositive } kind = kTruth;
};

// The image scaled to fit `max_side`, with each box drawn in its kind's colour (ground truth green, a
// missed ground-truth box yellow and thicker, a detection that hit blue, a false positive red) and its
// label on a filled tag.
StatusOr<std::string> DrawBoxesDataUri(const std::string& path, const std::vector<DrawnBox>& boxes, int max_side);

// Base64 of bytes (RFC 4648, with padding).
std::string Base64(const std::vector<unsigned char>& bytes);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_REPORT_IMAGES_H_
