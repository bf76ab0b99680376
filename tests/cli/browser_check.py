#!/usr/bin/env python3
"""Renders HTML pages in one headless Chromium process and checks what they drew.

    browser_check.py SPEC.json OUT_DIR

SPEC.json: [{"page": "/abs/page.html", "name": "bench", "expect": [{"selector": "svg.chart", "min": 3}, ...]}, ...].
Each page is opened in its own tab of one Chromium (Debian's package; headless, no network, a fresh
profile), over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no library). For every
page it checks that each selector matches the expected number of elements ("equals", "min", "max"),
that every chart has a size on the page, that every image decoded, that the page made no request other
than for itself, and it keeps a screenshot of the whole page as OUT_DIR/<name>.png. Prints one line per
check ("ok: ..." or "FAIL: ...") and exits 1 on any failure."""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                  "--remote-debugging-pipe"]


class Browser:
    """Chromium driven over --remote-debugging-pipe: commands on its fd 3, replies and events on its fd 4,
    each message JSON ended by a NUL byte."""

    def __init__(self, profile, log):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()

        def wire():
            os.dup2(cmd_r, 3)
            os.dup2(res_w, 4)

        self.proc = subprocess.Popen(
            ["chromium"] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile, "about:blank"],
            preexec_fn=wire, pass_fds=(3, 4, cmd_r, res_w), stdout=log, stderr=log)
        os.close(cmd_r)
        os.close(res_w)
        self.next_id = 0
        self.buffer = b""
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.res_r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe (exit %s)" % self.proc.poll())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and e.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:  # it may close before answering
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# What a page reports about itself once loaded.
PROBE = """(() => {
  const charts = [...document.querySelectorAll('svg.chart')];
  const images = [...document.images];
  return JSON.stringify({
    charts: charts.map(c => ({id: c.dataset.chart, w: c.getBoundingClientRect().width, h: c.getBoundingClientRect().height})),
    images: images.length,
    broken_images: images.filter(i => !(i.complete && i.naturalWidth > 0)).length,
    resources: performance.getEntriesByType('resource').map(r => r.name),
    counts: Object.fromEntries(SELECTORS.map(s => [s, document.querySelectorAll(s).length])),
  });
})()"""


def main():
    spec_path, out_dir = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("ok: " if ok else "FAIL: ") + what)
        failures += 0 if ok else 1

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    with open(os.path.join(out_dir, "chromium.log"), "w") as log:
        browser = Browser(profile, log)
        try:
            for page in spec:
                name = page["name"]
                with open(page["page"], encoding="utf-8") as f:
                    html = f.read()
                # Nothing but the page itself: no URL a browser would fetch (the SVG namespace is a name).
                external = [w for w in ("http://", "https://", "//cdn") if w in html.replace("http://www.w3.org/2000/svg", "")]
                check(not external, "%s: the page names no URL to fetch %s" % (name, external or ""))
                target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
                session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
                browser.send("Page.enable", session=session)
                browser.send("Emulation.setDeviceMetricsOverride",
                             {"width": 1100, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session=session)
                browser.send("Page.navigate", {"url": "file://" + os.path.abspath(page["page"])}, session=session)
                browser.wait_event("Page.loadEventFired", session)
                selectors = [e["selector"] for e in page.get("expect", [])]
                probe = PROBE.replace("SELECTORS", json.dumps(selectors))
                result = browser.send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=session)
                seen = json.loads(result["result"]["value"])
                check(len(seen["charts"]) > 0 and all(c["w"] > 100 and c["h"] > 50 for c in seen["charts"]),
                      "%s: %d charts drawn with a size (%s)" % (name, len(seen["charts"]),
                                                               ", ".join(c["id"] for c in seen["charts"])))
                check(seen["broken_images"] == 0, "%s: %d images, every one decoded" % (name, seen["images"]))
                others = [r for r in seen["resources"] if not r.startswith("data:")]
                check(not others, "%s: no request beyond the page %s" % (name, others or ""))
                for e in page.get("expect", []):
                    n = seen["counts"][e["selector"]]
                    ok = (("equals" not in e or n == e["equals"]) and ("min" not in e or n >= e["min"]) and
                          ("max" not in e or n <= e["max"]))
                    bounds = " ".join("%s %s" % (k, e[k]) for k in ("equals", "min", "max") if k in e)
                    check(ok, "%s: '%s' matches %d (%s)" % (name, e["selector"], n, bounds))
                # The whole page in one screenshot.
                metrics = browser.send("Page.getLayoutMetrics", session=session)
                height = min(int(metrics["cssContentSize"]["height"]) + 16, 12000)
                browser.send("Emulation.setDeviceMetricsOverride",
                             {"width": 1100, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
                shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
                png = base64.b64decode(shot["data"])
                with open(os.path.join(out_dir, name + ".png"), "wb") as f:
                    f.write(png)
                check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000,
                      "%s: screenshot %s.png (%d bytes, 1100x%d)" % (name, name, len(png), height))
                browser.send("Target.closeTarget", {"targetId": target})
        finally:
            browser.close()
    print("browser_check: %d pages, %d failures" % (len(spec), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
