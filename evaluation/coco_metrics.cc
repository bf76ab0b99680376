#include "evaluation/coco_metrics.h"

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <numeric>
#include <set>

namespace touchstone {
namespace {

// numpy.linspace(start, stop, num) as pycocotools builds its thresholds.
std::vector<double> Linspace(double start, double stop, int num) {
  std::vector<double> values(static_cast<size_t>(num));
  const double step = (stop - start) / (num - 1);
  for (int i = 0; i < num; ++i) values[i] = i * step + start;
  values[num - 1] = stop;
  return values;
}

// pycocotools' bbox IoU: crowd ground truth divides by the detection's area alone.
double BoxIou(const CocoBox& d, const CocoBox& g) {
  const double iw = std::min(d.x + d.w, g.x + g.w) - std::max(d.x, g.x);
  if (iw <= 0) return 0.0;
  const double ih = std::min(d.y + d.h, g.y + g.h) - std::max(d.y, g.y);
  if (ih <= 0) return 0.0;
  const double inter = iw * ih;
  const double union_area = g.iscrowd ? d.w * d.h : d.w * d.h + g.w * g.h - inter;
  return inter / union_area;
}

struct AreaRange {
  double lo, hi;
};
const AreaRange kAreaRanges[4] = {{0, 1e10}, {0, 32.0 * 32.0}, {32.0 * 32.0, 96.0 * 96.0}, {96.0 * 96.0, 1e10}};
const int kMaxDets[3] = {1, 10, 100};

// evaluateImg's output for one (image, category, area range) at the largest maxDet.
struct ImageEval {
  bool valid = false;
  std::vector<double> dt_scores;              // sorted descending, at most 100
  std::vector<std::vector<bool>> dt_matched;  // [threshold][detection]
  std::vector<std::vector<bool>> dt_ignore;   // [threshold][detection]
  int num_gt_not_ignored = 0;
};

ImageEval EvaluateImage(std::vector<const CocoBox*> gts, std::vector<const CocoBox*> dts, const AreaRange& range,
                        int max_det, const std::vector<double>& thresholds) {
  ImageEval e;
  if (gts.empty() && dts.empty()) return e;
  e.valid = true;
  std::vector<bool> gt_ignore_flags(gts.size());
  for (size_t g = 0; g < gts.size(); ++g) {
    gt_ignore_flags[g] = gts[g]->iscrowd || gts[g]->area < range.lo || gts[g]->area > range.hi;
  }
  // Ground truth: not-ignored first (stable, as numpy's mergesort argsort).
  std::vector<size_t> gorder(gts.size());
  std::iota(gorder.begin(), gorder.end(), 0);
  std::stable_sort(gorder.begin(), gorder.end(),
                   [&](size_t a, size_t b) { return gt_ignore_flags[a] < gt_ignore_flags[b]; });
  std::vector<const CocoBox*> g_sorted;
  std::vector<bool> g_ignore;
  for (size_t i : gorder) {
    g_sorted.push_back(gts[i]);
    g_ignore.push_back(gt_ignore_flags[i]);
  }
  // Detections: by score descending (stable), at most max_det.
  std::stable_sort(dts.begin(), dts.end(), [](const CocoBox* a, const CocoBox* b) { return a->score > b->score; });
  if (dts.size() > static_cast<size_t>(max_det)) dts.resize(static_cast<size_t>(max_det));

  const size_t T = thresholds.size(), D = dts.size(), G = g_sorted.size();
  e.dt_matched.assign(T, std::vector<bool>(D, false));
  e.dt_ignore.assign(T, std::vector<bool>(D, false));
  std::vector<std::vector<double>> ious(D, std::vector<double>(G));
  for (size_t d = 0; d < D; ++d) {
    for (size_t g = 0; g < G; ++g) ious[d][g] = BoxIou(*dts[d], *g_sorted[g]);
  }
  for (size_t t = 0; t < T; ++t) {
    std::vector<bool> gt_matched(G, false);
    for (size_t d = 0; d < D; ++d) {
      double best = std::min(thresholds[t], 1 - 1e-10);
      long m = -1;
      for (size_t g = 0; g < G; ++g) {
        if (gt_matched[g] && !g_sorted[g]->iscrowd) continue;  // already matched, and not a crowd
        if (m > -1 && !g_ignore[m] && g_ignore[g]) break;      // on to ignored gt: keep the real match
        if (ious[d][g] < best) continue;
        best = ious[d][g];
        m = static_cast<long>(g);
      }
      if (m == -1) continue;
      e.dt_ignore[t][d] = g_ignore[m];
      e.dt_matched[t][d] = true;
      gt_matched[m] = true;
    }
  }
  // Unmatched detections outside the area range are ignored.
  for (size_t d = 0; d < D; ++d) {
    const double area = dts[d]->area;
    const bool outside = area < range.lo || area > range.hi;
    for (size_t t = 0; t < T; ++t) {
      if (!e.dt_matched[t][d] && outside) e.dt_ignore[t][d] = true;
    }
  }
  for (size_t d = 0; d < D; ++d) e.dt_scores.push_back(dts[d]->score);
  for (bool ig : g_ignore) e.num_gt_not_ignored += ig ? 0 : 1;
  return e;
}

}  // namespace

const char* CocoMetrics::Label(int i) {
  static const char* kLabels[12] = {"Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]",
                                    "Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ]",
                                    "Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ]",
                                    "Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ]",
                                    "Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ]",
                                    "Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=100 ]",
                                    "Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ]",
                                    "Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ]",
                                    "Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]",
                                    "Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ]",
                                    "Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ]",
                                    "Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ]"};
  return kLabels[i];
}

CocoMetrics EvaluateCoco(const std::vector<CocoBox>& ground_truth, const std::vector<CocoBox>& detections,
                         std::vector<int64_t> image_ids, std::vector<int64_t> category_ids) {
  std::sort(image_ids.begin(), image_ids.end());
  std::sort(category_ids.begin(), category_ids.end());
  const std::vector<double> thresholds = Linspace(0.5, 0.95, 10);
  const std::vector<double> recall_points = Linspace(0.0, 1.0, 101);
  const size_t T = thresholds.size(), R = recall_points.size(), K = category_ids.size();

  std::map<std::pair<int64_t, int64_t>, std::vector<const CocoBox*>> gts, dts;
  for (const CocoBox& g : ground_truth) gts[{g.image_id, g.category_id}].push_back(&g);
  for (const CocoBox& d : detections) dts[{d.image_id, d.category_id}].push_back(&d);

  // precision[t][r][k][a][m], recall[t][k][a][m]; -1 where undefined.
  auto idx_p = [&](size_t t, size_t r, size_t k, size_t a, size_t m) {
    return (((t * R + r) * K + k) * 4 + a) * 3 + m;
  };
  auto idx_r = [&](size_t t, size_t k, size_t a, size_t m) { return ((t * K + k) * 4 + a) * 3 + m; };
  std::vector<double> precision(T * R * K * 4 * 3, -1.0), recall(T * K * 4 * 3, -1.0);

  for (size_t k = 0; k < K; ++k) {
    for (size_t a = 0; a < 4; ++a) {
      // evaluateImg runs at the largest maxDet; smaller caps take the first detections of each image.
      std::vector<ImageEval> evals;
      for (int64_t image : image_ids) {
        const auto key = std::make_pair(image, category_ids[k]);
        const auto g = gts.find(key);
        const auto d = dts.find(key);
        ImageEval e = EvaluateImage(g == gts.end() ? std::vector<const CocoBox*>() : g->second,
                                    d == dts.end() ? std::vector<const CocoBox*>() : d->second, kAreaRanges[a],
                                    kMaxDets[2], thresholds);
        if (e.valid) evals.push_back(std::move(e));
      }
      if (evals.empty()) continue;
      for (size_t m = 0; m < 3; ++m) {
        const size_t cap = static_cast<size_t>(kMaxDets[m]);
        struct Entry {
          double score;
          size_t image;
          size_t det;
        };
        std::vector<Entry> entries;
        int npig = 0;
        for (size_t i = 0; i < evals.size(); ++i) {
          for (size_t d = 0; d < std::min(cap, evals[i].dt_scores.size()); ++d)
            entries.push_back({evals[i].dt_scores[d], i, d});
          npig += evals[i].num_gt_not_ignored;
        }
        if (npig == 0) continue;
        // np.argsort(-scores, kind='mergesort'): stable.
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry& x, const Entry& y) { return x.score > y.score; });
        for (size_t t = 0; t < T; ++t) {
          std::vector<double> rc, pr;
          double tp = 0, fp = 0;
          for (const Entry& en : entries) {
            const bool ignore = evals[en.image].dt_ignore[t][en.det];
            const bool matched = evals[en.image].dt_matched[t][en.det];
            if (ignore) {
              // Counted in neither, but the cumulative arrays still get an entry (as numpy's cumsum).
            } else if (matched) {
              tp += 1;
            } else {
              fp += 1;
            }
            rc.push_back(tp / npig);
            pr.push_back(tp / (fp + tp + 2.220446049250313e-16));
          }
          recall[idx_r(t, k, a, m)] = rc.empty() ? 0.0 : rc.back();
          for (size_t i = pr.size(); i-- > 1;) {
            if (pr[i] > pr[i - 1]) pr[i - 1] = pr[i];
          }
          for (size_t r = 0; r < R; ++r) {
            // np.searchsorted(rc, recall_point, side='left')
            const size_t pi =
                static_cast<size_t>(std::lower_bound(rc.begin(), rc.end(), recall_points[r]) - rc.begin());
            precision[idx_p(t, r, k, a, m)] = pi < pr.size() ? pr[pi] : 0.0;
          }
        }
      }
    }
  }

  auto summarize = [&](bool ap, int threshold_index, size_t a, size_t m) {
    double sum = 0;
    int count = 0;
    for (size_t t = 0; t < T; ++t) {
      if (threshold_index >= 0 && static_cast<int>(t) != threshold_index) continue;
      for (size_t k = 0; k < K; ++k) {
        if (ap) {
          for (size_t r = 0; r < R; ++r) {
            const double v = precision[idx_p(t, r, k, a, m)];
            if (v > -1) sum += v, ++count;
          }
        } else {
          const double v = recall[idx_r(t, k, a, m)];
          if (v > -1) sum += v, ++count;
        }
      }
    }
    return count == 0 ? -1.0 : sum / count;
  };
  CocoMetrics metrics;
  for (size_t k = 0; k < K; ++k) {
    double sum = 0;
    int count = 0;
    for (size_t t = 0; t < T; ++t) {
      for (size_t r = 0; r < R; ++r) {
        const double v = precision[idx_p(t, r, k, 0, 2)];
        if (v > -1) sum += v, ++count;
      }
    }
    metrics.category_ap.emplace_back(category_ids[k], count == 0 ? -1.0 : sum / count);
  }
  for (size_t t = 0; t < T; ++t) {
    std::vector<double> curve(R, -1.0);
    for (size_t r = 0; r < R; ++r) {
      double sum = 0;
      int count = 0;
      for (size_t k = 0; k < K; ++k) {
        const double v = precision[idx_p(t, r, k, 0, 2)];
        if (v > -1) sum += v, ++count;
      }
      if (count > 0) curve[r] = sum / count;
    }
    metrics.pr_curves.push_back(curve);
  }
  metrics.values = {summarize(true, -1, 0, 2),  summarize(true, 0, 0, 2),   summarize(true, 5, 0, 2),
                    summarize(true, -1, 1, 2),  summarize(true, -1, 2, 2),  summarize(true, -1, 3, 2),
                    summarize(false, -1, 0, 0), summarize(false, -1, 0, 1), summarize(false, -1, 0, 2),
                    summarize(false, -1, 1, 2), summarize(false, -1, 2, 2), summarize(false, -1, 3, 2)};
  return metrics;
}

namespace {

struct TfliteDetection {
  TfliteBox box;
  int image;
};

float Length(float lo, float hi) { return std::max(0.f, hi - lo); }
float BoxArea(const TfliteBox& b) { return Length(b.xmin, b.xmax) * Length(b.ymin, b.ymax); }
float Intersection(const TfliteBox& a, const TfliteBox& b) {
  return Length(std::max(a.xmin, b.xmin), std::min(a.xmax, b.xmax)) *
         Length(std::max(a.ymin, b.ymin), std::min(a.ymax, b.ymax));
}
// TFLite's Box2D::IoU, in float, with `a` the prediction.
float Iou(const TfliteBox& a, const TfliteBox& b) {
  const float total = BoxArea(a) + BoxArea(b) - Intersection(a, b);
  return total > 0 ? Intersection(a, b) / total : 0.0f;
}

float FromPrCurve(const std::vector<std::pair<float, float>>& pr, int num_recall_points) {
  // pr holds (precision, recall) in recall order; p(r) = max precision at recall >= r.
  float p = 0, sum = 0;
  int r_level = num_recall_points;
  for (int i = static_cast<int>(pr.size()) - 1; i >= 0; --i) {
    while (pr[i].second * num_recall_points < r_level) {
      sum += p;
      r_level -= 1;
    }
    p = std::max(p, pr[i].first);
  }
  for (; r_level >= 0; --r_level) sum += p;
  return sum / (1 + num_recall_points);
}

float AveragePrecisionFromBoxes(const std::vector<TfliteDetection>& groundtruth,
                                const std::vector<TfliteDetection>& predictions, float iou_threshold) {
  std::map<int, std::list<TfliteBox>> gt;
  int num_gt = 0;
  for (const TfliteDetection& g : groundtruth) {
    gt[g.image].push_back(g.box);
    ++num_gt;
  }
  std::vector<TfliteDetection> pd = predictions;
  // std::sort, not stable: TFLite's order for tied scores is libstdc++'s, which this reproduces
  // given the same input order.
  std::sort(pd.begin(), pd.end(),
            [](const TfliteDetection& a, const TfliteDetection& b) { return a.box.score > b.box.score; });
  std::vector<std::pair<float, float>> pr;
  int correct = 0, num_pd = 0;
  for (const TfliteDetection& b : pd) {
    std::list<TfliteBox>& g = gt[b.image];
    auto best = g.end();
    float best_iou = -INFINITY;
    for (auto it = g.begin(); it != g.end(); ++it) {
      const float iou = Iou(b.box, *it);
      if (iou > best_iou) {
        best = it;
        best_iou = iou;
      }
    }
    if (best != g.end() && best_iou >= iou_threshold) {
      ++correct;
      ++num_pd;
      g.erase(best);
    } else {
      ++num_pd;
    }
    pr.emplace_back(static_cast<float>(correct) / num_pd, static_cast<float>(correct) / num_gt);
  }
  return FromPrCurve(pr, 100);
}

}  // namespace

TfliteBox NormalizedBox(const CocoBox& box, const CocoImage& image) {
  TfliteBox b;
  b.ymin = static_cast<float>(box.y / image.height);
  b.xmin = static_cast<float>(box.x / image.width);
  b.ymax = static_cast<float>((box.y + box.h) / image.height);
  b.xmax = static_cast<float>((box.x + box.w) / image.width);
  b.class_id = static_cast<int>(box.category_id);
  b.score = static_cast<float>(box.score);
  return b;
}

TfliteApResult EvaluateTfliteAp(const std::vector<std::vector<TfliteBox>>& ground_truth,
                                const std::vector<std::vector<TfliteBox>>& detections) {
  std::map<int, std::vector<TfliteDetection>> gt_by_class, pd_by_class;
  for (size_t i = 0; i < ground_truth.size(); ++i) {
    for (const TfliteBox& b : ground_truth[i]) gt_by_class[b.class_id].push_back({b, static_cast<int>(i)});
  }
  for (size_t i = 0; i < detections.size(); ++i) {
    for (const TfliteBox& b : detections[i]) pd_by_class[b.class_id].push_back({b, static_cast<int>(i)});
  }
  std::set<int> classes;
  for (const auto& e : gt_by_class) classes.insert(e.first);
  for (const auto& e : pd_by_class) classes.insert(e.first);

  TfliteApResult result;
  std::map<int, float> class_sum;
  float ap_sum = 0;
  int num_total_aps = 0;
  const float start = 0.5;
  for (int i = 0; i < 10; ++i) {
    const float threshold = static_cast<float>(start + i * 0.05);  // float + double, stored as float
    float threshold_sum = 0;
    int counted = 0;
    for (int c : classes) {
      float ap = 0.0f;
      auto g = gt_by_class.find(c);
      if (g != gt_by_class.end() && !g->second.empty()) {
        auto p = pd_by_class.find(c);
        ap = AveragePrecisionFromBoxes(g->second, p == pd_by_class.end() ? std::vector<TfliteDetection>() : p->second,
                                       threshold);
      }
      ap_sum += ap;
      class_sum[c] += ap;
      ++num_total_aps;
      threshold_sum += ap;
      ++counted;
    }
    if (counted == 0) continue;
    result.iou_thresholds.push_back(threshold);
    result.average_precision.push_back(threshold_sum / counted);
  }
  result.overall_map = num_total_aps == 0 ? 0.0f : ap_sum / num_total_aps;
  for (const auto& c : class_sum) {
    result.class_ap.emplace_back(c.first, c.second / static_cast<float>(result.iou_thresholds.size()));
  }
  return result;
}

}  // namespace touchstone
