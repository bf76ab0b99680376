#!/usr/bin/env bash
# Bazel's --workspace_status_command (.bazelrc): the version every report carries, `git describe` of the
# checkout ("unknown" outside a git clone). Stamped only into tools/common:version.
version="$(git -c safe.directory='*' describe --always --dirty --tags 2>/dev/null || true)"
echo "STABLE_TOUCHSTONE_VERSION ${version:-unknown}"
