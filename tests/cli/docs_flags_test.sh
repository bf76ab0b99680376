#!/usr/bin/env bash
# Every flag each tool's --help lists is documented on the page docs/tools.md names for it: the tool's
# own page (its table "The tools and their pages"), or, for a flag under a shared --help heading
# (delegate providers, isolation, the flag file, ...), the heading's page (the second table). A flag is
# on a page where the page writes it as code (`name`, `name=...`) or as --name. Arguments: the tools.
set -uo pipefail
source "$TEST_SRCDIR/touchstone/tests/cli/lib.sh"

for tool in "$@"; do
  "$R/tools/$tool/$tool" --help >"$TMP/$tool.help" 2>&1
  check "$tool --help exits 0" test $? -eq 0
done

python3 - "$R" "$TMP" "$@" >"$TMP/check.txt" <<'PY'
import os, re, sys
root, tmp, tools = sys.argv[1], sys.argv[2], sys.argv[3:]
index = open(os.path.join(root, "docs/tools.md")).read()
pages, groups = {}, []
for name, page in re.findall(r"^\| `([^`]+)`[^|]* \| (docs/[a-z_0-9-]+\.md) \|$", index, re.M):
    if name[0].isupper():
        groups.append((name, page))
    else:
        pages[name] = page
groups.sort(key=lambda g: -len(g[0]))  # the longest heading prefix first
for tool in sorted(set(pages) - set(tools)):
    print("FAIL: docs/tools.md names %s, which is not a tool here" % tool)
texts = {}
def documented(name, page):
    if page not in texts:
        path = os.path.join(root, page)
        texts[page] = open(path).read() if os.path.exists(path) else None
    text = texts[page]
    return text is not None and re.search(r"(`|--)" + re.escape(name) + r"(?![A-Za-z0-9_])", text)
for tool in tools:
    if tool not in pages:
        print("FAIL: %s has no page in docs/tools.md's table" % tool)
        continue
    heading, count, missing = None, 0, []
    for line in open(os.path.join(tmp, tool + ".help")):
        if not line.startswith(" ") and line.rstrip().endswith(":"):
            heading = line.rstrip()[:-1]
            continue
        m = re.match(r"  --([A-Za-z0-9_]+)", line)
        if not m:
            continue
        page = next((p for prefix, p in groups if heading.startswith(prefix)), pages[tool])
        count += 1
        if not documented(m.group(1), page):
            missing.append("--%s (%s)" % (m.group(1), page))
    if missing:
        print("FAIL: %s: %d of its %d flags are not on their pages: %s" % (tool, len(missing), count, ", ".join(missing)))
    elif count == 0:
        print("FAIL: %s: --help lists no flags" % tool)
    else:
        print("ok: %s: its %d flags are on their pages" % (tool, count))
PY
cat "$TMP/check.txt"
failures=$((failures + $(grep -c '^FAIL' "$TMP/check.txt")))
finish "docs_flags_test"
