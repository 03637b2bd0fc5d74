"""Fixtures for the browser tests: the pages Purse serves to people's browsers (the 3D Secure page,
the Financial Connections test-bank page), opened in a real headless Chromium against a live
`purse serve`.

The server fixtures (`purse`, `account`, `client`) are the compatibility tests' own, from
Tests/compat/conftest.py, loaded here under the module name `compat_conftest`. Not by putting
Tests/compat on sys.path and importing `conftest`: pytest has already registered this very file as
the module `conftest` (both folders are rootless, so both conftests have that name), and an import
by that name would hand back this file, not the compat one. Loading the file by its path under a
name of its own gives the same fixtures, with no copy to keep in step and no change to Tests/compat.

Chromium is Debian's (/usr/bin/chromium, with its /usr/bin/chromedriver given to Selenium's
`Service`, so Selenium Manager never runs and nothing is downloaded). It reaches only loopback:
every host name but the loopback ones resolves to nothing, and whatever is not loopback goes to a
proxy on a closed loopback port (Chromium never proxies loopback), with its background services
(updates, safe browsing, metrics...) off."""
import http.server
import importlib.util
import json
import os
import pathlib
import queue
import shutil
import tempfile
import threading
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

_COMPAT_CONFTEST = pathlib.Path(__file__).resolve().parents[1] / "compat" / "conftest.py"
_spec = importlib.util.spec_from_file_location("compat_conftest", _COMPAT_CONFTEST)
compat = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compat)

# The compatibility tests' fixtures, used here as they are.
purse = compat.purse
account = compat.account
client = compat.client

CHROMIUM = os.environ.get("PURSE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PURSE_CHROMEDRIVER", "/usr/bin/chromedriver")

PAGE_LOAD_TIMEOUT = 30  # seconds: a page, or a form's POST and its redirect
SCRIPT_TIMEOUT = 10  # seconds: WebDriver's own scripts (reading the DOM), never the page's
WAIT = 15  # seconds: WebDriverWait in the tests


@pytest.fixture
def publishable(purse, account):
    """The app's StripeClient: the account's publishable key."""
    return purse.client(account["publishable_key"], max_network_retries=0)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session, quit at its end. Performance logging is on: the tests
    read the DevTools Network events from it (the status and headers of the documents Chromium
    loaded, the redirects it was asked to follow), which WebDriver itself does not report."""
    profile = tempfile.mkdtemp(prefix="browser-", dir=os.environ.get("PURSE_TEST_ROOT") or None)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in [
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        f"--user-data-dir={profile}", "--window-size=1024,900", "--lang=en-US",
        "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-default-apps",
        "--disable-sync", "--disable-background-networking", "--disable-component-update",
        "--disable-client-side-phishing-detection", "--disable-domain-reliability", "--no-pings",
        "--metrics-recording-only", "--safebrowsing-disable-auto-update", "--dns-prefetch-disable",
        "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
        # Loopback only: no name but localhost resolves, and anything else goes to a closed port.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]",
        "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1;localhost;[::1]",
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    options.page_load_strategy = "normal"
    service = Service(
        executable_path=CHROMEDRIVER,
        log_output=os.path.join(profile, "chromedriver.log"),
    )
    try:
        driver = webdriver.Chrome(service=service, options=options)
        try:
            driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT)
            driver.set_script_timeout(SCRIPT_TIMEOUT)
            driver.implicitly_wait(0)
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def devtools(browser):
    """The browser's DevTools events from the start of the test on, in a tab of the test's own."""
    fresh_tab(browser)
    recorder = DevTools(browser)
    recorder.clear()
    return recorder


def fresh_tab(driver):
    """Moves the driver to a new tab and closes the others. A tab that was sent to an app's own
    scheme (`stripe-auth://...`) is of no more use: Chromium asks whether to open the app with an
    external-protocol dialog that headless mode never shows nor answers (so nothing is launched),
    and while it is pending the tab ignores every click and key WebDriver sends."""
    old = driver.window_handles
    driver.switch_to.new_window("tab")
    new = driver.current_window_handle
    for handle in old:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(new)


class DevTools:
    """What Chromium's DevTools Network domain saw, read from WebDriver's performance log (which
    chromedriver fills from the DevTools events when `goog:loggingPrefs` asks for it, no extra
    connection needed). Reading the log drains it, so the events read are kept here."""

    def __init__(self, driver):
        self.driver = driver
        self.events = []

    def clear(self):
        """Forget everything so far: what follows is the test's."""
        self.driver.get_log("performance")
        self.driver.get_log("browser")
        self.events = []

    def read(self):
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            self.events.append((message["method"], message.get("params", {})))
        return self.events

    def wait_for(self, predicate, what, timeout=WAIT):
        """The params of the first event (so far, or within `timeout` seconds) for which
        `predicate(method, params)` holds; fails naming `what`, with the console's messages (where
        Chromium reports a navigation its Content-Security-Policy blocked)."""
        deadline = time.monotonic() + timeout
        while True:
            for method, params in self.read():
                if predicate(method, params):
                    return params
            if time.monotonic() > deadline:
                console = [entry["message"] for entry in self.driver.get_log("browser")]
                raise AssertionError(f"no {what} within {timeout} s; browser console: {console}")
            time.sleep(0.1)

    def navigation_to(self, prefix, timeout=WAIT):
        """The navigation Chromium started to a URL beginning with `prefix` (an app's own scheme,
        `stripe-auth://...`, which it has no handler for), as a `Network.requestWillBeSent` event:
        its `request.url`, and `redirectResponse` when a redirect led there.

        Why this way: a custom scheme cannot be loaded, so the browser's URL never changes and there
        is nothing to wait for in the page. What an app's web view intercepts (stripe-android's
        Custom Tab hands the URL to the app, stripe-ios's ASWebAuthenticationSession matches the
        scheme) is the browser *starting* that navigation, and Chromium announces exactly that with
        `requestWillBeSent` for the new URL, before it aborts the load (net::ERR_ABORTED): with the
        redirect that caused it (`redirectResponse`), if one did, and `hasUserGesture` when a
        person's click or key started it (a tapped link: what an Android Custom Tab needs before it
        opens an app's scheme). It does so only when the navigation is allowed: a redirect the
        page's CSP `form-action` forbids is blocked before this event (and reported on the console),
        so seeing the event also proves a real in-app browser would get there. Reading the
        performance log is passive and needs no DevTools event loop, unlike `Fetch.enable`
        interception, which would stall every request until a handler answered it."""
        return self.wait_for(
            lambda method, params: method == "Network.requestWillBeSent"
            and params.get("type") == "Document" and params["request"]["url"].startswith(prefix),
            f"navigation to {prefix}...", timeout,
        )

    def document_response(self, timeout=WAIT):
        """The response of the first document (page or form POST) Chromium received since `clear()`:
        its `status`, `url` and `headers`. A redirect's own response comes with the next request
        instead (``navigation_to``)."""
        return self.wait_for(
            lambda method, params: method == "Network.responseReceived" and params.get("type") == "Document",
            "document response", timeout,
        )["response"]

    def navigations_to(self, prefix):
        """Every navigation to a URL beginning with `prefix` seen so far (none expected, say)."""
        return [
            params for method, params in self.read()
            if method == "Network.requestWillBeSent" and params["request"]["url"].startswith(prefix)
        ]


@pytest.fixture
def return_server():
    """A tiny HTTP server on a free loopback port standing for the merchant's `return_url`: it
    answers every GET with a small page and notes the requests' paths."""
    server = ReturnServer()
    yield server
    server.close()


class ReturnServer:
    def __init__(self):
        self.requests = queue.Queue()
        requests = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = 10  # a client that stalls is dropped

            def do_GET(self):
                requests.put((self.command, self.path))
                body = b"<!doctype html><title>Back at the merchant</title><p>Back at the merchant."
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def url(self, path="/return"):
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def next_request(self, timeout=WAIT):
        """(method, path) of the next request it got, waiting at most `timeout` seconds."""
        try:
            return self.requests.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the return_url server got no request within {timeout} s") from None

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
