#!/usr/bin/python3
"""Screenshots a local HTML file with headless Chromium, the whole page: standard library only.

Usage: screenshot.py [--chromium PATH] [--width CSS_PX] [--timeout S] [--dark] HTML PNG

Chromium's own --screenshot flag shoots a fixed --window-size, so this drives the browser over
the DevTools protocol instead, on a pipe (--remote-debugging-pipe: commands on fd 3, replies on
fd 4, each a JSON message ended by a NUL byte; no port, no JavaScript tooling):
  1. a viewport WIDTH x 100 CSS px at device scale 1, light colour scheme (--dark: dark), screen
     media; load file://HTML and wait for its load event;
  2. read the laid-out page size (Page.getLayoutMetrics: cssContentSize, at least the viewport);
  3. resize the viewport to that size and capture it as PNG: one image of the whole page, its
     height the content's, its width WIDTH (or the content's, if the page overflows).
The browser runs with a fresh profile in a temporary directory (also its HOME), sees only the
fonts of Debian's fonts-dejavu-core (its own fontconfig file), and has no sandbox (root in a
container), no GPU, no extensions, no network (every host name resolves to nothing, every request
goes to a proxy on the closed port 127.0.0.1:9). It is killed (its whole process group) on any
exit, SIGTERM from an outer `timeout` included; killed outright, it leaves a browser that exits on
its own once the pipe closes.
Prints "WxH" on success; on failure one line "screenshot: ..." on stdout and exit 1.
"""

import argparse
import base64
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MAX_HEIGHT = 16384  # Chromium refuses larger captures; a report that tall is a bug anyway.
# The only fonts the browser sees: Debian's fonts-dejavu-core, whatever else the machine has (a
# fonts-dejavu-extra, say, would turn synthetic obliques into real ones and change the pixels).
FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
         "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"]
FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{dir}</dir>
  <cachedir>{cache}</cachedir>
  <selectfont>
    <acceptfont>{accept}</acceptfont>
    <rejectfont><glob>*</glob></rejectfont>
  </selectfont>
  <include ignore_missing="yes">/etc/fonts/conf.d</include>
</fontconfig>
"""


class Failure(Exception):
    pass


def default_chromium():
    # Debian's real binary: /usr/bin/chromium is a shell wrapper that adds extension flags.
    for path in ("/usr/lib/chromium/chromium", shutil.which("chromium") or "",
                 shutil.which("chromium-browser") or ""):
        if path and os.access(path, os.X_OK):
            return path
    return None


class Browser:
    def __init__(self, chromium, profile, deadline):
        self.deadline = deadline
        self.next_id = 0
        self.buf = b""
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        self.log = open(os.path.join(profile, "chromium.log"), "wb")

        def child_fds():
            # Through fresh descriptors first, so neither end lands on the other's number.
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--force-device-scale-factor=1", "--force-color-profile=srgb",
                "--disable-dev-shm-usage", "--disable-extensions", "--disable-component-update",
                "--disable-background-networking", "--disable-sync", "--disable-default-apps",
                "--no-first-run", "--no-default-browser-check", "--mute-audio", "--lang=en-US",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
                "--proxy-bypass-list=<-loopback>", "--user-data-dir=" + profile,
                "--remote-debugging-pipe", "about:blank"]
        fonts_conf = os.path.join(profile, "fonts.conf")
        with open(fonts_conf, "w") as f:
            f.write(FONTS_CONF.format(
                dir=FONT_DIR, cache=os.path.join(profile, "fontconfig"),
                accept="".join(f"<glob>{FONT_DIR}/{name}</glob>" for name in FONTS)))
        # Crashpad and dconf write under HOME whatever --user-data-dir says: keep them in the
        # profile too.
        env = dict(os.environ, HOME=profile, TMPDIR=profile, FONTCONFIG_FILE=fonts_conf,
                   XDG_CONFIG_HOME=os.path.join(profile, ".config"),
                   XDG_CACHE_HOME=os.path.join(profile, ".cache"))
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, pass_fds=(3, 4), preexec_fn=child_fds,
                                     start_new_session=True, env=env)
        os.close(to_r)
        os.close(from_w)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def wait_for(self, what, pred):
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                msg = json.loads(raw)
                if pred(msg):
                    return msg
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"timed out waiting for {what}")
            ready, _, _ = select.select([self.from_r], [], [], left)
            if ready:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise Failure(f"chromium exited while waiting for {what}{self.last_log()}")
                self.buf += chunk

    def call(self, method, params=None, session=None):
        i = self.send(method, params, session)
        msg = self.wait_for(method, lambda m: m.get("id") == i)
        if "error" in msg:
            raise Failure(f"{method}: {msg['error'].get('message', msg['error'])}")
        return msg["result"]

    def last_log(self):
        try:
            with open(self.log.name, "rb") as f:
                lines = [ln for ln in f.read().decode("utf-8", "replace").splitlines()
                         if ln.strip() and "dbus" not in ln]
        except OSError:
            return ""
        return f" ({lines[-1].strip()})" if lines else ""

    def close(self):
        try:
            if self.proc.poll() is None:
                self.send("Browser.close")
                self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # renderer, zygote, ... whatever is left
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for fd in (self.to_w, self.from_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()


def shoot(chromium, html, png, width, timeout, dark):
    url = "file://" + os.path.abspath(html)
    if not os.path.isfile(html):
        raise Failure(f"no such file: {html}")
    missing = [name for name in FONTS if not os.path.isfile(os.path.join(FONT_DIR, name))]
    if missing:
        raise Failure(f"no {FONT_DIR}/{missing[0]}: apt-get install fonts-dejavu-core")
    profile = tempfile.mkdtemp(prefix="rightsize-chromium-")
    browser = None
    try:
        browser = Browser(chromium, profile, time.monotonic() + timeout)
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        s = attached["sessionId"]
        browser.call("Page.enable", session=s)
        metrics = {"width": width, "height": 100, "deviceScaleFactor": 1, "mobile": False}
        browser.call("Emulation.setDeviceMetricsOverride", metrics, session=s)
        browser.call("Emulation.setEmulatedMedia", {
            "media": "screen",
            "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"},
                         {"name": "prefers-reduced-motion", "value": "reduce"}]}, session=s)
        nav = browser.call("Page.navigate", {"url": url}, session=s)
        if nav.get("errorText"):
            raise Failure(f"loading {url}: {nav['errorText']}")
        browser.wait_for("the page's load event", lambda m: m.get("method") == "Page.loadEventFired"
                         and m.get("sessionId") == s)
        size = browser.call("Page.getLayoutMetrics", session=s)["cssContentSize"]
        w = max(width, int(size["width"] + 0.999))
        h = int(size["height"] + 0.999)
        if h > MAX_HEIGHT:
            raise Failure(f"page is {h} px tall (more than {MAX_HEIGHT})")
        metrics.update(width=w, height=h)
        browser.call("Emulation.setDeviceMetricsOverride", metrics, session=s)
        shot = browser.call("Page.captureScreenshot", {
            "format": "png", "fromSurface": True,
            "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}, session=s)
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return w, h
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="Screenshot a local HTML file, the whole page.")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM") or default_chromium())
    ap.add_argument("--width", type=int, default=1200, help="viewport width in CSS px")
    ap.add_argument("--timeout", type=float, default=60, help="seconds for the whole run")
    ap.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    ap.add_argument("html")
    ap.add_argument("png")
    a = ap.parse_args()
    if not a.chromium:
        print("screenshot: no chromium found (apt-get install chromium)")
        return 1

    def on_term(signum, _frame):
        raise Failure(f"killed by signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    try:
        w, h = shoot(a.chromium, a.html, a.png, a.width, a.timeout, a.dark)
    except (Failure, OSError, ValueError, KeyError) as e:
        print(f"screenshot: {a.html}: {e}")
        return 1
    print(f"{w}x{h}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
