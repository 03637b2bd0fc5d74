"""Payment methods and the default payment method through stripe-python: create (cards, test
tokens, US bank accounts, SEPA), validation errors, attach and detach, declines, the customer's
default, lists, and Purse's selected payment option.

Every CVC sent here starts with 0 (test_zz_card_data.py insists), so the end-of-session check can
look for it as a whole value without matching ids or timestamps by chance."""
import datetime

import pytest
import stripe

THIS_YEAR = datetime.date.today().year
VISA = "4242424242424242"
VISA_CVC = "073"
IBAN = "DE89370400440532013000"
ROUTING_NUMBER = "110000000"
ACCOUNT_NUMBER = "000123456789"


def create_card(client, number=VISA, exp_month=12, exp_year=THIS_YEAR + 3, cvc=VISA_CVC):
    return client.v1.payment_methods.create(params={
        "type": "card",
        "card": {"number": number, "exp_month": exp_month, "exp_year": exp_year, "cvc": cvc},
    })


def create_customer(client):
    return client.v1.customers.create().id


def attach(client, method, customer):
    return client.v1.payment_methods.attach(method, params={"customer": customer})


def default_of(client, customer):
    return client.v1.customers.retrieve(customer).invoice_settings.default_payment_method


def ids(objects):
    return [o.id for o in objects]


def selected_option_path(customer):
    return f"/v1/customers/{customer}/selected_payment_option"


def get_selected_option(client, customer):
    response = client.raw_request("get", selected_option_path(customer))
    return client.deserialize(response, api_mode="V1")


def select_option(client, customer, option):
    response = client.raw_request("post", selected_option_path(customer), option=option)
    return client.deserialize(response, api_mode="V1")


# Creating payment methods


def test_create_a_card_from_its_number(client):
    method = create_card(client)
    assert method.id.startswith("pm_")
    assert method.object == "payment_method"
    assert method.type == "card"
    assert method.customer is None
    assert method.livemode is False
    card = method.card
    assert card.brand == "visa"
    assert card.last4 == "4242"
    assert card.funding == "credit"
    assert card.country == "US"
    assert (card.exp_month, card.exp_year) == (12, THIS_YEAR + 3)
    assert len(card.fingerprint) == 16
    body = method.last_response.body
    assert VISA not in body and f'"{VISA_CVC}"' not in body
    assert client.v1.payment_methods.retrieve(method.id).card.fingerprint == card.fingerprint


def test_a_test_token_is_the_same_card_with_the_same_fingerprint(client):
    typed = create_card(client)
    token = client.v1.payment_methods.create(params={"type": "card", "card": {"token": "tok_visa"}})
    assert token.id != typed.id
    assert token.card.brand == "visa" and token.card.last4 == "4242"
    assert token.card.fingerprint == typed.card.fingerprint


def test_fingerprints_differ_between_accounts(purse, client):
    other = purse.client(purse.create_account(name="Other")["secret_key"], max_network_retries=0)
    assert create_card(other).card.fingerprint != create_card(client).card.fingerprint


def test_create_a_us_bank_account(client):
    method = client.v1.payment_methods.create(params={
        "type": "us_bank_account",
        "us_bank_account": {
            "routing_number": ROUTING_NUMBER, "account_number": ACCOUNT_NUMBER, "account_holder_type": "individual",
        },
    })
    assert method.type == "us_bank_account"
    account = method.us_bank_account
    assert account.last4 == "6789"
    assert account.routing_number == ROUTING_NUMBER
    assert account.account_holder_type == "individual"
    assert account.fingerprint
    assert ACCOUNT_NUMBER not in method.last_response.body


def test_create_a_sepa_debit(client):
    method = client.v1.payment_methods.create(params={"type": "sepa_debit", "sepa_debit": {"iban": IBAN}})
    assert method.type == "sepa_debit"
    assert method.sepa_debit.country == "DE"
    assert method.sepa_debit.last4 == "3000"
    assert method.sepa_debit.bank_code == "37040044"
    assert method.sepa_debit.fingerprint
    assert IBAN not in method.last_response.body


@pytest.mark.parametrize("card, code, param", [
    ({"number": "4242424242424241"}, "incorrect_number", "card[number]"),
    ({"exp_month": 13}, "invalid_expiry_month", "card[exp_month]"),
    ({"exp_year": THIS_YEAR - 1}, "invalid_expiry_year", "card[exp_year]"),
    ({"cvc": "0734"}, "invalid_cvc", "card[cvc]"),
])
def test_invalid_cards_are_card_errors(client, card, code, param):
    with pytest.raises(stripe.CardError) as error:
        create_card(client, **card)
    assert error.value.http_status == 402
    assert error.value.code == code
    assert error.value.param == param
    assert error.value.error.type == "card_error"
    assert "424242424242" not in str(error.value)


@pytest.mark.parametrize("params, param", [
    ({"type": "us_bank_account", "us_bank_account": {
        "routing_number": "110000001", "account_number": ACCOUNT_NUMBER, "account_holder_type": "individual",
    }}, "us_bank_account[routing_number]"),
    ({"type": "sepa_debit", "sepa_debit": {"iban": "DE89370400440532013001"}}, "sepa_debit[iban]"),
])
def test_invalid_bank_details_are_invalid_request_errors(client, params, param):
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.payment_methods.create(params=params)
    assert error.value.http_status == 400
    assert error.value.param == param
    assert ACCOUNT_NUMBER not in str(error.value) and "DE89370400440532013001" not in str(error.value)


def test_an_unknown_payment_method_is_missing(client):
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.payment_methods.retrieve("pm_nothing")
    assert error.value.http_status == 404
    assert error.value.code == "resource_missing"


# Updating


def test_update_needs_an_attached_method(client):
    method = create_card(client)
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.payment_methods.update(method.id, params={"metadata": {"a": "b"}})
    assert error.value.http_status == 400
    assert error.value.code == "payment_method_unexpected_state"


def test_update_an_attached_card(client):
    method = attach(client, "pm_card_visa", create_customer(client))
    updated = client.v1.payment_methods.update(method.id, params={
        "billing_details": {"name": "Jenny Rosen", "address": {"city": "Oslo"}},
        "card": {"exp_month": 6, "exp_year": THIS_YEAR + 5},
        "allow_redisplay": "always",
        "metadata": {"k": "v"},
    })
    assert updated.billing_details.name == "Jenny Rosen"
    assert updated.billing_details.address.city == "Oslo"
    # Stripe's field since API 2025-04-30; Purse takes no tax ids.
    assert "tax_id" in updated.billing_details and updated.billing_details.tax_id is None
    assert (updated.card.exp_month, updated.card.exp_year) == (6, THIS_YEAR + 5)
    assert updated.allow_redisplay == "always"
    assert updated.metadata.to_dict() == {"k": "v"}
    assert client.v1.payment_methods.retrieve(method.id).to_dict() == updated.to_dict()
    with pytest.raises(stripe.CardError) as error:
        client.v1.payment_methods.update(method.id, params={"card": {"exp_year": THIS_YEAR - 2}})
    assert error.value.code == "invalid_expiry_year"


# Attach and detach


def test_attaching_a_test_token_creates_a_new_method(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer)
    assert method.id.startswith("pm_") and method.id != "pm_card_visa"
    assert method.customer == customer
    assert method.card.last4 == "4242"
    assert client.v1.payment_methods.retrieve(method.id).customer == customer


def test_attaching_twice_to_the_same_customer_changes_nothing(client):
    customer = create_customer(client)
    method = create_card(client).id
    first = attach(client, method, customer)
    again = attach(client, method, customer)
    assert first.customer == customer
    assert again.to_dict() == first.to_dict()
    assert len(client.v1.events.list(params={"type": "payment_method.attached"}).data) == 1


def test_attaching_to_another_customer_is_refused(client):
    alice, bob = create_customer(client), create_customer(client)
    method = attach(client, create_card(client).id, alice).id
    with pytest.raises(stripe.InvalidRequestError) as error:
        attach(client, method, bob)
    assert error.value.http_status == 400
    assert error.value.code == "payment_method_unexpected_state"
    assert error.value.param == "payment_method"
    assert client.v1.payment_methods.retrieve(method).customer == alice


def test_detach_then_detach_again_or_reattach_is_refused(client):
    customer = create_customer(client)
    method = attach(client, create_card(client).id, customer).id
    detached = client.v1.payment_methods.detach(method)
    assert detached.id == method and detached.customer is None
    with pytest.raises(stripe.InvalidRequestError) as twice:
        client.v1.payment_methods.detach(method)
    assert twice.value.http_status == 400
    assert twice.value.code == "payment_method_unexpected_state"
    with pytest.raises(stripe.InvalidRequestError) as reuse:
        attach(client, method, customer)
    assert reuse.value.http_status == 400
    assert reuse.value.code == "payment_method_unexpected_state"


def test_attach_to_an_unknown_customer_or_method_is_missing(client):
    customer = create_customer(client)
    with pytest.raises(stripe.InvalidRequestError) as no_customer:
        attach(client, create_card(client).id, "cus_nothing")
    # Named by a parameter: 400 resource_missing; named in the path: 404.
    assert no_customer.value.http_status == 400
    assert no_customer.value.code == "resource_missing" and no_customer.value.param == "customer"
    with pytest.raises(stripe.InvalidRequestError) as no_method:
        attach(client, "pm_nothing", customer)
    assert no_method.value.http_status == 404


def test_a_declining_test_token_is_not_attached(client):
    customer = create_customer(client)
    with pytest.raises(stripe.CardError) as error:
        attach(client, "pm_card_chargeDeclined", customer)
    assert error.value.http_status == 402
    assert error.value.code == "card_declined"
    assert error.value.error.decline_code == "generic_decline"
    assert error.value.json_body["error"]["decline_code"] == "generic_decline"
    assert client.v1.customers.payment_methods.list(customer).data == []


def test_a_declining_card_is_not_attached(client):
    customer = create_customer(client)
    method = create_card(client, number="4000000000009995", cvc="094").id
    with pytest.raises(stripe.CardError) as error:
        attach(client, method, customer)
    assert error.value.http_status == 402
    assert error.value.code == "card_declined"
    assert error.value.error.decline_code == "insufficient_funds"
    assert client.v1.payment_methods.retrieve(method).customer is None
    assert client.v1.customers.payment_methods.list(customer).data == []


# The default payment method


def test_create_a_customer_with_a_payment_method_as_its_default(client):
    customer = client.v1.customers.create(params={
        "payment_method": "pm_card_visa",
        "invoice_settings": {"default_payment_method": "pm_card_visa"},
    })
    default = customer.invoice_settings.default_payment_method
    assert default.startswith("pm_") and default != "pm_card_visa"
    assert client.v1.payment_methods.retrieve(default).customer == customer.id
    assert ids(client.v1.customers.payment_methods.list(customer.id).data) == [default]


def test_a_declined_payment_method_creates_no_customer(client):
    with pytest.raises(stripe.CardError) as error:
        client.v1.customers.create(params={"payment_method": "pm_card_chargeDeclined"})
    assert error.value.http_status == 402
    assert client.v1.customers.list().data == []


def test_a_default_must_be_attached_to_the_customer(client):
    with pytest.raises(stripe.InvalidRequestError) as unattached:
        client.v1.customers.create(params={"invoice_settings": {"default_payment_method": "pm_card_visa"}})
    assert unattached.value.http_status == 400
    method = attach(client, "pm_card_visa", create_customer(client)).id
    other = create_customer(client)
    with pytest.raises(stripe.InvalidRequestError) as foreign:
        client.v1.customers.update(other, params={"invoice_settings": {"default_payment_method": method}})
    assert foreign.value.http_status == 400
    assert foreign.value.code == "resource_missing"
    assert foreign.value.param == "invoice_settings[default_payment_method]"
    assert default_of(client, other) is None


def test_expanding_the_default_gives_the_payment_method(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    updated = client.v1.customers.update(customer, params={
        "invoice_settings": {"default_payment_method": method},
        "expand": ["invoice_settings.default_payment_method"],
    })
    assert updated.invoice_settings.default_payment_method.id == method
    fetched = client.v1.customers.retrieve(customer, params={"expand": ["invoice_settings.default_payment_method"]})
    default = fetched.invoice_settings.default_payment_method
    assert isinstance(default, stripe.PaymentMethod)
    assert default.id == method and default.card.last4 == "4242"


def test_detaching_the_default_clears_it(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": method}})
    assert default_of(client, customer) == method
    client.v1.payment_methods.detach(method)
    assert default_of(client, customer) is None
    update = client.v1.events.list(params={"type": "customer.updated"}).data[0]
    assert update.data.previous_attributes["invoice_settings"]["default_payment_method"] == method


def test_deleting_a_customer_detaches_its_methods(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_mastercard", customer).id
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": method}})
    client.v1.customers.delete(customer)
    assert client.v1.payment_methods.retrieve(method).customer is None
    with pytest.raises(stripe.InvalidRequestError) as error:
        attach(client, method, create_customer(client))
    assert error.value.code == "payment_method_unexpected_state"
    assert len(client.v1.events.list(params={"type": "payment_method.detached"}).data) == 1


# Lists


def attach_three_cards_and_a_sepa_debit(client, customer):
    cards = [attach(client, token, customer).id for token in ("pm_card_visa", "pm_card_mastercard", "pm_card_amex")]
    sepa = client.v1.payment_methods.create(params={"type": "sepa_debit", "sepa_debit": {"iban": IBAN}}).id
    attach(client, sepa, customer)
    return cards, sepa


def test_list_by_type_with_limit_100_as_stripe_ios_does(client):
    customer = create_customer(client)
    cards, sepa = attach_three_cards_and_a_sepa_debit(client, customer)
    page = client.v1.payment_methods.list(params={"customer": customer, "type": "card", "limit": 100})
    assert page.object == "list" and page.url == "/v1/payment_methods" and page.has_more is False
    assert ids(page.data) == list(reversed(cards))
    assert [m.card.brand for m in page.data] == ["amex", "mastercard", "visa"]
    debits = client.v1.payment_methods.list(params={"customer": customer, "type": "sepa_debit", "limit": 100})
    assert ids(debits.data) == [sepa]
    banks = client.v1.payment_methods.list(params={"customer": customer, "type": "us_bank_account", "limit": 100})
    assert banks.data == []


def test_list_a_customers_payment_methods(client):
    customer = create_customer(client)
    cards, sepa = attach_three_cards_and_a_sepa_debit(client, customer)
    everything = client.v1.customers.payment_methods.list(customer)
    assert everything.url == f"/v1/customers/{customer}/payment_methods"
    assert ids(everything.data) == [sepa] + list(reversed(cards))
    only_cards = client.v1.customers.payment_methods.list(customer, params={"type": "card"})
    assert ids(only_cards.data) == list(reversed(cards))
    assert client.v1.customers.payment_methods.retrieve(customer, sepa).type == "sepa_debit"
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.customers.payment_methods.retrieve(create_customer(client), sepa)
    assert error.value.http_status == 404


def test_list_filters_on_allow_redisplay(client):
    customer = create_customer(client)
    cards, _ = attach_three_cards_and_a_sepa_debit(client, customer)
    client.v1.payment_methods.update(cards[0], params={"allow_redisplay": "always"})
    always = client.v1.customers.payment_methods.list(customer, params={"allow_redisplay": "always"})
    assert ids(always.data) == [cards[0]]


def test_list_pages_with_auto_paging_iter(client):
    customer = create_customer(client)
    methods = [attach(client, "pm_card_visa", customer).id for _ in range(5)]
    newest_first = list(reversed(methods))
    page = client.v1.payment_methods.list(params={"customer": customer, "type": "card", "limit": 2})
    assert ids(page.data) == newest_first[:2] and page.has_more is True
    assert ids(page.auto_paging_iter()) == newest_first
    by_customer = client.v1.customers.payment_methods.list(customer, params={"limit": 2})
    assert ids(by_customer.auto_paging_iter()) == newest_first


def test_list_for_an_unknown_customer_is_missing(client):
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.payment_methods.list(params={"customer": "cus_nothing", "type": "card"})
    assert error.value.http_status == 400
    assert error.value.code == "resource_missing" and error.value.param == "customer"


def test_expand_the_customer_of_a_payment_method(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    expanded = client.v1.payment_methods.retrieve(method, params={"expand": ["customer"]})
    assert isinstance(expanded.customer, stripe.Customer)
    assert expanded.customer.id == customer


def test_expand_customers_through_a_list(client):
    customer = create_customer(client)
    attach(client, "pm_card_visa", customer)
    page = client.v1.customers.payment_methods.list(customer, params={"expand": ["data.customer"]})
    assert [m.customer.id for m in page.data] == [customer]
    assert isinstance(page.data[0].customer, stripe.Customer)


# The selected payment option (a Purse addition, reached through raw_request)


def test_no_option_is_selected_at_first(client):
    customer = create_customer(client)
    selected = get_selected_option(client, customer)
    assert selected.to_dict() == {
        "object": "selected_payment_option", "customer": customer, "option": None, "payment_method": None,
        "unavailable_reason": None,
    }


def test_selecting_a_payment_method_makes_it_the_default(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    selected = select_option(client, customer, method)
    assert selected.option == method
    assert selected.payment_method.id == method and selected.payment_method.card.last4 == "4242"
    assert default_of(client, customer) == method
    assert get_selected_option(client, customer).option == method


def test_setting_the_default_selects_it(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": method}})
    assert get_selected_option(client, customer).option == method


def test_selecting_apple_pay_keeps_the_default(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    select_option(client, customer, method)
    selected = select_option(client, customer, "apple_pay")
    assert selected.option == "apple_pay"
    assert selected.payment_method is None
    assert default_of(client, customer) == method


def test_detaching_the_default_keeps_a_selected_wallet(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    select_option(client, customer, method)
    select_option(client, customer, "link")
    client.v1.payment_methods.detach(method)
    assert get_selected_option(client, customer).option == "link"
    assert default_of(client, customer) is None


def test_detaching_the_selected_method_clears_the_selection(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    select_option(client, customer, method)
    client.v1.payment_methods.detach(method)
    assert get_selected_option(client, customer).option is None


def test_an_empty_option_clears_the_selection(client):
    customer = create_customer(client)
    method = attach(client, "pm_card_visa", customer).id
    select_option(client, customer, method)
    cleared = select_option(client, customer, "")
    assert cleared.option is None and cleared.payment_method is None
    assert get_selected_option(client, customer).option is None


def test_selecting_an_unknown_option_is_refused(client):
    customer = create_customer(client)
    with pytest.raises(stripe.InvalidRequestError) as unknown:
        select_option(client, customer, "pm_nothing")
    assert unknown.value.http_status == 400
    assert unknown.value.param == "option"
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.raw_request("post", selected_option_path(customer))
    assert missing.value.http_status == 400
    assert missing.value.param == "option"
