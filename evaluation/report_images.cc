#include "evaluation/report_images.h"

#include <algorithm>

// The arm64 builds leave OpenCV out (Debian's arm64 OpenCV cannot be installed beside the host's;
// docs/arm64.md): the pictures are then a one-line note in the page, and nothing else changes.
#if !defined(TOUCHSTONE_NO_OPENCV)
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace touchstone {

#if !defined(TOUCHSTONE_NO_OPENCV)
namespace {

StatusOr<cv::Mat> ReadScaled(const std::string& path, int max_side) {
  cv::Mat image;
  try {
    image = cv::imread(path, cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    return InvalidInputError(path + ": cannot be read as an image (" + e.msg + ")");
  }
  if (image.empty()) return InvalidInputError(path + ": missing, or not an image OpenCV reads");
  const int side = std::max(image.cols, image.rows);
  if (side > max_side && max_side > 0) {
    const double scale = static_cast<double>(max_side) / side;
    cv::Mat scaled;
    cv::resize(
        image, scaled,
        cv::Size(std::max(1, static_cast<int>(image.cols * scale)), std::max(1, static_cast<int>(image.rows * scale))),
        0, 0, cv::INTER_AREA);
    image = scaled;
  }
  return image;
}

StatusOr<std::string> JpegDataUri(const cv::Mat& image, const std::string& path) {
  std::vector<unsigned char> bytes;
  if (!cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, 85})) {
    return InvalidInputError(path + ": cannot be encoded as JPEG");
  }
  return "data:image/jpeg;base64," + Base64(bytes);
}

}  // namespace

StatusOr<std::string> ThumbnailDataUri(const std::string& path, int max_side) {
  TS_ASSIGN_OR_RETURN(cv::Mat image, ReadScaled(path, max_side));
  return JpegDataUri(image, path);
}

StatusOr<std::string> DrawBoxesDataUri(const std::string& path, const std::vector<DrawnBox>& boxes, int max_side) {
  TS_ASSIGN_OR_RETURN(cv::Mat image, ReadScaled(path, max_side));
  const int w = image.cols, h = image.rows;
  // Ground truth first, detections over it.
  std::vector<const DrawnBox*> order;
  for (const DrawnBox& b : boxes) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(), [](const DrawnBox* a, const DrawnBox* b) {
    const bool ta = a->kind == DrawnBox::kTruth || a->kind == DrawnBox::kMissedTruth;
    const bool tb = b->kind == DrawnBox::kTruth || b->kind == DrawnBox::kMissedTruth;
    return ta && !tb;
  });
  for (const DrawnBox* b : order) {
    cv::Scalar color;  // BGR
    int thickness = 2;
    switch (b->kind) {
      case DrawnBox::kTruth:
        color = cv::Scalar(75, 157, 42);
        break;
      case DrawnBox::kMissedTruth:
        color = cv::Scalar(0, 200, 255);
        thickness = 3;
        break;
      case DrawnBox::kHit:
        color = cv::Scalar(168, 120, 76);
        break;
      case DrawnBox::kFalsePositive:
        color = cv::Scalar(91, 73, 209);
        break;
    }
    const cv::Point p0(static_cast<int>(std::clamp(b->xmin, 0.0f, 1.0f) * w),
                       static_cast<int>(std::clamp(b->ymin, 0.0f, 1.0f) * h));
    const cv::Point p1(static_cast<int>(std::clamp(b->xmax, 0.0f, 1.0f) * w),
                       static_cast<int>(std::clamp(b->ymax, 0.0f, 1.0f) * h));
    cv::rectangle(image, p0, p1, color, thickness, cv::LINE_AA);
    if (b->label.empty()) continue;
    int baseline = 0;
    const double font_scale = 0.42;
    const cv::Size size = cv::getTextSize(b->label, cv::FONT_HERSHEY_SIMPLEX, font_scale, 1, &baseline);
    const bool below = b->kind == DrawnBox::kTruth || b->kind == DrawnBox::kMissedTruth;
    int y = below ? std::min(p1.y + size.height + 4, h - 2) : std::max(p0.y - 3, size.height + 2);
    const int x = std::min(std::max(p0.x, 0), std::max(0, w - size.width - 2));
    cv::rectangle(image, cv::Point(x, y - size.height - 3), cv::Point(x + size.width + 2, y + baseline - 1), color,
                  cv::FILLED);
    cv::putText(image, b->label, cv::Point(x + 1, y - 1), cv::FONT_HERSHEY_SIMPLEX, font_scale,
                cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
  }
  return JpegDataUri(image, path);
}

#else

StatusOr<std::string> ThumbnailDataUri(const std::string& path, int) {
  return ExecutionError(path + ": no picture, this build has no OpenCV");
}

StatusOr<std::string> DrawBoxesDataUri(const std::string& path, const std::vector<DrawnBox>&, int) {
  return ExecutionError(path + ": no picture, this build has no OpenCV");
}

#endif  // TOUCHSTONE_NO_OPENCV

std::string Base64(const std::vector<unsigned char>& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = bytes[i] << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace touchstone
