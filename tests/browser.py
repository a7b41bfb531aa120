"""A headless Chromium driven over the DevTools protocol through a pipe (``--remote-debugging-pipe``): the standard
library alone, no websocket and no browser download. The tests open a page, press keys and click buttons as a user
does (``Input.dispatchKeyEvent``, ``Input.dispatchMouseEvent``), read the page with ``Runtime.evaluate``, and
collect every console error and uncaught exception the page raises."""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from typing import Any

#: The flags every run uses: headless, nothing fetched from the network, a fresh profile given by the caller.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000", "--remote-debugging-pipe"]

#: Where the browser is looked for, in order (Debian's package first).
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

#: Seconds to wait for any one answer of the browser.
WAIT = 20.0


def find_chromium() -> str | None:
    """The Chromium (or Chrome) on the PATH, or None."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(Exception):
    """The browser answered a command with an error, or did not answer in time."""


class Browser:
    """One headless browser with one page (a tab), driven over the DevTools pipe."""

    def __init__(self, binary: str, profile: str) -> None:
        to_browser = os.pipe()  # the browser reads its commands on fd 3
        from_browser = os.pipe()  # and writes its answers and events on fd 4
        reads, writes = to_browser[0], from_browser[1]

        def plumb() -> None:  # in the child: the two pipe ends as fds 3 and 4 (above 10 first, so none clobbers)
            a, b = fcntl.fcntl(reads, fcntl.F_DUPFD, 10), fcntl.fcntl(writes, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=plumb)
        os.close(reads)
        os.close(writes)
        self.send_fd, self.receive_fd = to_browser[1], from_browser[0]
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        #: Console errors and uncaught exceptions of the page, as text.
        self.errors: list[str] = []
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.command(f"{domain}.enable", session=True)

    # -- the protocol ----------------------------------------------------------------------------------------

    def command(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command (to the page's session, or to the browser) and return its result."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.send_fd, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive(time.monotonic() + WAIT)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.receive_fd], [], [], left)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self.receive_fd, 1 << 16)
            if not chunk:
                raise BrowserError("the browser closed the pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if "method" in message:
            self._event(message)
        return message

    def _event(self, message: dict[str, Any]) -> None:
        self.events.append(message)
        method, params = message["method"], message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console." + params["type"] + ": " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append("uncaught: " + str(details.get("exception", {}).get("description", details)))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))

    def wait_for(self, method: str) -> dict[str, Any]:
        """The next event ``method`` of the page (one already received counts)."""
        deadline = time.monotonic() + WAIT
        while True:
            for k, event in enumerate(self.events):
                if event["method"] == method:
                    del self.events[: k + 1]
                    return event
            self._receive(deadline)

    # -- what a user does ------------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load ``url`` and wait until it has loaded."""
        self.events.clear()
        self.command("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page; BrowserError if it throws."""
        result = self.command("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str) -> None:
        """Press and release a key (``ArrowRight``, ``Home``, ``PageDown``...), as the keyboard does."""
        codes = {"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40, "Home": 36, "End": 35,
                 "PageUp": 33, "PageDown": 34}
        for kind in ("keyDown", "keyUp"):
            self.command("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key,
                         windowsVirtualKeyCode=codes[key], nativeVirtualKeyCode=codes[key])

    def click(self, selector: str) -> None:
        """Click the middle of the element ``selector`` with the mouse."""
        box = self.evaluate(f"(function () {{ var r = document.querySelector({json.dumps(selector)})"
                            ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.command("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left",
                         clickCount=1)

    def close(self) -> None:
        try:
            self.command("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.send_fd)
        os.close(self.receive_fd)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
