"""The Financial Connections test-bank page in a real Chromium, as the mobile SDKs' web flow opens
it (docs/api.md, "Financial Connections"): the merchant's
server makes a setup intent for us_bank_account; the app, with the publishable key and the intent's
client secret, creates its link account session and synchronizes it as stripe-android does
(`mobile[application_id]`), then opens `hosted_auth_url` (with the `&launched_by=...` the SDK
appends). The person picks an account (or types one) and presses Link, or Cancel; the page answers
with a result page ("Account linked" / "Linking cancelled") whose one way back is a link the person
taps, to the manifest's `success_url` / `cancel_url`, `stripe-auth://link-accounts/<app id>/...`,
which the SDK's browser hands back to the app; the app then reads `session_receipt`. A link, not a
redirect: Android's Custom Tabs open an app's scheme only from a gesture. The page is a real page:
no script, usable by keyboard alone and at phone width.

Chromium has no handler for `stripe-auth:`, so it cannot load those URLs: the tests see the
navigation start in the DevTools events (conftest's `DevTools.navigation_to` says why that way)."""
import json
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import WAIT, fresh_tab

APP_ID = "com.example.purse"
SUCCESS_URL = f"stripe-auth://link-accounts/{APP_ID}/success"
CANCEL_URL = f"stripe-auth://link-accounts/{APP_ID}/cancel"
SDK_QUERY = "&launched_by=android_sdk&email=jenny%40example.com"  # what stripe-android appends

ROUTING_NUMBER = "110000000"  # the test processor's bank
BAD_ROUTING_NUMBER = "110000001"  # nine digits, fails the ABA checksum
ACCOUNT_NUMBER = "000123456789"
TEST_BANK = "STRIPE TEST BANK"  # the test processor's name for routing 110000000, as on the payment method
ROUTING_BANK = "STRIPE TEST BANK"  # the test processor's name for 110000000's bank

# The page's controls (contract §4): the radio buttons, the manual-entry fields, the buttons.
OPTIONS = ["checking", "savings", "closed", "no_account", "manual"]
FIELDS = [f"account-{option}" for option in OPTIONS] + ["routing_number", "account_number", "account_type"]
BUTTONS = ["link", "cancel"]
RETURN_TEXT = "Return to the app"  # the result page's one link, `<a id="return">`
PHONE = (360, 740)  # a small phone's window, CSS pixels
SETTLE = 1.0  # seconds on the result page, for anything that would leave it by itself (a refresh, say)


class BankSession:
    """A link account session of a customer's setup intent, synchronized for the app."""

    def __init__(self, intent, session, manifest):
        self.intent = intent
        self.session = session
        self.manifest = manifest

    @property
    def page_url(self):
        return self.manifest["hosted_auth_url"] + SDK_QUERY


def post(stripe_client, path, **params):
    return json.loads(stripe_client.raw_request("post", path, **params).body)


def get(stripe_client, path, **params):
    return json.loads(stripe_client.raw_request("get", path, **params).body)


@pytest.fixture
def bank(client, publishable):
    customer = client.v1.customers.create(params={"name": "Jenny Rosen", "email": "jenny@example.com"}).id
    intent = client.v1.setup_intents.create(params={"customer": customer, "payment_method_types": ["us_bank_account"]})
    session = post(
        publishable, f"/v1/setup_intents/{intent.id}/link_account_sessions",
        client_secret=intent.client_secret,
        payment_method_data={
            "type": "us_bank_account", "billing_details": {"name": "Jenny Rosen", "email": "jenny@example.com"},
        },
        hosted_surface="customer_sheet", link_mode="LINK_DISABLED",
    )
    assert session["status"] == "pending"
    assert session["account_holder"] == {"type": "customer", "customer": customer}
    synchronized = post(
        publishable, "/v1/financial_connections/sessions/synchronize",
        client_secret=session["client_secret"], mobile={"application_id": APP_ID, "fullscreen": "true"},
    )
    manifest = synchronized["manifest"]
    assert manifest["id"] == session["id"]
    assert (manifest["success_url"], manifest["cancel_url"]) == (SUCCESS_URL, CANCEL_URL)
    assert "?" in manifest["hosted_auth_url"]
    return BankSession(intent, session, manifest)


def receipt(publishable, bank):
    """What the SDK reads once the browser is back: `session_receipt`."""
    return get(publishable, "/v1/link_account_sessions/session_receipt", client_secret=bank.session["client_secret"])


def open_page(browser, devtools, bank):
    """Opens the page as the SDK's browser does, in a new tab (see conftest's `fresh_tab`); the
    response (`status`, `headers`)."""
    fresh_tab(browser)
    devtools.clear()
    browser.get(bank.page_url)
    return devtools.document_response()


def choose(browser, option):
    """Picks an account by clicking its label, as a person does."""
    browser.find_element(By.CSS_SELECTOR, f"label[for='account-{option}']").click()
    assert browser.find_element(By.ID, f"account-{option}").is_selected()


def type_account(browser, routing, account, kind):
    choose(browser, "manual")
    for field, value in [("routing_number", routing), ("account_number", account)]:
        element = browser.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    Select(browser.find_element(By.ID, "account_type")).select_by_value(kind)


def press(browser, devtools, button_id):
    """Clicks a button, the page's form POSTs: what follows is the test's."""
    devtools.clear()
    browser.find_element(By.ID, button_id).click()


def lower_keys(headers):
    return {name.lower(): value for name, value in headers.items()}


def csp_directives(headers):
    """The Content-Security-Policy header as {directive: [values]}."""
    return {
        directive.split()[0]: directive.split()[1:]
        for directive in (part.strip() for part in lower_keys(headers)["content-security-policy"].split(";"))
        if directive
    }


def page_links(browser):
    """Every link of the page: [id, href as written (entities decoded), text]."""
    return browser.execute_script(
        "return [...document.querySelectorAll('a[href], area[href]')]"
        ".map(e => [e.id, e.getAttribute('href'), e.textContent.trim()])"
    )


def assert_result_page(browser, devtools, heading, url):
    """After Link or Cancel: the POST's answer is the result page (200, HTML, no redirect) saying
    `heading`, with no form and exactly one link, the way back to the app: `#return` to `url`. The
    browser stays there: no refresh, and no navigation to the app's scheme (only the person's tap
    may start one). Returns the result page's response."""
    response = devtools.document_response()
    headers = lower_keys(response["headers"])
    assert response["status"] == 200, f"the page answered {response['status']} (Location {headers.get('location')!r})"
    assert "location" not in headers
    assert headers["content-type"].startswith("text/html")
    WebDriverWait(browser, WAIT).until(expected_conditions.presence_of_element_located((By.ID, "return")))
    WebDriverWait(browser, WAIT).until(lambda driver: driver.execute_script("return document.readyState") == "complete")
    assert browser.find_element(By.TAG_NAME, "h1").text.strip() == heading
    assert_no_form(browser)
    assert page_links(browser) == [["return", url, RETURN_TEXT]]
    link = browser.find_element(By.ID, "return")
    assert link.tag_name == "a" and link.is_displayed()
    refresh = browser.execute_script(
        "return [...document.querySelectorAll('meta[http-equiv]')].map(m => m.httpEquiv.toLowerCase())"
        ".filter(name => name === 'refresh')"
    )
    assert refresh == [], "the result page refreshes by itself"
    assert "refresh" not in headers
    time.sleep(SETTLE)
    assert devtools.navigations_to("stripe-auth:") == [], "the browser left for the app before the link was activated"
    return response


def tap_return(browser, devtools, url, keyboard=False):
    """The person activates the result page's link back to the app: a click, or (`keyboard`) Tab
    to it and Enter. Nothing went to the app's scheme before; the navigation to `url` then starts,
    from that gesture."""
    assert devtools.navigations_to("stripe-auth:") == [], "the browser left for the app before the link was activated"
    if keyboard:
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
        for _ in range(10):
            if browser.switch_to.active_element.get_attribute("id") == "return":
                break
            browser.switch_to.active_element.send_keys(Keys.TAB)
        assert browser.switch_to.active_element.get_attribute("id") == "return", "Tab never reaches #return"
        assert devtools.navigations_to("stripe-auth:") == [], "focusing the link went to the app"
        browser.switch_to.active_element.send_keys(Keys.ENTER)
    else:
        browser.find_element(By.ID, "return").click()
    assert_sent_to(devtools, url)


def assert_sent_to(devtools, url):
    """The browser started the navigation to the app's `url` from the person's activating the
    result page's link: not a redirect, a user gesture, one navigation to the app's scheme."""
    navigation = devtools.navigation_to("stripe-auth:")
    assert navigation["request"]["url"] == url
    assert navigation.get("redirectResponse") is None, (
        f"the browser was redirected to the app's URL (by {navigation['redirectResponse'].get('status')}), "
        "not sent by the link")
    assert navigation.get("hasUserGesture") is True, "the navigation to the app's URL carries no user gesture"
    assert [each["request"]["url"] for each in devtools.navigations_to("stripe-auth:")] == [url]


def visible_lines(browser):
    return {line.strip() for line in browser.find_element(By.TAG_NAME, "body").text.splitlines() if line.strip()}


def assert_no_form(browser):
    assert browser.find_elements(By.ID, "link") == [] and browser.find_elements(By.TAG_NAME, "form") == []


@pytest.mark.parametrize(
    "option, last4, subcategory",
    [("checking", "6789", "checking"), ("savings", "2227", "savings"), ("closed", "1113", None), ("no_account", "1116", None)],
)
def test_linking_an_account_ends_on_a_link_to_the_success_url(
    browser, devtools, publishable, bank, option, last4, subcategory
):
    assert open_page(browser, devtools, bank)["status"] == 200
    assert receipt(publishable, bank)["status"] == "pending"  # showing the page changes nothing
    choose(browser, option)
    press(browser, devtools, "link")
    assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    assert last4 in browser.find_element(By.TAG_NAME, "body").text
    assert receipt(publishable, bank)["status"] == "succeeded"  # the POST decided it, before any tap
    tap_return(browser, devtools, SUCCESS_URL)
    assert devtools.navigations_to(CANCEL_URL) == []

    linked = receipt(publishable, bank)
    assert (linked["id"], linked["status"], linked["status_details"]) == (bank.session["id"], "succeeded", None)
    account = linked["payment_account"]
    assert account["object"] == "financial_connections.account"
    assert account["id"].startswith("fca_")
    assert (account["last4"], account["institution_name"]) == (last4, TEST_BANK)
    assert account["supported_payment_method_types"] == ["us_bank_account"]
    if subcategory:
        assert account["subcategory"] == subcategory
    assert [each["id"] for each in linked["accounts"]["data"]] == [account["id"]]
    assert linked["accounts"]["has_more"] is False


def test_the_default_flow_links_checking_6789(browser, devtools, publishable, bank):
    """The brief's main path, spelled out: checking (••••6789) linked, the result page's link taken
    back to the app, the receipt says so, and the page, opened again, is the same result page (its
    link still to success_url) and changes nothing more."""
    open_page(browser, devtools, bank)
    assert "6789" in browser.find_element(By.CSS_SELECTOR, "label[for='account-checking']").text
    choose(browser, "checking")
    press(browser, devtools, "link")
    assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    tap_return(browser, devtools, SUCCESS_URL)
    linked = receipt(publishable, bank)
    assert linked["status"] == "succeeded" and linked["payment_account"]["last4"] == "6789"

    assert open_page(browser, devtools, bank)["status"] == 200
    assert_no_form(browser)
    assert page_links(browser) == [["return", SUCCESS_URL, RETURN_TEXT]]
    assert "linked" in browser.find_element(By.TAG_NAME, "body").text.lower()
    time.sleep(SETTLE)
    assert devtools.navigations_to("stripe-auth:") == []
    assert receipt(publishable, bank) == linked


def test_manual_entry_links_the_typed_account(browser, devtools, publishable, bank):
    open_page(browser, devtools, bank)
    type_account(browser, ROUTING_NUMBER, ACCOUNT_NUMBER, "savings")
    press(browser, devtools, "link")
    assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    assert ACCOUNT_NUMBER not in browser.page_source
    tap_return(browser, devtools, SUCCESS_URL)

    linked = receipt(publishable, bank)
    assert linked["status"] == "succeeded"
    account = linked["payment_account"]
    assert account["object"] == "financial_connections.account"
    assert (account["last4"], account["subcategory"], account["institution_name"]) == ("6789", "savings", ROUTING_BANK)
    assert ACCOUNT_NUMBER not in json.dumps(linked)
    assert [each["id"] for each in linked["accounts"]["data"]] == [account["id"]]


def test_a_bad_routing_number_shows_the_error_and_changes_nothing(browser, devtools, publishable, bank):
    open_page(browser, devtools, bank)
    before = visible_lines(browser)
    type_account(browser, BAD_ROUTING_NUMBER, ACCOUNT_NUMBER, "checking")
    press(browser, devtools, "link")

    assert devtools.document_response()["status"] == 400
    WebDriverWait(browser, WAIT).until(expected_conditions.presence_of_element_located((By.ID, "link")))
    for control in FIELDS + BUTTONS:  # the same form again, to correct the number
        assert browser.find_element(By.ID, control)
    errors = [line for line in visible_lines(browser) - before if "routing" in line.lower()]
    assert errors, f"no visible error about the routing number; the page shows {sorted(visible_lines(browser))}"
    assert browser.find_elements(By.ID, "return") == [], "the form, shown again, offers a way back to the app"
    assert devtools.navigations_to("stripe-auth:") == []
    pending = receipt(publishable, bank)
    # payment_account is left out until an account is linked (stripe-ios reads null as an unknown account).
    assert (pending["status"], "payment_account" in pending, pending["accounts"]["data"]) == ("pending", False, [])

    # Corrected on the re-rendered page, it links.
    type_account(browser, ROUTING_NUMBER, ACCOUNT_NUMBER, "checking")
    press(browser, devtools, "link")
    assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    tap_return(browser, devtools, SUCCESS_URL)
    assert receipt(publishable, bank)["payment_account"]["last4"] == "6789"


def test_cancel_ends_on_a_link_to_the_cancel_url(browser, devtools, publishable, bank):
    open_page(browser, devtools, bank)
    choose(browser, "checking")  # chosen, then changed their mind
    press(browser, devtools, "cancel")
    assert_result_page(browser, devtools, "Linking cancelled", CANCEL_URL)
    tap_return(browser, devtools, CANCEL_URL)
    assert devtools.navigations_to(SUCCESS_URL) == []

    cancelled = receipt(publishable, bank)
    assert (cancelled["status"], cancelled["status_details"]) == ("cancelled", {"cancelled": {"reason": "other"}})
    assert ("payment_account" in cancelled, cancelled["accounts"]["data"]) == (False, [])

    assert open_page(browser, devtools, bank)["status"] == 200
    assert_no_form(browser)
    assert page_links(browser) == [["return", CANCEL_URL, RETURN_TEXT]]
    assert "cancel" in browser.find_element(By.TAG_NAME, "body").text.lower()
    assert receipt(publishable, bank)["status"] == "cancelled"


def assert_protected(response):
    """The headers every state of the page comes with: HTML, no script (CSP `default-src 'none'`,
    no `script-src`), no framing, the form posting only to the page itself (`form-action 'self'`:
    the way back to the app is a link, never a form's target nor a redirect after one, so no app
    scheme is there), no referrer, no caching."""
    headers = lower_keys(response["headers"])
    assert headers["content-type"].startswith("text/html")
    directives = csp_directives(response["headers"])
    assert directives["default-src"] == ["'none'"] and "script-src" not in directives
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["form-action"] == ["'self'"], f"form-action {directives['form-action']}"
    assert not [value for values in directives.values() for value in values if "stripe-auth" in value.lower()]
    assert headers["referrer-policy"] == "no-referrer"  # the URL carries the page's token
    assert headers["cache-control"] == "no-store"


def assert_no_script(browser):
    assert browser.execute_script("return document.scripts.length") == 0
    handlers = browser.execute_script(
        "return [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))"
        ".filter(name => name.startsWith('on'))"
    )
    assert handlers == []
    links = browser.execute_script("return [...document.querySelectorAll('[href],[action]')]"
                                   ".map(e => e.getAttribute('href') || e.getAttribute('action'))")
    assert not [link for link in links if link.strip().lower().startswith("javascript:")]
    ran = browser.execute_script(
        "const script = document.createElement('script');"
        "script.textContent = 'window.purseBankScriptRan = true';"
        "document.body.appendChild(script);"
        "return window.purseBankScriptRan === true;"
    )
    assert ran is False


def test_the_page_runs_no_script(browser, devtools, bank):
    """The form and the result page alike: no script, and a CSP whose form-action is the page
    itself only."""
    response = open_page(browser, devtools, bank)
    assert response["status"] == 200
    assert_protected(response)
    assert_no_script(browser)

    press(browser, devtools, "link")
    result = assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    assert_protected(result)
    assert_no_script(browser)
    tap_return(browser, devtools, SUCCESS_URL)


def test_every_control_is_labelled_and_reachable_by_keyboard(browser, devtools, publishable, bank):
    open_page(browser, devtools, bank)
    # Each field has a <label for=...> with text; each button has text.
    for control in FIELDS:
        element = browser.find_element(By.ID, control)
        labels = browser.find_elements(By.CSS_SELECTOR, f"label[for='{control}']")
        assert len(labels) == 1 and labels[0].text.strip(), f"#{control} has no label of its own"
        assert element.is_displayed() and element.is_enabled()
    unlabelled = browser.execute_script(
        "return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]"
        ".filter(e => !e.id || !document.querySelector(`label[for='${e.id}']`)).map(e => e.outerHTML)"
    )
    assert unlabelled == []
    assert [browser.find_element(By.ID, each).tag_name for each in BUTTONS] == ["button", "button"]
    assert browser.find_element(By.ID, "link").text.strip() and browser.find_element(By.ID, "cancel").text.strip()
    assert [browser.find_element(By.ID, each).get_attribute("name") for each in BUTTONS] == ["action", "action"]
    assert [browser.find_element(By.ID, each).get_attribute("value") for each in BUTTONS] == ["link", "cancel"]

    # Tab goes through the account choice (one stop for the radio group), the manual fields and the
    # buttons, in a bounded number of presses.
    reached = []
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    for _ in range(30):
        active = browser.switch_to.active_element
        reached.append(active.get_attribute("id") or active.tag_name)
        if reached[-1] == "cancel":
            break
        active.send_keys(Keys.TAB)
    assert any(each.startswith("account-") for each in reached), reached
    for control in ["routing_number", "account_number", "account_type", "link", "cancel"]:
        assert control in reached, f"Tab never reaches #{control}: {reached}"

    # Keyboard alone, on the page opened afresh: arrows pick savings in the radio group, Tab to
    # Link, Enter; then, on the result page, Tab to its link back to the app, Enter.
    open_page(browser, devtools, bank)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    for _ in range(30):
        if (browser.switch_to.active_element.get_attribute("name") or "") == "account":
            break
        browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("name") == "account"
    for _ in range(2 * len(OPTIONS)):
        if browser.find_element(By.ID, "account-savings").is_selected():
            break
        browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    assert browser.find_element(By.ID, "account-savings").is_selected()
    for _ in range(30):
        if browser.switch_to.active_element.get_attribute("id") == "link":
            break
        browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("id") == "link"
    devtools.clear()
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    tap_return(browser, devtools, SUCCESS_URL, keyboard=True)
    assert receipt(publishable, bank)["payment_account"]["last4"] == "2227"


@pytest.fixture
def phone(browser):
    """The browser's window at a small phone's size for the test, then as it was."""
    before = browser.get_window_size()
    browser.set_window_size(*PHONE)
    yield PHONE
    browser.set_window_size(before["width"], before["height"])


def assert_fits(browser, ids):
    """The page needs no horizontal scrolling (its width is the window's), and each of `ids` is
    shown, whole, within that width."""
    width = browser.execute_script("return window.innerWidth")
    assert width <= PHONE[0], f"the window is {width} px wide, not a phone's {PHONE[0]}"
    scroll_width = browser.execute_script("return document.documentElement.scrollWidth")
    assert scroll_width <= width, f"the page is {scroll_width} px wide in a {width} px window: it scrolls sideways"
    for each in ids:
        element = browser.find_element(By.ID, each)
        assert element.is_displayed(), f"#{each} is not shown"
        left, right, height = browser.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect(); return [r.left, r.right, r.height]",
            each,
        )
        assert 0 <= left and right <= width and height > 0, f"#{each} spans {left}..{right} px of {width}"


def test_the_page_fits_a_phone_and_its_return_link_can_be_tapped(browser, devtools, publishable, bank, phone):
    """At 360×740 the form's controls (the account choices' labels, the fields, both buttons) and
    then the result page's link back to the app are all shown within the window's width, with no
    horizontal scrolling; the link is tapped there like anywhere else."""
    assert open_page(browser, devtools, bank)["status"] == 200
    assert_fits(browser, FIELDS[len(OPTIONS):] + BUTTONS)
    labels = browser.find_elements(By.CSS_SELECTOR, "label[for^='account-']")
    assert len(labels) == len(OPTIONS)
    width = browser.execute_script("return window.innerWidth")
    for label in labels:
        assert label.is_displayed()
        left, right = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]",
                                             label)
        assert 0 <= left and right <= width, f"{label.text!r} spans {left}..{right} px of {width}"

    choose(browser, "savings")
    press(browser, devtools, "link")
    assert_result_page(browser, devtools, "Account linked", SUCCESS_URL)
    assert_fits(browser, ["return"])
    tap_return(browser, devtools, SUCCESS_URL)
    assert receipt(publishable, bank)["payment_account"]["last4"] == "2227"
