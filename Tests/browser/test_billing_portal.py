"""The customer portal's pages (issue 33) in a real headless Chromium: the merchant's server makes
a portal session for a customer through stripe-python 16.1.0
(`StripeClient.v1.billing_portal.sessions.create`, POST /v1/billing_portal/sessions, with
`flow_data[type]=payment_method_update` and `flow_data[after_completion]` for the flows) and sends
the customer to its `url`, where they add cards (3D Secure and declines as the API has them), make
one the default, remove one, and go back to the merchant, by mouse or by keyboard alone, in English
or French. What the pages did is then read through the API (`StripeClient.v1.customers.retrieve`,
`.v1.customers.payment_methods.list`, `.v1.payment_methods.retrieve`, and GET /v1/elements/sessions
through `StripeClient.raw_request` with a customer session from
`StripeClient.v1.customer_sessions.create`, as the mobile sheets read the default).

The ids, texts and URLs asserted are the pages' (docs/portal.md; `U` is the session's url): the list
`#payment-methods` of `li.payment-method[data-payment-method]`, `#default-badge`, the forms posting
to `U/payment_methods/{pm}/default` and `/remove`, `#add-payment-method`, `#return-link`,
`#notice`, the add form `#add-form` with `card_number`, `card_expiry`, `card_cvc`, `make_default`
and `#save`, `#form-error` (role=alert), `U?done=added|default|removed` and `U/done`.

Accessibility is checked with axe-core as axe-selenium-python 2.1.6 ships it (axe-core 3.1.1, read
from the installed package and injected with WebDriver's execute_script, as the package's own
`Axe.inject` does); the pages' screenshots at phone and desktop sizes are taken for docs/images/
(written there with PURSE_UPDATE_SCREENSHOTS=1). Everything stays on loopback: the merchant's return URLs are conftest's
`return_server`."""
import base64
import contextlib
import importlib.resources
import os
import pathlib
import struct
import tempfile

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import SCRIPT_TIMEOUT, WAIT
from test_authentication_page import open_page

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
# The docs' screenshots are rewritten only when asked (`PURSE_UPDATE_SCREENSHOTS=1`), so a test
# run leaves the tree as it was; otherwise they go to the run's own folder.
IMAGES = (REPOSITORY / "docs" / "images" if os.environ.get("PURSE_UPDATE_SCREENSHOTS") == "1"
          else pathlib.Path(os.environ.get("PURSE_TEST_ROOT", tempfile.gettempdir())) / "screenshots")

VISA = "4242424242424242"
MASTERCARD = "5555555555554444"
THREE_D_SECURE = "4000002500003155"  # authentication required on setup
DECLINED = "4000000000000002"  # generic decline
EXPIRY = "12 / 34"  # the form's "MM / YY"
CVC = "123"
# The add form's billing fields, each filled only where the account's sheet settings put it on the form.
BILLING = {
    "billing_name": "Jenny Rosen", "billing_email": "jenny@example.com", "billing_phone": "+14155550100",
    "billing_line1": "1 Main St", "billing_city": "San Francisco", "billing_state": "CA",
    "billing_postal_code": "94107", "billing_country": "US",
}
PHONE = (390, 844)  # CSS pixels
DESKTOP = (1280, 900)
SERIOUS = ("serious", "critical")
MESSAGE = "Thanks, Jenny: your new card is saved."


# Helpers


def new_customer(client):
    return client.v1.customers.create(params={"email": "jenny@example.com", "name": "Jenny Rosen"}).id


def create_session(client, customer, **params):
    """What the merchant's server does when the customer asks to manage their payment methods."""
    return client.v1.billing_portal.sessions.create(params={"customer": customer, **params})


def saved_card(client, customer, number):
    """A card the customer saved earlier (expiring 12/34, so the pages look the same every year)."""
    method = client.v1.payment_methods.create(params={
        "type": "card", "card": {"number": number, "exp_month": 12, "exp_year": 2034, "cvc": CVC},
    })
    return client.v1.payment_methods.attach(method.id, params={"customer": customer}).id


def set_default(client, customer, method):
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": method}})


def default_of(client, customer):
    return client.v1.customers.retrieve(customer).invoice_settings.default_payment_method


def attached(client, customer):
    return client.v1.customers.payment_methods.list(customer).data


def sheet_default(client, publishable, customer):
    """The default a mobile sheet is given: GET /v1/elements/sessions with a customer session's
    client secret, as stripe-ios's CustomerSheet sends it (test_customer_sessions.py's way)."""
    session = client.v1.customer_sessions.create(params={
        "customer": customer, "components": {"customer_sheet": {"enabled": True}},
    })
    response = publishable.raw_request(
        "get", "/v1/elements/sessions", locale="en-US", customer_session_client_secret=session.client_secret,
        type="deferred_intent", deferred_intent={"mode": "setup", "payment_method_types": ["card"]},
    )
    return publishable.deserialize(response, api_mode="V1").customer.default_payment_method


def present(browser, css):
    return WebDriverWait(browser, WAIT).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css)), f"no {css} within {WAIT} s"
    )


def wait_for_url(browser, url):
    try:
        WebDriverWait(browser, WAIT).until(lambda driver: driver.current_url == url)
    except TimeoutException:
        alerts = [element.text for element in browser.find_elements(By.CSS_SELECTOR, "[role='alert']")]
        where = browser.current_url
        raise AssertionError(f"the browser is at {where}, not {url}, after {WAIT} s; alerts: {alerts}") from None


def heading(browser):
    return browser.find_element(By.TAG_NAME, "h1").text.strip()


def listed(browser):
    """The methods the page lists: {pm id: its <li>}, in the page's order."""
    return {
        item.get_attribute("data-payment-method"): item
        for item in browser.find_elements(By.CSS_SELECTOR, "#payment-methods li.payment-method")
    }


def badge_owner(browser):
    """The method whose list item holds the Default badge."""
    badge = browser.find_element(By.ID, "default-badge")
    assert badge.text.strip() == "Default"
    return badge.find_element(By.XPATH, "./ancestor::li[@data-payment-method][1]").get_attribute("data-payment-method")


def action_button(item, action):
    """The button of a list item's form posting to `.../{pm}/{action}`, or None."""
    buttons = item.find_elements(By.XPATH, f".//form[contains(@action, '/{action}')]//button")
    return buttons[0] if buttons else None


def show_card_form(browser):
    """The add form for a card: the page as it is when it has one, else its card type choice followed."""
    if not browser.find_elements(By.ID, "card_number"):
        choices = [
            link for link in browser.find_elements(By.CSS_SELECTOR, "a.type-choice")
            if "type=card" in (link.get_attribute("href") or "")
        ]
        assert choices, "the add page has neither card fields nor a card choice"
        choices[0].click()
        present(browser, "#card_number")


def fill_billing(browser):
    for field, value in BILLING.items():
        for element in browser.find_elements(By.ID, field):
            if element.tag_name == "select":
                Select(element).select_by_value(value)
            else:
                element.clear()
                element.send_keys(value)


def fill_card(browser, number, expiry=EXPIRY, cvc=CVC):
    show_card_form(browser)
    for field, value in (("card_number", number), ("card_expiry", expiry), ("card_cvc", cvc)):
        element = browser.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    fill_billing(browser)


def save(browser, devtools):
    """Presses Save: what follows is the test's."""
    devtools.clear()
    browser.find_element(By.ID, "save").click()


def press(browser, devtools, button):
    devtools.clear()
    button.click()


def authentication_button(browser, text):
    """A button of the 3D Secure page the portal sent the browser to."""
    return WebDriverWait(browser, WAIT).until(
        lambda driver: driver.find_elements(By.XPATH, f"//button[normalize-space()='{text}']"),
        f"no '{text}' button within {WAIT} s",
    )[0]


def card_fields_are_empty(browser):
    values = [browser.find_element(By.ID, field).get_attribute("value") for field in ("card_number", "card_cvc")]
    return values == ["", ""]


@contextlib.contextmanager
def window(browser, size):
    """The browser's window at `size` (CSS pixels), then as it was."""
    before = browser.get_window_size()
    browser.set_window_size(*size)
    try:
        yield
    finally:
        browser.set_window_size(before["width"], before["height"])


def portal_with_two_cards(client, **params):
    """A customer with a Visa (the default) and a Mastercard, and a portal session with a way back."""
    customer = new_customer(client)
    visa = saved_card(client, customer, VISA)
    saved_card(client, customer, MASTERCARD)
    set_default(client, customer, visa)
    return customer, create_session(client, customer, return_url="https://merchant.example/account", **params)


# The payment-methods page and the add form


def test_adding_a_card_lists_it_as_the_default(client, browser, devtools):
    customer = new_customer(client)
    session = create_session(client, customer)
    assert open_page(browser, devtools, session.url)["status"] == 200
    assert heading(browser) == "Payment methods"
    assert browser.find_element(By.ID, "no-payment-methods").is_displayed()
    assert listed(browser) == {}

    browser.find_element(By.ID, "add-payment-method").click()
    present(browser, "#add-form")
    fill_card(browser, VISA)
    assert browser.find_element(By.ID, "make_default").is_selected()  # the customer has no default yet
    save(browser, devtools)
    hop = devtools.navigation_to(session.url + "?done=added")
    assert hop.get("redirectResponse", {}).get("status") == 303
    wait_for_url(browser, session.url + "?done=added")
    assert present(browser, "#notice").text.strip() == "Payment method added."

    (method,) = attached(client, customer)
    assert (method.card.last4, method.card.exp_month, method.card.exp_year) == ("4242", 12, 2034)
    items = listed(browser)
    assert list(items) == [method.id]
    assert "•••• 4242" in items[method.id].text and "Expires 12/34" in items[method.id].text
    assert badge_owner(browser) == method.id
    assert default_of(client, customer) == method.id
    assert VISA not in browser.page_source


def test_a_3d_secure_card_is_saved_after_completing_authentication(purse, client, browser, devtools):
    customer = new_customer(client)
    session = create_session(client, customer)
    open_page(browser, devtools, session.url + "/add?type=card")
    fill_card(browser, THREE_D_SECURE)
    save(browser, devtools)
    hop = devtools.navigation_to(purse.base + "/v1/setup_intents/")
    assert hop.get("redirectResponse", {}).get("status") == 303
    assert "/authenticate/" in hop["request"]["url"]
    complete = authentication_button(browser, "Complete authentication")
    assert "3155" in browser.find_element(By.TAG_NAME, "body").text
    assert attached(client, customer) == []  # nothing is saved before the customer authenticates

    press(browser, devtools, complete)
    wait_for_url(browser, session.url + "?done=added")
    assert present(browser, "#notice").text.strip() == "Payment method added."
    (method,) = attached(client, customer)
    assert method.card.last4 == "3155"
    assert list(listed(browser)) == [method.id] and "•••• 3155" in listed(browser)[method.id].text
    assert badge_owner(browser) == method.id and default_of(client, customer) == method.id


def test_failing_3d_secure_shows_the_add_form_again_with_an_error(client, browser, devtools):
    customer = new_customer(client)
    session = create_session(client, customer)
    open_page(browser, devtools, session.url + "/add?type=card")
    fill_card(browser, THREE_D_SECURE)
    save(browser, devtools)
    press(browser, devtools, authentication_button(browser, "Fail authentication"))

    present(browser, "#add-form")
    alert = present(browser, "[role='alert']")
    assert alert.text.strip(), "the add form came back without saying why"
    assert browser.current_url.startswith(session.url)
    assert card_fields_are_empty(browser)
    assert attached(client, customer) == []
    assert default_of(client, customer) is None


def test_a_declined_card_shows_why_and_saves_nothing(client, browser, devtools):
    customer = new_customer(client)
    session = create_session(client, customer)
    open_page(browser, devtools, session.url + "/add?type=card")
    fill_card(browser, DECLINED)
    save(browser, devtools)

    assert devtools.document_response()["status"] == 402
    error = present(browser, "#form-error")
    assert error.get_attribute("role") == "alert" and "error" in error.get_attribute("class").split()
    assert error.text.strip() == "Your card was declined."
    assert card_fields_are_empty(browser)  # typed again, never echoed back
    assert DECLINED not in browser.page_source
    assert attached(client, customer) == []

    # The form shown again works.
    fill_card(browser, VISA)
    save(browser, devtools)
    wait_for_url(browser, session.url + "?done=added")
    assert [method.card.last4 for method in attached(client, customer)] == ["4242"]


def test_make_default_moves_the_badge_and_the_customers_default(client, publishable, browser, devtools):
    customer = new_customer(client)
    visa = saved_card(client, customer, VISA)
    mastercard = saved_card(client, customer, MASTERCARD)
    set_default(client, customer, visa)
    session = create_session(client, customer)
    open_page(browser, devtools, session.url)
    items = listed(browser)
    assert set(items) == {visa, mastercard}
    assert badge_owner(browser) == visa
    assert action_button(items[visa], "default") is None
    assert action_button(items[visa], "remove") is None  # the default, while another method remains
    button = action_button(items[mastercard], "default")
    assert button is not None and button.text.strip() == "Make default"

    press(browser, devtools, button)
    wait_for_url(browser, session.url + "?done=default")
    assert present(browser, "#notice").text.strip() == "Default payment method updated."
    assert badge_owner(browser) == mastercard
    assert action_button(listed(browser)[visa], "default") is not None
    assert default_of(client, customer) == mastercard
    assert sheet_default(client, publishable, customer) == mastercard


def test_remove_takes_the_method_off_the_page_and_the_customer(client, browser, devtools):
    customer = new_customer(client)
    visa = saved_card(client, customer, VISA)
    mastercard = saved_card(client, customer, MASTERCARD)
    set_default(client, customer, visa)
    session = create_session(client, customer)
    open_page(browser, devtools, session.url)
    button = action_button(listed(browser)[mastercard], "remove")
    assert button is not None and button.text.strip() == "Remove"

    press(browser, devtools, button)
    wait_for_url(browser, session.url + "?done=removed")
    assert present(browser, "#notice").text.strip() == "Payment method removed."
    assert list(listed(browser)) == [visa]
    assert client.v1.payment_methods.retrieve(mastercard).customer is None
    assert [method.id for method in attached(client, customer)] == [visa]
    assert default_of(client, customer) == visa


def test_the_return_link_goes_back_to_the_merchant(client, browser, devtools, return_server):
    customer = new_customer(client)
    return_url = return_server.url("/account?tab=billing")
    session = create_session(client, customer, return_url=return_url)
    open_page(browser, devtools, session.url)
    link = browser.find_element(By.ID, "return-link")
    assert link.get_attribute("href") == return_url and link.text.strip()
    link.click()
    assert return_server.next_request() == ("GET", "/account?tab=billing")
    wait_for_url(browser, return_url)

    without = create_session(client, customer)  # neither it nor the default configuration has a return URL
    open_page(browser, devtools, without.url)
    assert heading(browser) == "Payment methods"
    assert browser.find_elements(By.ID, "return-link") == []


# Flows


def test_a_redirect_flow_saves_the_new_default_and_lands_on_the_merchant(client, browser, devtools, return_server):
    customer = new_customer(client)
    existing = saved_card(client, customer, MASTERCARD)
    set_default(client, customer, existing)
    redirect = return_server.url("/after-update?order=7")
    session = create_session(client, customer, flow_data={
        "type": "payment_method_update",
        "after_completion": {"type": "redirect", "redirect": {"return_url": redirect}},
    })
    open_page(browser, devtools, session.url)
    assert heading(browser) == "Add a payment method"
    assert browser.find_elements(By.ID, "make_default") == []  # in a flow the new method is the default
    fill_card(browser, VISA)
    save(browser, devtools)

    # A redirect after a form's POST is held to the page's CSP form-action too: it must allow the merchant.
    assert return_server.next_request() == ("GET", "/after-update?order=7")
    assert devtools.navigation_to(redirect).get("redirectResponse", {}).get("status") == 303
    wait_for_url(browser, redirect)
    added = [method for method in attached(client, customer) if method.id != existing]
    assert [method.card.last4 for method in added] == ["4242"]
    assert default_of(client, customer) == added[0].id


def test_a_hosted_confirmation_flow_shows_the_custom_message(client, browser, devtools, return_server):
    customer = new_customer(client)
    session = create_session(client, customer, return_url=return_server.url("/shop"), flow_data={
        "type": "payment_method_update",
        "after_completion": {"type": "hosted_confirmation", "hosted_confirmation": {"custom_message": MESSAGE}},
    })
    open_page(browser, devtools, session.url)
    assert heading(browser) == "Add a payment method"
    fill_card(browser, VISA)
    save(browser, devtools)

    wait_for_url(browser, session.url + "/done")
    assert heading(browser) == "Payment method saved"
    assert browser.find_element(By.ID, "custom-message").text.strip() == MESSAGE
    assert browser.find_element(By.ID, "return-link").get_attribute("href") == return_server.url("/shop")
    (method,) = attached(client, customer)
    assert default_of(client, customer) == method.id


# Language, keyboard, accessibility, screenshots


@pytest.mark.parametrize("locale, lang, title", [
    ("fr", "fr", "Moyens de paiement"),
    ("fr-CA", "fr", "Moyens de paiement"),
    ("auto", "en", "Payment methods"),  # the browser's Accept-Language: conftest starts it with --lang=en-US
])
def test_the_sessions_locale_sets_the_pages_language(client, browser, devtools, locale, lang, title):
    session = create_session(client, new_customer(client), locale=locale)
    open_page(browser, devtools, session.url)
    assert heading(browser) == title
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == lang


def tab_until(browser, wanted, limit=40):
    """Presses Tab from the focused element (the page itself after a load) until `wanted(element)`
    holds for the focused one, which it returns; fails naming what Tab went through."""
    passed = []
    active = browser.switch_to.active_element
    for _ in range(limit):
        active.send_keys(Keys.TAB)
        active = browser.switch_to.active_element
        passed.append(active.get_attribute("id") or active.tag_name)
        if wanted(active):
            return active
    raise AssertionError(f"Tab never reached it in {limit} presses: {passed}")


def test_keyboard_alone_adds_a_card(client, browser, devtools):
    """Tab to "Add payment method" and Enter; Tab through the add form typing into each field it
    reaches; Tab to Save and Enter. No mouse anywhere."""
    customer = new_customer(client)
    session = create_session(client, customer)
    open_page(browser, devtools, session.url)
    tab_until(browser, lambda e: e.get_attribute("id") == "add-payment-method").send_keys(Keys.ENTER)
    present(browser, "#add-form")
    if not browser.find_elements(By.ID, "card_number"):
        tab_until(browser, lambda e: e.tag_name == "a" and "type=card" in (e.get_attribute("href") or "")) \
            .send_keys(Keys.ENTER)
        present(browser, "#card_number")

    values = {"card_number": VISA, "card_expiry": EXPIRY, "card_cvc": CVC, **BILLING}
    typed = []

    def type_and_stop_at_save(element):
        field = element.get_attribute("id")
        if field in values and field not in typed:
            if element.tag_name == "select":  # type-ahead on the option's text
                text = browser.execute_script(
                    "const o = [...arguments[0].options].find(o => o.value === arguments[1]); return o && o.text",
                    element, values[field])
                element.send_keys(text or values[field])
            else:
                element.send_keys(Keys.CONTROL, "a")
                element.send_keys(values[field])
            typed.append(field)
        return field == "save"

    save_button = tab_until(browser, type_and_stop_at_save, limit=60)
    assert {"card_number", "card_expiry", "card_cvc"} <= set(typed), typed
    assert typed.index("card_number") < typed.index("card_expiry") < typed.index("card_cvc"), typed
    devtools.clear()
    save_button.send_keys(Keys.ENTER)
    wait_for_url(browser, session.url + "?done=added")
    assert present(browser, "#notice").text.strip() == "Payment method added."
    assert [method.card.last4 for method in attached(client, customer)] == ["4242"]


def axe_source():
    """axe-core as axe-selenium-python 2.1.6 ships it (the file its `Axe.inject` reads)."""
    script = importlib.resources.files("axe_selenium_python") / "node_modules" / "axe-core" / "axe.min.js"
    return script.read_text(encoding="utf-8")


RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
    results => done({violations: results.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' '))
    }))}),
    error => done({error: String(error)}));
"""


@contextlib.contextmanager
def csp_bypassed(browser):
    """The tab's pages without their Content-Security-Policy, for axe only. axe-core 3.1.1 builds
    its messages with `new Function`, which the portal's policy (no script but its own, allowed by
    hash: no eval) refuses even to WebDriver's injected script; DevTools' Page.setBypassCSP lets it run. It must
    be set before the page loads (the policy is bound then), applies to this tab only (every test
    gets a fresh one) and changes nothing the server sends: the other tests see the policy
    enforced."""
    browser.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Page.setBypassCSP", {"enabled": False})


def axe_violations(browser):
    browser.execute_script(axe_source())
    assert browser.execute_script("return typeof window.axe === 'object' && window.axe.version"), "axe did not load"
    browser.set_script_timeout(WAIT)
    try:
        result = browser.execute_async_script(RUN_AXE)
    finally:
        browser.set_script_timeout(SCRIPT_TIMEOUT)
    assert "error" not in result, result.get("error")
    return result["violations"]


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_axe_finds_no_serious_accessibility_violation(client, browser, devtools, size):
    """The payment-methods page (two cards, a default, a way back) and the add page, at a phone's
    and a desktop's window size: no axe violation of impact serious or critical. Every violation
    found is printed (pytest shows it when the test fails)."""
    _, session = portal_with_two_cards(client)
    found = {}
    with window(browser, size), csp_bypassed(browser):
        for name, url, ready in [
            ("payment methods", session.url, "#payment-methods"), ("add", session.url + "/add?type=card", "#add-form"),
        ]:
            assert open_page(browser, devtools, url)["status"] == 200
            present(browser, ready)
            found[name] = axe_violations(browser)
    report = "\n".join(
        f"{name} at {size[0]}x{size[1]}: [{v['impact']}] {v['id']}: {v['help']}\n    " + "\n    ".join(v["nodes"])
        for name, violations in found.items() for v in violations
    )
    print(report or f"no axe violations at {size[0]}x{size[1]}")
    serious = [v["id"] for violations in found.values() for v in violations if v["impact"] in SERIOUS]
    assert serious == [], report


def full_page_png(browser):
    """The whole page (not only the window) as a PNG, from DevTools' Page.captureScreenshot."""
    width, height = browser.execute_script(
        "return [document.documentElement.clientWidth,"
        " Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)]"
    )
    shot = browser.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": min(height, 4000), "scale": 1},
    })
    return base64.b64decode(shot["data"]), width


@pytest.mark.parametrize("name, size", [("phone", PHONE), ("desktop", DESKTOP)])
def test_screenshots_for_the_docs(client, browser, devtools, name, size):
    """portal-methods-{phone,desktop}.png (two cards) and portal-add-{...}.png, for docs/images, taken
    with the pages as a customer gets them (policy enforced). At each size the page needs no
    sideways scrolling, and the image is the page's width."""
    _, session = portal_with_two_cards(client)
    IMAGES.mkdir(parents=True, exist_ok=True)
    with window(browser, size):
        for page, url, ready in [
            ("methods", session.url, "#payment-methods"), ("add", session.url + "/add?type=card", "#add-form"),
        ]:
            assert open_page(browser, devtools, url)["status"] == 200
            present(browser, ready)
            if page == "methods":
                assert len(listed(browser)) == 2
            inner, scroll = browser.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
            assert inner <= size[0] and scroll <= inner, f"{page} is {scroll} px wide in a {inner} px window"
            png, width = full_page_png(browser)
            ratio = browser.execute_script("return window.devicePixelRatio")
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            assert struct.unpack(">I", png[16:20])[0] == round(width * ratio)
            path = IMAGES / f"portal-{page}-{name}.png"
            path.write_bytes(png)
            assert path.stat().st_size == len(png)
