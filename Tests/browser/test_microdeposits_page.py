"""The microdeposits page (MicrodepositsPageController) in a real Chromium: a setup intent that
verifies bank accounts with microdeposits, confirmed by the merchant's server with typed account
numbers, sends the customer to `next_action.verify_with_microdeposits.hosted_verification_url`,
where they type the code from the deposit's statement descriptor. The page is a labelled form
without script, usable by keyboard alone; a wrong code shows it again with why."""
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import WAIT
from test_authentication_page import open_page

BANK_ACCOUNT = {"account_holder_type": "individual", "routing_number": "110000000", "account_number": "000123456789"}
OFFLINE_MANDATE = {"customer_acceptance": {"type": "offline"}}


def awaiting_microdeposits(client):
    """The merchant's server: a customer's setup intent confirmed with typed bank numbers."""
    customer = client.v1.customers.create(params={"email": "jenny@example.com"}).id
    intent = client.v1.setup_intents.create(params={
        "customer": customer, "payment_method_types": ["us_bank_account"],
        "payment_method_options": {"us_bank_account": {"verification_method": "microdeposits"}},
    })
    pending = client.v1.setup_intents.confirm(intent.id, params={
        "payment_method_data": {
            "type": "us_bank_account", "billing_details": {"name": "Jenny Rosen"}, "us_bank_account": BANK_ACCOUNT,
        },
        "mandate_data": OFFLINE_MANDATE,
    })
    assert (pending.status, pending.next_action.type) == ("requires_action", "verify_with_microdeposits")
    return customer, pending


def code_field(browser):
    return browser.find_element(By.ID, "descriptor_code")


def wait_for_title(browser, title):
    WebDriverWait(browser, WAIT).until(lambda driver: driver.title == title)


def test_typing_the_code_verifies_the_account(purse, client, browser, devtools):
    customer, pending = awaiting_microdeposits(client)
    url = pending.next_action.verify_with_microdeposits.hosted_verification_url
    assert url.startswith(purse.base + "/")

    response = open_page(browser, devtools, url)
    assert response["status"] == 200
    assert browser.title == "Verify your bank account"
    label = browser.find_element(By.CSS_SELECTOR, "label[for='descriptor_code']")
    assert "statement descriptor" in label.text
    assert client.v1.setup_intents.retrieve(pending.id).status == "requires_action"  # showing it changes nothing

    code_field(browser).send_keys("SM11AA")
    browser.find_element(By.XPATH, "//button[normalize-space()='Verify']").click()
    wait_for_title(browser, "Bank account verified")

    done = client.v1.setup_intents.retrieve(pending.id)
    assert (done.status, done.next_action) == ("succeeded", None)
    assert [method.id for method in client.v1.customers.payment_methods.list(customer).data] == [done.payment_method]

    # Back on the page: verified, it only says so.
    open_page(browser, devtools, url)
    assert browser.title == "Bank account verified"
    assert browser.find_elements(By.TAG_NAME, "form") == []


def test_a_wrong_code_shows_the_form_again_with_why(client, browser, devtools):
    _, pending = awaiting_microdeposits(client)
    open_page(browser, devtools, pending.next_action.verify_with_microdeposits.hosted_verification_url)

    code_field(browser).send_keys("SM99ZZ")
    devtools.clear()
    browser.find_element(By.XPATH, "//button[normalize-space()='Verify']").click()
    assert devtools.document_response()["status"] == 400
    alert = browser.find_element(By.CSS_SELECTOR, "[role='alert']")
    assert "9 verification attempts remaining" in alert.text
    assert code_field(browser).get_attribute("value") == ""  # typed again, not echoed
    assert client.v1.setup_intents.retrieve(pending.id).status == "requires_action"


def test_keyboard_alone_verifies_and_no_script_runs(client, browser, devtools):
    _, pending = awaiting_microdeposits(client)
    url = pending.next_action.verify_with_microdeposits.hosted_verification_url
    page = requests.get(url, timeout=30, allow_redirects=False)
    assert "<script" not in page.text.lower()
    assert page.headers["X-Frame-Options"] == "DENY" and page.headers["Cache-Control"] == "no-store"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]

    open_page(browser, devtools, url)
    assert browser.execute_script("return document.scripts.length") == 0
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("id") == "descriptor_code"
    browser.switch_to.active_element.send_keys("sm11aa", Keys.ENTER)  # the field's Enter submits the form
    wait_for_title(browser, "Bank account verified")
    assert client.v1.setup_intents.retrieve(pending.id).status == "succeeded"
