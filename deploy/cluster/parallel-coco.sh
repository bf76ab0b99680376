#!/bin/bash
# coco_eval over 3 shards on one machine with GNU parallel (docs/cluster.md): every shard lists its
# images' detections; the merge scores them all again against the ground truth, which it reads from where
# the shards name it (data/instances.json, from this folder).
set -euo pipefail
parallel --halt now,fail=1 -j "${JOBS:-2}" \
  coco_eval --model_file=models/detector.tflite --model_output_labels=data/detector_labels.txt \
  --ground_truth_images_path=data/coco_images --ground_truth_json=data/instances.json \
  --num_interpreter_threads=1 --num_shards=3 --shard_index={} --output_file_path=out/coco-shard-{}.json \
  ::: 0 1 2
merge_reports --output_file_path=out/coco-merged.json out/coco-shard-*.json
report_view out/coco-merged.json --output=out/coco-merged.html
