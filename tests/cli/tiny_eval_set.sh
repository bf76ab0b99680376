# Sourced by CLI tests: the tiny models of tests/common/tiny_models.h and a three-image set for them.
# Needs $R (the runfiles' touchstone folder).

# make_tiny_eval_set <dir>: classifier.tflite, detector.tflite, images/ (three 8x8 BMPs), labels.txt and
# model_labels.txt (imagenet_eval), gt.json and detector_labels.txt (coco_eval).
make_tiny_eval_set() {
  local dir="$1"
  "$R/tests/common/make_tiny_model" --kind=classifier --output="$dir/classifier.tflite" || return 1
  "$R/tests/common/make_tiny_model" --kind=detector --output="$dir/detector.tflite" || return 1
  mkdir -p "$dir/images"
  python3 - "$dir" <<'PY'
import json, struct, sys
root = sys.argv[1]
def bmp(path, w, h, seed):
    row = (w * 3 + 3) // 4 * 4
    data = bytearray()
    for y in range(h):
        data += bytearray((x * 7 + y * 13 + seed * 29) % 256 for x in range(w * 3)) + bytes(row - w * 3)
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    open(path, "wb").write(header + info + data)
for i in range(3):
    bmp("%s/images/i%d.bmp" % (root, i), 8, 8, i)
open(root + "/labels.txt", "w").write("c1\nc2\nc3\n")
open(root + "/model_labels.txt", "w").write("".join("c%d\n" % i for i in range(10)))
gt = {"images": [{"id": i + 1, "file_name": "i%d.bmp" % i, "width": 8, "height": 8} for i in range(3)],
      "annotations": [{"id": 10 + i, "image_id": i + 1, "category_id": 1, "bbox": [1, 1, 3, 3], "area": 9, "iscrowd": 0}
                      for i in range(3)],
      "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]}
json.dump(gt, open(root + "/gt.json", "w"))
open(root + "/detector_labels.txt", "w").write("???\na\nb\n")
PY
}

# tiny_args <tool> <dir>: the tool's flags for a small run on the set, one per line.
tiny_args() {
  local dir="$2"
  case "$1" in
    benchmark_model) printf '%s\n' --graph="$dir/classifier.tflite" --num_runs=2 --warmup_runs=1 --min_secs=0 \
                       --warmup_min_secs=0 ;;
    inference_diff) printf '%s\n' --model_file="$dir/classifier.tflite" --num_runs=2 ;;
    imagenet_eval) printf '%s\n' --model_file="$dir/classifier.tflite" --ground_truth_images_path="$dir/images" \
                     --ground_truth_labels="$dir/labels.txt" --model_output_labels="$dir/model_labels.txt" ;;
    coco_eval) printf '%s\n' --model_file="$dir/detector.tflite" --ground_truth_images_path="$dir/images" \
                 --ground_truth_json="$dir/gt.json" --model_output_labels="$dir/detector_labels.txt" ;;
  esac
}
