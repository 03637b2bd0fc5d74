"""The 3D Secure page (AuthenticationPageController) in a real Chromium: a setup intent confirmed by
the merchant's server with the 3D Secure test card sends the customer to
`next_action.redirect_to_url.url`; the page shows the card, its buttons POST the verdict and the
303 brings the browser back to the `return_url` (here a loopback server of the test's own), with
no script anywhere and the page's Content-Security-Policy really enforced by the browser."""
import json
import urllib.parse

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import WAIT

THREE_D_SECURE_CARD = "4000002500003155"  # authentication required on setup
CARD = {"number": THREE_D_SECURE_CARD, "exp_month": 11, "exp_year": 2040, "cvc": "084"}
PRIMARY_BLUE = "rgba(10, 90, 212, 1)"  # HTMLPage's `button.primary` background: its style sheet applied


def confirm_with_3ds(client, return_url):
    """The merchant's server: a customer's setup intent confirmed with the 3D Secure card."""
    customer = client.v1.customers.create(params={"email": "jenny@example.com"}).id
    intent = client.v1.setup_intents.create(params={"customer": customer})
    pending = client.v1.setup_intents.confirm(
        intent.id, params={"payment_method_data": {"type": "card", "card": CARD}, "return_url": return_url}
    )
    assert pending.status == "requires_action"
    assert pending.next_action.type == "redirect_to_url"
    assert pending.next_action.redirect_to_url.return_url == return_url
    return customer, pending


def open_page(browser, devtools, url):
    devtools.clear()
    browser.get(url)
    return devtools.document_response()


def button(browser, text):
    return browser.find_element(By.XPATH, f"//button[normalize-space()='{text}']")


def wait_for_url(browser, url):
    WebDriverWait(browser, WAIT).until(lambda driver: driver.current_url == url)


def test_the_page_shows_the_card_and_completing_returns_to_the_return_url(
    purse, client, browser, devtools, return_server
):
    return_url = return_server.url("/return?order=42")
    customer, pending = confirm_with_3ds(client, return_url)
    url = pending.next_action.redirect_to_url.url
    assert url.startswith(purse.base + "/")

    response = open_page(browser, devtools, url)
    assert response["status"] == 200
    assert browser.title == "Confirm it is you"
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "Visa •••• 3155" in text and THREE_D_SECURE_CARD not in browser.page_source
    assert client.v1.setup_intents.retrieve(pending.id).status == "requires_action"  # showing it changes nothing

    button(browser, "Complete authentication").click()
    assert return_server.next_request() == ("GET", "/return?order=42")
    wait_for_url(browser, return_url)
    assert browser.title == "Back at the merchant"

    done = client.v1.setup_intents.retrieve(pending.id)
    assert (done.status, done.next_action) == ("succeeded", None)
    assert [method.id for method in client.v1.customers.payment_methods.list(customer).data] == [done.payment_method]

    # Back on the page (the browser's history, say): decided, it shows the outcome, no buttons.
    open_page(browser, devtools, url)
    assert browser.title == "Authentication complete"
    assert browser.find_elements(By.TAG_NAME, "button") == []


def test_failing_authentication_returns_to_the_return_url_and_fails_the_intent(client, browser, devtools, return_server):
    return_url = return_server.url("/after-3ds")
    customer, pending = confirm_with_3ds(client, return_url)
    open_page(browser, devtools, pending.next_action.redirect_to_url.url)

    button(browser, "Fail authentication").click()
    assert return_server.next_request() == ("GET", "/after-3ds")
    wait_for_url(browser, return_url)

    failed = client.v1.setup_intents.retrieve(pending.id)
    assert (failed.status, failed.next_action, failed.payment_method) == ("requires_payment_method", None, None)
    assert failed.last_setup_error.code == "setup_intent_authentication_failure"
    assert client.v1.customers.payment_methods.list(customer).data == []


def test_the_page_runs_no_script_and_sends_its_protections(client, browser, devtools, return_server):
    return_url = return_server.url("/return")
    _, pending = confirm_with_3ds(client, return_url)
    url = pending.next_action.redirect_to_url.url

    # The headers, from a plain HTTP GET.
    page = requests.get(url, timeout=30, allow_redirects=False)
    assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    directives = {
        directive.split()[0]: directive.split()[1:]
        for directive in (part.strip() for part in page.headers["Content-Security-Policy"].split(";")) if directive
    }
    assert directives["default-src"] == ["'none'"]
    assert "script-src" not in directives  # so default-src 'none' governs scripts: none at all
    assert len(directives["style-src"]) == 1 and directives["style-src"][0].startswith("'sha256-")
    assert directives["form-action"] == ["'self'", return_server.url("")]  # where the 303 sends the browser
    assert directives["frame-ancestors"] == ["'none'"] and directives["base-uri"] == ["'none'"]
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["Cache-Control"] == "no-store"
    assert "<script" not in page.text.lower()

    # The browser got the same policy, and enforces it.
    response = open_page(browser, devtools, url)
    assert response["headers"]["Content-Security-Policy"] == page.headers["Content-Security-Policy"]
    assert browser.execute_script("return document.scripts.length") == 0
    assert browser.execute_script("return document.querySelectorAll('[onclick],[onload],[onsubmit]').length") == 0
    # A script put into the page (as an injection would) does not run: WebDriver's own script is
    # exempt from the page's CSP, the inline one it adds is not.
    ran = browser.execute_script(
        "const script = document.createElement('script');"
        "script.textContent = 'window.pursePageScriptRan = true';"
        "document.body.appendChild(script);"
        "return window.pursePageScriptRan === true;"
    )
    assert ran is False
    console = [entry["message"] for entry in browser.get_log("browser")]
    assert any("Content Security Policy" in message for message in console), console
    # The one style sheet is allowed by its hash: the primary button is styled.
    assert button(browser, "Complete authentication").value_of_css_property("background-color") == PRIMARY_BLUE


def test_keyboard_alone_completes_authentication(client, browser, devtools, return_server):
    return_url = return_server.url("/keyboard")
    _, pending = confirm_with_3ds(client, return_url)
    open_page(browser, devtools, pending.next_action.redirect_to_url.url)

    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Complete authentication"
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Fail authentication"
    browser.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
    assert browser.switch_to.active_element.text == "Complete authentication"
    browser.switch_to.active_element.send_keys(Keys.ENTER)

    assert return_server.next_request() == ("GET", "/keyboard")
    wait_for_url(browser, return_url)
    assert client.v1.setup_intents.retrieve(pending.id).status == "succeeded"


def test_a_page_url_with_a_wrong_token_is_not_found(client, browser, devtools, return_server):
    _, pending = confirm_with_3ds(client, return_server.url("/return"))
    url = pending.next_action.redirect_to_url.url
    forged = url.rsplit("/", 1)[0] + "/" + "A" * 24
    missing = urllib.parse.urljoin(url, "/v1/setup_intents/seti_doesnotexist/authenticate/" + url.rsplit("/", 1)[1])

    for wrong in [forged, missing]:
        plain = requests.get(wrong, timeout=30)
        assert plain.status_code == 404
        assert plain.json()["error"]["type"] == "invalid_request_error"
        assert plain.json()["error"]["code"] == "resource_missing"

        response = open_page(browser, devtools, wrong)
        assert response["status"] == 404
        shown = json.loads(browser.find_element(By.TAG_NAME, "body").text)  # Stripe's error, as Stripe shows it
        assert shown["error"]["code"] == "resource_missing"
        assert browser.find_elements(By.TAG_NAME, "button") == []
        assert THREE_D_SECURE_CARD[-4:] not in browser.page_source

    # Posting a verdict to the wrong URL is refused too, and the intent still waits.
    assert requests.post(forged, data={"action": "complete"}, allow_redirects=False, timeout=30).status_code == 404
    assert return_server.requests.empty()
    assert client.v1.setup_intents.retrieve(pending.id).status == "requires_action"
