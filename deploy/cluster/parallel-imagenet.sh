#!/bin/bash
# imagenet_eval over 7 shards on one machine with GNU parallel, JOBS at a time (docs/cluster.md), then the
# merge and its page. Run from the folder that holds models/, data/ and out/.
set -euo pipefail
parallel --halt now,fail=1 -j "${JOBS:-2}" \
  imagenet_eval --model_file=models/model.tflite --ground_truth_images_path=data/images \
  --ground_truth_labels=data/ground_truth_labels.txt --model_output_labels=data/labels.txt \
  --num_interpreter_threads=1 --num_shards=7 --shard_index={} --output_file_path=out/shard-{}.json \
  ::: 0 1 2 3 4 5 6
merge_reports --output_file_path=out/merged.json out/shard-*.json
report_view out/merged.json --output=out/merged.html
