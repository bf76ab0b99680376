#!/usr/bin/env bash
# Bazel's --workspace_status_command (.bazelrc): the version every report carries, `git describe` of the
# checkout ("unknown" outside a git clone), or TOUCHSTONE_VERSION where set (the Dockerfile's build, which
# has no .git). Stamped only into tools/common:version.
version="${TOUCHSTONE_VERSION:-$(git -c safe.directory='*' describe --always --dirty --tags 2>/dev/null || true)}"
echo "STABLE_TOUCHSTONE_VERSION ${version:-unknown}"
