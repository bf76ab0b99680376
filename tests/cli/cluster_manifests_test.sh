#!/usr/bin/env bash
# docs/cluster.md's examples are the ones that work: the Kubernetes manifests parse (python3-yaml) as an
# Indexed Job whose completions are its --num_shards, with the completion index as --shard_index, and a
# merge Job; then the command lines they hold run here, on ../shared's imagenet_sample, as the pods would
# run them (pod i with JOB_COMPLETION_INDEX=i, from the folder the volume is mounted on); the Slurm
# scripts run as array tasks (SLURM_ARRAY_TASK_ID) and then the merge; GNU parallel's scripts run as
# they are (imagenet_eval, and coco_eval on the COCO fixture). Every merged report must equal a single
# run's, and its page must be written. docs/cluster.md must hold every file verbatim, and the Dockerfile
# must build every tool the examples call on Debian 12 with scripts/setup.sh.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"
DEPLOY="$R/deploy/cluster"
COMPARE="$R/tests/cli/compare_reports.py"

check "docs/cluster.md holds every example verbatim, and the Dockerfile builds what they call" python3 - "$R" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
doc = open(os.path.join(root, "docs/cluster.md")).read()
files = sorted(glob.glob(os.path.join(root, "deploy/cluster/*.yaml")) + glob.glob(os.path.join(root, "deploy/cluster/*.sbatch")) +
               glob.glob(os.path.join(root, "deploy/cluster/*.sh")))
assert len(files) == 6, files
for f in files:
    text = open(f).read()
    assert text.strip() in doc, "docs/cluster.md lacks " + os.path.basename(f)
docker = open(os.path.join(root, "Dockerfile")).read()
assert re.search(r"^FROM debian:12$", docker, re.M), "the image is not Debian 12"
assert "bash scripts/setup.sh" in docker
for tool in ("imagenet_eval", "coco_eval", "merge_reports", "report_view"):
    assert "//tools/" + tool in docker, tool + " is not built in the image"
    assert any(tool in open(f).read() for f in files), tool + " is not used"
PY

if ! shared_has -d data; then
  unavailable "CI=true but TOUCHSTONE_SHARED_DIR is not set" \
    "skip: the runs need ../shared (set TOUCHSTONE_SHARED_DIR)"
  finish "cluster_manifests_test"
fi
S="$TOUCHSTONE_SHARED_DIR"
for tool in imagenet_eval coco_eval merge_reports report_view; do PATH="$R/tools/$tool:$PATH"; done
export PATH

# The folder a pod, an array task or a parallel job works in: models/, data/ and an empty out/, as the
# volume or the shared filesystem holds them.
workdir() {
  local dir="$1"
  mkdir -p "$dir/models" "$dir/data" "$dir/out"
  ln -s "$S/models/classification/mobilenet_v1_0.25_128_quant.tflite" "$dir/models/model.tflite"
  ln -s "$S/data/imagenet_sample/images" "$dir/data/images"
  ln -s "$S/data/imagenet_sample/ground_truth_labels.txt" "$dir/data/ground_truth_labels.txt"
  ln -s "$S/data/labels/imagenet_labels_1001.txt" "$dir/data/labels.txt"
  ln -s "$S/models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite" "$dir/models/detector.tflite"
  ln -s "$S/data/coco/labelmap_91_with_background.txt" "$dir/data/detector_labels.txt"
  ln -s "$S/data/coco/val2017" "$dir/data/coco_images"
  ln -s "$S/data/coco/instances_shared.json" "$dir/data/instances.json"
}

# The pods' command lines, from the manifests as Kubernetes reads them.
python3 - "$DEPLOY" "$TMP/k8s" <<'PY' >"$TMP/k8s_parse.txt" 2>&1
import os, shlex, sys, yaml
deploy, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
shards = list(yaml.safe_load_all(open(os.path.join(deploy, "kubernetes-shards.yaml"))))
merge = list(yaml.safe_load_all(open(os.path.join(deploy, "kubernetes-merge.yaml"))))
assert len(shards) == 1 and len(merge) == 1
job = shards[0]
assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job", job["kind"]
spec = job["spec"]
assert spec["completionMode"] == "Indexed", "not an Indexed Job"
n = spec["completions"]
container = spec["template"]["spec"]["containers"][0]
assert container["image"] == "touchstone:latest"
env = {e["name"]: e for e in container.get("env", [])}
assert env["JOB_COMPLETION_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"] == \
    "metadata.annotations['batch.kubernetes.io/job-completion-index']", "the index does not come from the Job"
argv = container["command"] + container["args"]
assert "--num_shards=%d" % n in argv, "completions %d is not --num_shards" % n
assert "--shard_index=$(JOB_COMPLETION_INDEX)" in argv, "the completion index is not --shard_index"
workdir = container["workingDir"]
assert container["volumeMounts"][0]["mountPath"] == workdir, "the work folder is not the volume"
for i in range(n):
    # Kubernetes expands $(VAR) in command and args from the container's environment.
    pod = [a.replace("$(JOB_COMPLETION_INDEX)", str(i)) for a in argv]
    open(os.path.join(out, "pod-%d.sh" % i), "w").write(" ".join(shlex.quote(a) for a in pod) + "\n")
single = [a for a in argv if not a.startswith(("--num_shards=", "--shard_index=", "--output_file_path="))]
open(os.path.join(out, "single.sh"), "w").write(" ".join(shlex.quote(a) for a in single + ["--output_file_path=single.json"]) + "\n")
m = merge[0]
assert m["kind"] == "Job" and "completionMode" not in m["spec"]
mc = m["spec"]["template"]["spec"]["containers"][0]
assert mc["image"] == container["image"] and mc["workingDir"] == workdir
assert mc["volumeMounts"][0]["mountPath"] == workdir
open(os.path.join(out, "merge.sh"), "w").write(" ".join(shlex.quote(a) for a in mc["command"] + mc["args"]) + "\n")
print("pods:", n)
PY
check "the Kubernetes manifests parse as an Indexed Job and a merge Job ($(tail -1 "$TMP/k8s_parse.txt"))" \
  grep -q "^pods: 7$" "$TMP/k8s_parse.txt"

merged_equals_single() {  # merged_equals_single <engine> <work> <merged> <single>
  check "$1: the merged report equals the single run" python3 "$COMPARE" "$4" "$2/$3"
  check "$1: the merged report's page was written" test -s "$2/${3%.json}.html"
}

# Kubernetes: every pod at once, then the merge Job.
W="$TMP/kubernetes"; workdir "$W"
pids=()
for pod in "$TMP"/k8s/pod-*.sh; do (cd "$W" && bash "$pod") >"$pod.log" 2>&1 & pids+=($!); done
rc=0; for p in "${pids[@]}"; do wait "$p" || rc=1; done
check "kubernetes: 7 pods ran" test $rc -eq 0
(cd "$W" && bash "$TMP/k8s/merge.sh") >"$TMP/k8s_merge.log" 2>&1
check "kubernetes: the merge Job ran (exit $?)" test -s "$W/out/merged.json"
(cd "$W" && bash "$TMP/k8s/single.sh") >/dev/null 2>&1
merged_equals_single kubernetes "$W" out/merged.json "$W/single.json"

# Slurm: the array's tasks, then the merge it depends on.
W="$TMP/slurm"; workdir "$W"
ARRAY="$(sed -n 's/^#SBATCH --array=\([0-9]*\)-\([0-9]*\)$/\1 \2/p' "$DEPLOY/slurm-shards.sbatch")"
check "slurm: an array of 0-6 (${ARRAY:-none})" test "$ARRAY" = "0 6"
rc=0
for i in $(seq ${ARRAY:-0 0}); do (cd "$W" && SLURM_ARRAY_TASK_ID=$i bash "$DEPLOY/slurm-shards.sbatch") >/dev/null 2>&1 || rc=1; done
check "slurm: the array tasks ran" test $rc -eq 0
(cd "$W" && bash "$DEPLOY/slurm-merge.sbatch") >/dev/null 2>&1
check "slurm: the merge ran (exit $?)" test -s "$W/out/merged.json"
merged_equals_single slurm "$W" out/merged.json "$TMP/kubernetes/single.json"

# GNU parallel on one machine.
if command -v parallel >/dev/null; then
  W="$TMP/parallel"; workdir "$W"
  (cd "$W" && JOBS=2 bash "$DEPLOY/parallel-imagenet.sh") >"$TMP/parallel.log" 2>&1
  check "parallel: imagenet_eval shards and merge ran (exit $?)" test -s "$W/out/merged.json"
  merged_equals_single parallel "$W" out/merged.json "$TMP/kubernetes/single.json"
  (cd "$W" && JOBS=2 bash "$DEPLOY/parallel-coco.sh") >"$TMP/parallel_coco.log" 2>&1
  check "parallel: coco_eval shards and merge ran (exit $?; $(tail -1 "$TMP/parallel_coco.log"))" test -s "$W/out/coco-merged.json"
  (cd "$W" && coco_eval --model_file=models/detector.tflite --model_output_labels=data/detector_labels.txt \
     --ground_truth_images_path=data/coco_images --ground_truth_json=data/instances.json --num_interpreter_threads=1 \
     --output_file_path=coco-single.json) >/dev/null 2>&1
  merged_equals_single parallel-coco "$W" out/coco-merged.json "$W/coco-single.json"
else
  unavailable "CI=true but GNU parallel is not installed (scripts/setup.sh)" \
    "skip: GNU parallel not installed (scripts/setup.sh installs it)"
fi

finish "cluster_manifests_test"
