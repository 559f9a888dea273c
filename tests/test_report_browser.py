"""The HTML release report opened in a real browser: headless Chromium, network off.

Chromium is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages separated by NUL bytes on file descriptors 3 and 4), so the test needs
no websocket library and no port. It records every request the page makes, every
console message and uncaught exception, reads the DOM and takes a screenshot.

Without Chromium the test is skipped with the reason; under ``CI=true`` a missing
Chromium is a failure (``.ci/run`` installs Debian's ``chromium``). ``CHROMIUM``
names another binary.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import buddy_eval as be
from buddy_eval import _notebook_report as notebook_report

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_release.txt"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TIMEOUT = 90  # seconds for the whole browser session; the machine may be busy


def find_chromium() -> str | None:
    named = os.environ.get("CHROMIUM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    found = find_chromium()
    if found:
        return found
    reason = (
        "no Chromium found (looked for CHROMIUM, " + ", ".join(BROWSERS) + "); "
        "install it with `apt-get install -y chromium` (.ci/run does)"
    )
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail(f"CI=true: {reason}")
    pytest.skip(reason)


class DevTools:
    """A minimal DevTools-protocol client over Chromium's debugging pipe."""

    def __init__(self, binary: str, profile: Path):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            "--no-first-run",
            "--no-default-browser-check",
            "--mute-audio",
            "--hide-scrollbars",
            # network off: any name resolves nowhere, any connection goes to a dead proxy
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--window-size=1200,900",
            f"--user-data-dir={profile}",
            "--remote-debugging-pipe",
            "about:blank",
        ]

        def wire():  # the browser reads commands on fd 3 and writes replies on fd 4
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [binary, *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),  # kept open past the exec, once wire() has set them
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.deadline = time.monotonic() + TIMEOUT

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send("Browser.close", wait=False)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _read_message(self) -> dict:
        while b"\0" not in self._buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise ConnectionError("Chromium closed its debugging pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(
        self,
        method: str,
        params: dict | None = None,
        session: str | None = None,
        *,
        wait: bool = True,
    ) -> dict:
        self._next_id += 1
        command = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        os.write(self._to_browser, json.dumps(command).encode() + b"\0")
        if not wait:
            return {}
        while True:
            message = self._read_message()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str) -> dict:
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            message = self._read_message()
            self.events.append(message)
            if message.get("method") == method:
                return message


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    require_chromium()
    out = tmp_path_factory.mktemp("report") / "release_report.html"
    out.write_text(notebook_report.render_report(str(SAMPLE)), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def browser_session(report_file, tmp_path_factory):
    """Open the report; return what the page did: requests, console, DOM facts, screenshot."""
    binary = require_chromium()
    tools = DevTools(binary, tmp_path_factory.mktemp("chromium-profile"))
    try:
        target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            tools.send(f"{domain}.enable", session=session)
        tools.send(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            session=session,
        )
        tools.send("Page.navigate", {"url": report_file.as_uri()}, session=session)
        tools.wait_for("Page.loadEventFired")
        facts = tools.send(
            "Runtime.evaluate",
            {
                "expression": """(() => {
                    const banner = document.querySelector("header.banner");
                    const box = banner ? banner.getBoundingClientRect() : null;
                    const style = banner ? getComputedStyle(banner) : null;
                    return JSON.stringify({
                        bannerText: banner ? banner.innerText : null,
                        bannerClass: banner ? banner.className : null,
                        bannerVisible: !!box && box.height > 0 && box.top < innerHeight
                            && style.visibility === "visible" && style.display !== "none",
                        bannerBackground: style ? style.backgroundColor : null,
                        text: document.body.textContent,
                        scripts: document.scripts.length,
                        images: Array.from(document.images).map(i => [
                            i.src.slice(0, 22), i.complete && i.naturalWidth > 0]),
                    });
                })()""",
                "returnByValue": True,
            },
            session=session,
        )["result"]["value"]
        shot = tools.send("Page.captureScreenshot", {"format": "png"}, session=session)
        # let late events (console messages, requests) arrive
        tools.send("Runtime.evaluate", {"expression": "1"}, session=session)
        events = list(tools.events)
    finally:
        tools.close()
    return {
        "facts": json.loads(facts),
        "screenshot": base64.b64decode(shot["data"]),
        "events": events,
        "url": report_file.as_uri(),
    }


def test_no_request_leaves_the_page(browser_session):
    requests = [
        e["params"]["request"]["url"]
        for e in browser_session["events"]
        if e.get("method") == "Network.requestWillBeSent"
    ]
    outside = [
        url for url in requests if url != browser_session["url"] and not url.startswith("data:")
    ]
    assert outside == []
    failed = [e for e in browser_session["events"] if e.get("method") == "Network.loadingFailed"]
    assert failed == []


def test_no_console_error(browser_session):
    events = browser_session["events"]
    exceptions = [e for e in events if e.get("method") == "Runtime.exceptionThrown"]
    console = [
        e["params"]
        for e in events
        if e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error"
    ]
    logged = [
        e["params"]["entry"]
        for e in events
        if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error"
    ]
    assert exceptions == [] and console == [] and logged == []


def test_banner_shows_the_verdict(browser_session):
    facts = browser_session["facts"]
    ev = be.evaluate(SAMPLE)
    assert facts["bannerVisible"]
    assert facts["bannerClass"] == "banner block"
    assert facts["bannerBackground"] == "rgb(253, 236, 234)"  # the red banner
    text = facts["bannerText"]
    assert "BLOCK" in text
    for reason in ev.decision.reasons:
        assert reason in text
    assert "sample_release.txt" in text
    assert be.__version__ in text
    assert facts["scripts"] == 0


def test_every_item_id_is_in_the_page(browser_session):
    text = browser_session["facts"]["text"]
    ids = be.load(SAMPLE).golden["item_id"].tolist()
    assert [i for i in ids if i not in text] == []
    assert be.evaluate(SAMPLE).decision.verdict in text


def test_charts_load_from_the_page_itself(browser_session):
    images = browser_session["facts"]["images"]
    assert len(images) >= 4
    assert all(src.startswith("data:image/png;base64") and loaded for src, loaded in images)


def test_screenshot_is_not_blank(browser_session):
    from PIL import Image

    image = Image.open(io.BytesIO(browser_session["screenshot"])).convert("RGB")
    assert image.size[0] >= 800 and image.size[1] >= 600
    colours = image.getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 10  # text, banner and background at least
