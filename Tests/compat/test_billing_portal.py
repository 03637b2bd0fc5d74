"""The customer portal (`billing_portal`, issue 33) through stripe-python 16.1.0 as a merchant's
server uses it, and the portal's pages as a browser without script reaches them over plain HTTP.
What is asserted is the portal as docs/portal.md describes it (configurations, sessions, their
events, revocation, the pages' URLs, ids and protections); where Stripe's own wire is the rule, it
is Stripe's as stripe-python 16.1.0 reads it.

Read in stripe-python 16.1.0:
- `StripeClient.v1.billing_portal.configurations.create / list / retrieve / update`
  (`stripe/billing_portal/_configuration_service.py`): POST and GET /v1/billing_portal/configurations,
  GET and POST /v1/billing_portal/configurations/{configuration}.
- `StripeClient.v1.billing_portal.sessions.create` (`stripe/billing_portal/_session_service.py`):
  POST /v1/billing_portal/sessions. Sessions have no retrieve or list, in the SDK as at Stripe.
- The legacy resources `stripe.billing_portal.Configuration.create / list / retrieve / modify`
  (`stripe/billing_portal/_configuration.py`; `list` refuses an answer whose `object` is not
  `list`) and `stripe.billing_portal.Session.create` (`stripe/billing_portal/_session.py`).
- `StripeClient.v1.events.list / retrieve`, and `StripeClient.raw_request` for
  POST /v1/customers/{id}/revoke_credentials (Purse's own, which the SDK has no method for).
The SDK form-encodes nested params as `a[b][c]`, booleans as `true`/`false`, GET params in the
query string, and sends an Idempotency-Key with every POST.

The pages are fetched with `requests` (as test_authentication_page.py does) and read with
html_forms.py's parser, posting what a browser posts (html_forms.form_fields) with the headers a
browser adds to a same-origin form (Origin, Sec-Fetch-Site). Redirects are never followed: every
URL stays on loopback, and the merchant's URLs here are only compared, never fetched.

Card data: the card numbers and CVCs posted to the add form go under the portal's own field names
(`card_number`, `card_cvc`), which conftest's recording client does not see, so `post_form`
registers them in SENT_CARD_DATA itself; CVCs start with 0 (test_zz_card_data.py insists). Each
session URL's token, a credential for one customer, is registered in SECRETS_SEEN, so
test_zz_card_data.py proves it is neither stored nor logged."""
import html.parser
import json
import re
import time
import urllib.parse

import pytest
import requests
import stripe

from conftest import SECRETS_SEEN, SENT_CARD_DATA
from html_forms import form_fields, parse

VISA = "4242424242424242"
CVC = "047"
EXPIRY = "12 / 34"  # the form's "MM / YY"
RETURN_URL = "https://merchant.example/account"
DEFAULT_RETURN_URL = "https://merchant.example/billing"
EXPIRED = "This link has expired"

CONFIGURATION_FIELDS = {
    "id", "object", "active", "application", "business_profile", "created", "default_return_url", "features",
    "is_default", "livemode", "login_page", "metadata", "name", "updated",
}
SESSION_FIELDS = {
    "id", "object", "after_expiration", "configuration", "created", "customer", "customer_account", "flow", "livemode", "locale",
    "on_behalf_of", "return_url", "url",
}
# The features the portal does not serve, and the parameter that would turn each on.
UNSERVED = {
    "customer_update": ({"features": {"customer_update": {"enabled": True}}}, "features[customer_update][enabled]"),
    "invoice_history": ({"features": {"invoice_history": {"enabled": True}}}, "features[invoice_history][enabled]"),
    "subscription_cancel": ({"features": {"subscription_cancel": {"enabled": True}}},
                            "features[subscription_cancel][enabled]"),
    "subscription_update": ({"features": {"subscription_update": {"enabled": True}}},
                            "features[subscription_update][enabled]"),
    "login_page": ({"login_page": {"enabled": True}}, "login_page[enabled]"),
}
# What the add form's fields get; the billing ones only count where the form has them.
CARD_VALUES = {
    "card_number": VISA, "card_expiry": EXPIRY, "card_cvc": CVC,
    "billing_name": "Jenny Rosen", "billing_email": "jenny@example.com", "billing_phone": "+14155550100",
    "billing_line1": "1 Main St", "billing_line2": "", "billing_city": "San Francisco", "billing_state": "CA",
    "billing_postal_code": "94107", "billing_country": "US",
}


def features(payment_method_update=True):
    """A configuration's `features` as Purse shows them: only payment_method_update may be on."""
    return {
        "customer_update": {"allowed_updates": [], "enabled": False},
        "invoice_history": {"enabled": False},
        "payment_method_update": {"enabled": payment_method_update, "payment_method_configuration": None},
        "subscription_cancel": {
            "cancellation_reason": {"enabled": False, "options": []}, "enabled": False, "mode": "at_period_end",
            "proration_behavior": "none",
        },
        "subscription_pause": {"enabled": False},
        "subscription_update": {
            "billing_cycle_anchor": None, "default_allowed_updates": [], "enabled": False, "products": [],
            "proration_behavior": "none", "schedule_at_period_end": {"conditions": []},
            "trial_update_behavior": "end_trial",
        },
    }


# Fixtures and helpers


@pytest.fixture
def customer(client):
    return client.v1.customers.create(params={"email": "jenny@example.com", "name": "Jenny Rosen"}).id


@pytest.fixture
def other_customer(client):
    return client.v1.customers.create(params={"email": "ruth@example.com"}).id


@pytest.fixture
def publishable(purse, account):
    return purse.client(account["publishable_key"], max_network_retries=0)


def configure(client, payment_method_update=True, **params):
    """A new configuration, with the one parameter Stripe requires (`features`)."""
    params.setdefault("features", {})
    params["features"].setdefault("payment_method_update", {"enabled": payment_method_update})
    return client.v1.billing_portal.configurations.create(params=params)


def default_configuration(client):
    (default,) = client.v1.billing_portal.configurations.list(params={"is_default": True}).data
    return default


def create_session(client, customer, **params):
    """What the merchant's server does when the customer asks to manage their payment methods.
    The URL's token is recorded in SECRETS_SEEN (see the module's docstring)."""
    session = client.v1.billing_portal.sessions.create(params={"customer": customer, **params})
    SECRETS_SEEN.add(token_of(session))
    return session


def url_match(purse, session):
    return re.fullmatch(re.escape(purse.base) + r"/p/session/(bps_[A-Za-z0-9]+)/([A-Za-z0-9_]{24,})", session.url)


def token_of(session):
    return session.url.rsplit("/", 1)[1]


def error_of(excinfo):
    return excinfo.value.json_body["error"]


def refusal(call):
    """(status, code, param) of the error a call raises."""
    with pytest.raises(stripe.StripeError) as refused:
        call()
    return refused.value.http_status, error_of(refused).get("code"), error_of(refused).get("param")


def events_of(client, kind, object_id):
    """The events of `kind` about the object `object_id`, newest first."""
    events = client.v1.events.list(params={"type": kind, "limit": 100}).data
    return [event for event in events if event.data.object["id"] == object_id]


def revoke_credentials(client, customer):
    return client.deserialize(client.raw_request("post", f"/v1/customers/{customer}/revoke_credentials"), api_mode="V1")


def default_of(client, customer):
    return client.v1.customers.retrieve(customer).invoice_settings.default_payment_method


def attached_ids(client, customer):
    return [method.id for method in client.v1.customers.payment_methods.list(customer).data]


def saved_card(client, customer, token="pm_card_visa"):
    return client.v1.payment_methods.attach(token, params={"customer": customer}).id


# Configurations


def test_every_account_has_a_default_configuration(client):
    """Made the first time it is needed, once: payment methods on, everything else off."""
    listed = client.v1.billing_portal.configurations.list()
    assert listed.object == "list" and listed.url == "/v1/billing_portal/configurations" and listed.has_more is False
    (default,) = listed.data
    assert set(default.to_dict()) == CONFIGURATION_FIELDS
    assert default.id.startswith("bpc_") and default.object == "billing_portal.configuration"
    assert (default.is_default, default.active, default.livemode, default.application) == (True, True, False, None)
    assert default.features.to_dict() == features(payment_method_update=True)
    assert default.business_profile.to_dict() == {
        "headline": None, "privacy_policy_url": None, "terms_of_service_url": None,
    }
    assert default.login_page.to_dict() == {"enabled": False, "url": None}
    assert (default.default_return_url, default.name) == (None, None)
    assert default.updated >= default.created

    defaults = client.v1.billing_portal.configurations.list(params={"is_default": True}).data
    assert [c.id for c in defaults] == [default.id]
    assert client.v1.billing_portal.configurations.list(params={"is_default": False}).data == []
    assert client.v1.billing_portal.configurations.retrieve(default.id).to_dict() == default.to_dict()
    assert [c.id for c in client.v1.billing_portal.configurations.list().data] == [default.id]  # still the one


def test_another_account_has_its_own_default(purse, client):
    mine = default_configuration(client)
    stranger = purse.client(purse.create_account(name="Stranger")["secret_key"], max_network_retries=0)
    theirs = default_configuration(stranger)
    assert theirs.id != mine.id
    assert refusal(lambda: client.v1.billing_portal.configurations.retrieve(theirs.id))[:2] == (404, "resource_missing")
    assert refusal(lambda: client.v1.billing_portal.configurations.retrieve("bpc_" + "X" * 24))[:2] == (
        404, "resource_missing",
    )


def test_create_a_configuration(client):
    configuration = configure(
        client,
        business_profile={
            "headline": "Manage your cards", "privacy_policy_url": "https://merchant.example/privacy",
            "terms_of_service_url": "https://merchant.example/terms",
        },
        default_return_url=DEFAULT_RETURN_URL,
        metadata={"team": "billing"},
        name="Cards only",
        login_page={"enabled": False},
        features={
            "payment_method_update": {"enabled": True},
            # Sent switched off, as a merchant's Stripe code often does: accepted.
            "customer_update": {"enabled": False},
            "invoice_history": {"enabled": False},
            "subscription_cancel": {"enabled": False},
            "subscription_update": {"enabled": False},
        },
    )
    assert set(configuration.to_dict()) == CONFIGURATION_FIELDS
    assert configuration.id.startswith("bpc_") and configuration.object == "billing_portal.configuration"
    assert (configuration.active, configuration.is_default, configuration.livemode) == (True, False, False)
    assert configuration.business_profile.to_dict() == {
        "headline": "Manage your cards", "privacy_policy_url": "https://merchant.example/privacy",
        "terms_of_service_url": "https://merchant.example/terms",
    }
    assert configuration.default_return_url == DEFAULT_RETURN_URL
    assert configuration.metadata.to_dict() == {"team": "billing"}
    assert configuration.name == "Cards only"
    assert configuration.features.to_dict() == features(payment_method_update=True)
    assert configuration.login_page.to_dict() == {"enabled": False, "url": None}
    assert abs(configuration.created - time.time()) < 60 and configuration.updated == configuration.created
    assert client.v1.billing_portal.configurations.retrieve(configuration.id).to_dict() == configuration.to_dict()

    off = configure(client, payment_method_update=False)
    assert off.features.to_dict() == features(payment_method_update=False)
    # The account's default is still the one it had.
    assert default_configuration(client).id not in (configuration.id, off.id)


def test_features_are_required_to_create_a_configuration(client):
    assert refusal(lambda: client.v1.billing_portal.configurations.create(params={"name": "No features"})) == (
        400, "parameter_missing", "features",
    )


def test_update_a_configuration(client):
    configuration = configure(client, name="Before")
    renamed = client.v1.billing_portal.configurations.update(configuration.id, params={"name": "After"})
    assert renamed.id == configuration.id and renamed.name == "After" and renamed.active is True
    assert renamed.updated >= configuration.updated

    off = client.v1.billing_portal.configurations.update(configuration.id, params={"active": False})
    assert (off.active, off.name, off.is_default) == (False, "After", False)
    assert client.v1.billing_portal.configurations.retrieve(configuration.id).active is False

    feature_off = client.v1.billing_portal.configurations.update(
        configuration.id, params={"features": {"payment_method_update": {"enabled": False}}, "active": True},
    )
    assert feature_off.active is True
    assert feature_off.features.payment_method_update.enabled is False

    changed = client.v1.billing_portal.configurations.update(
        configuration.id, params={"default_return_url": DEFAULT_RETURN_URL, "metadata": {"tier": "gold"}},
    )
    assert changed.default_return_url == DEFAULT_RETURN_URL and changed.metadata.to_dict() == {"tier": "gold"}


def test_the_default_configuration_cannot_be_deactivated(client):
    default = default_configuration(client)
    status, _, param = refusal(
        lambda: client.v1.billing_portal.configurations.update(default.id, params={"active": False})
    )
    assert (status, param) == (400, "active")
    assert client.v1.billing_portal.configurations.retrieve(default.id).active is True
    # Other changes to it are fine.
    assert client.v1.billing_portal.configurations.update(default.id, params={"name": "Default"}).name == "Default"


@pytest.mark.parametrize("feature", sorted(UNSERVED))
def test_a_feature_the_portal_does_not_serve_is_refused_naming_it(client, feature):
    """The portal serves payment methods only: turning on anything else is refused, on create and
    on update, naming the parameter; the configuration is left as it was."""
    params, param = UNSERVED[feature]
    with pytest.raises(stripe.InvalidRequestError) as refused:
        configure(client, **json.loads(json.dumps(params)))
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["param"] == param
    assert "payment methods" in error_of(refused)["message"].lower()

    configuration = configure(client, name="Unchanged")
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.billing_portal.configurations.update(configuration.id, params=json.loads(json.dumps(params)))
    assert (refused.value.http_status, error_of(refused)["param"]) == (400, param)
    assert client.v1.billing_portal.configurations.retrieve(configuration.id).to_dict() == configuration.to_dict()


def test_list_filters_and_pages(client):
    default = default_configuration(client)
    first = configure(client, name="First")
    second = configure(client, name="Second")
    client.v1.billing_portal.configurations.update(second.id, params={"active": False})

    def ids(**params):
        return [c.id for c in client.v1.billing_portal.configurations.list(params=params).data]

    assert ids() == [second.id, first.id, default.id]  # newest first
    assert ids(active=True) == [first.id, default.id]
    assert ids(active=False) == [second.id]
    assert ids(is_default=True) == [default.id]
    assert ids(is_default=False) == [second.id, first.id]
    assert ids(active=True, is_default=False) == [first.id]

    page = client.v1.billing_portal.configurations.list(params={"limit": 1})
    assert [c.id for c in page.data] == [second.id] and page.has_more is True
    assert ids(limit=1, starting_after=second.id) == [first.id]
    assert ids(ending_before=default.id) == [second.id, first.id]
    assert [c.id for c in page.auto_paging_iter()] == [second.id, first.id, default.id]


def test_configurations_need_the_secret_key(client, publishable):
    configuration = configure(client)
    for call in (
        lambda: publishable.v1.billing_portal.configurations.list(),
        lambda: publishable.v1.billing_portal.configurations.retrieve(configuration.id),
        lambda: configure(publishable),
        lambda: publishable.v1.billing_portal.configurations.update(configuration.id, params={"name": "Mallory"}),
    ):
        with pytest.raises(stripe.PermissionError) as refused:
            call()
        assert refused.value.http_status == 403
    assert client.v1.billing_portal.configurations.retrieve(configuration.id).name is None


# Sessions


def test_a_session_opens_on_its_portal_url(purse, client, customer):
    session = create_session(client, customer, return_url=RETURN_URL)
    assert set(session.to_dict()) == SESSION_FIELDS
    assert session.id.startswith("bps_") and session.object == "billing_portal.session"
    assert session.configuration == default_configuration(client).id
    assert session.customer == customer
    assert (session.customer_account, session.flow, session.livemode, session.locale, session.on_behalf_of) == (
        None, None, False, None, None,
    )
    assert session.return_url == RETURN_URL
    assert abs(session.created - time.time()) < 60
    match = url_match(purse, session)
    assert match, f"{session.url} is not {{base}}/p/session/{{bps_id}}/{{token}}"
    assert match.group(1) == session.id

    another = create_session(client, customer)
    assert another.id != session.id and token_of(another) != token_of(session)
    assert another.return_url is None  # neither the session nor the default configuration has one


@pytest.mark.parametrize("after_completion, expected", [
    ({"type": "redirect", "redirect": {"return_url": "https://merchant.example/updated?order=42"}},
     {"hosted_confirmation": None, "redirect": {"return_url": "https://merchant.example/updated?order=42"},
      "type": "redirect"}),
    ({"type": "hosted_confirmation", "hosted_confirmation": {"custom_message": "Thanks, your card is saved."}},
     {"hosted_confirmation": {"custom_message": "Thanks, your card is saved."}, "redirect": None,
      "type": "hosted_confirmation"}),
    ({"type": "hosted_confirmation"},
     {"hosted_confirmation": {"custom_message": None}, "redirect": None, "type": "hosted_confirmation"}),
    ({"type": "portal_homepage"}, {"hosted_confirmation": None, "redirect": None, "type": "portal_homepage"}),
], ids=["redirect", "hosted confirmation", "hosted confirmation without message", "portal homepage"])
def test_a_session_with_a_payment_method_update_flow(purse, client, customer, after_completion, expected):
    session = create_session(
        client, customer, flow_data={"type": "payment_method_update", "after_completion": after_completion},
    )
    assert set(session.to_dict()) == SESSION_FIELDS
    assert session.flow.to_dict() == {
        "after_completion": expected, "customer_update": None, "subscription_cancel": None, "subscription_update": None,
        "subscription_update_confirm": None, "type": "payment_method_update",
    }
    assert url_match(purse, session)


def test_the_return_url_falls_back_to_the_configurations(client, customer):
    configuration = configure(client, default_return_url=DEFAULT_RETURN_URL)
    fallback = create_session(client, customer, configuration=configuration.id)
    assert (fallback.configuration, fallback.return_url) == (configuration.id, DEFAULT_RETURN_URL)
    own = create_session(client, customer, configuration=configuration.id, return_url=RETURN_URL)
    assert own.return_url == RETURN_URL
    assert create_session(client, customer).return_url is None  # the default configuration has none


@pytest.mark.parametrize("locale", ["fr", "fr-CA", "auto", "en-GB", "pt-BR", "zh-TW"])
def test_the_locale_is_echoed(client, customer, locale):
    assert create_session(client, customer, locale=locale).locale == locale


def test_refusals_name_the_parameter(purse, client, customer):
    """Every refusal names what was wrong, and makes no session."""
    stranger = purse.client(purse.create_account(name="Stranger")["secret_key"], max_network_retries=0)
    foreign_customer = stranger.v1.customers.create().id
    foreign_configuration = default_configuration(stranger).id
    inactive = configure(client)
    client.v1.billing_portal.configurations.update(inactive.id, params={"active": False})
    no_updates = configure(client, payment_method_update=False)

    def create(**params):
        return lambda: client.v1.billing_portal.sessions.create(params={"customer": customer, **params})

    # Unknown customers (or another account's): 400 resource_missing naming `customer`, as Stripe
    # answers for an object named in the body (customer sessions do the same).
    for unknown in ("cus_" + "X" * 24, foreign_customer):
        assert refusal(lambda: client.v1.billing_portal.sessions.create(params={"customer": unknown})) == (
            400, "resource_missing", "customer",
        ), unknown
    assert refusal(lambda: client.v1.billing_portal.sessions.create(params={"return_url": RETURN_URL}))[1:] == (
        "parameter_missing", "customer",
    )
    # Unknown configurations (or another account's): 400 resource_missing naming `configuration`,
    # as for any object named in the body.
    for unknown in ("bpc_" + "X" * 24, foreign_configuration):
        assert refusal(create(configuration=unknown)) == (400, "resource_missing", "configuration"), unknown
    assert refusal(create(configuration=inactive.id))[0::2] == (400, "configuration")
    for flow in ("subscription_cancel", "subscription_update", "subscription_update_confirm"):
        assert refusal(create(flow_data={"type": flow}))[0::2] == (400, "flow_data[type]"), flow
    assert refusal(create(configuration=no_updates.id, flow_data={"type": "payment_method_update"}))[0::2] == (
        400, "flow_data[type]",
    )
    status, _, param = refusal(
        create(flow_data={"type": "payment_method_update", "after_completion": {"type": "redirect"}})
    )
    assert status == 400 and param.startswith("flow_data[after_completion][redirect]"), param
    for locale in ("klingon", "fr_FR", "EN"):
        assert refusal(create(locale=locale))[0::2] == (400, "locale"), locale
    assert refusal(create(on_behalf_of="acct_" + "X" * 16))[0::2] == (400, "on_behalf_of")
    assert refusal(create(return_url="javascript:alert(1)"))[0::2] == (400, "return_url")

    assert client.v1.events.list(params={"type": "billing_portal.session.created"}).data == []


def test_sessions_need_the_secret_key(client, publishable, customer):
    with pytest.raises(stripe.PermissionError) as refused:
        publishable.v1.billing_portal.sessions.create(params={"customer": customer})
    assert refused.value.http_status == 403
    assert error_of(refused)["code"] == "secret_key_required"
    assert client.v1.events.list(params={"type": "billing_portal.session.created"}).data == []


def test_the_legacy_resource_api(purse, account, customer):
    stripe.api_key = account["secret_key"]
    stripe.api_base = purse.base
    try:
        configuration = stripe.billing_portal.Configuration.create(
            features={"payment_method_update": {"enabled": True}}, name="Legacy", default_return_url=DEFAULT_RETURN_URL,
        )
        assert isinstance(configuration, stripe.billing_portal.Configuration)
        assert configuration.id.startswith("bpc_") and configuration.name == "Legacy"
        assert stripe.billing_portal.Configuration.retrieve(configuration.id).name == "Legacy"
        modified = stripe.billing_portal.Configuration.modify(configuration.id, name="Legacy, renamed")
        assert modified.name == "Legacy, renamed"
        listed = stripe.billing_portal.Configuration.list(is_default=False)
        assert [c.id for c in listed.data] == [configuration.id]

        session = stripe.billing_portal.Session.create(customer=customer, configuration=configuration.id, locale="fr")
        assert isinstance(session, stripe.billing_portal.Session)
        SECRETS_SEEN.add(token_of(session))
        assert (session.customer, session.configuration, session.locale) == (customer, configuration.id, "fr")
        assert session.return_url == DEFAULT_RETURN_URL
        assert session.url.startswith(purse.base + "/p/session/" + session.id + "/")
    finally:
        stripe.api_base = "https://api.stripe.com"
        stripe.api_key = None


def test_events_record_configurations_and_sessions(client, customer):
    configuration = configure(client, name="Events")
    client.v1.billing_portal.configurations.update(configuration.id, params={"name": "Events, renamed"})
    session = create_session(client, customer, configuration=configuration.id, return_url=RETURN_URL, locale="fr")

    (created,) = events_of(client, "billing_portal.configuration.created", configuration.id)
    assert created.data.object["name"] == "Events"
    (updated,) = events_of(client, "billing_portal.configuration.updated", configuration.id)
    assert updated.data.object["name"] == "Events, renamed"
    assert updated.data.previous_attributes["name"] == "Events"

    (opened,) = events_of(client, "billing_portal.session.created", session.id)
    shown = opened.data.object.to_dict()
    assert shown["url"] is None  # the URL opens the customer's pages: only the creating answer has it
    assert {k: v for k, v in shown.items() if k != "url"} == {k: v for k, v in session.to_dict().items() if k != "url"}
    assert client.v1.events.retrieve(opened.id).data.object["url"] is None
    everything = json.dumps([event.to_dict() for event in client.v1.events.list(params={"limit": 100}).data])
    assert token_of(session) not in everything


def test_revoke_credentials_closes_the_customers_portal_sessions(client, customer, other_customer):
    first = create_session(client, customer)
    visited = create_session(client, customer)
    bystander = create_session(client, other_customer)
    page = open_page(visited.url)
    assert page.status == 200
    add_page = card_form(open_page(visited.url + "/add?type=card"))

    revocation = revoke_credentials(client, customer)
    assert (revocation.object, revocation.customer) == ("credential_revocation", customer)
    assert revocation.billing_portal_sessions_revoked == 2
    assert (revocation.ephemeral_keys_revoked, revocation.customer_sessions_revoked) == (0, 0)

    for session in (first, visited):
        closed = open_page(session.url)
        assert closed.status == 404, session.id
        assert closed.content_type.startswith("text/html")
        assert EXPIRED in closed.text
        assert "add-payment-method" not in closed.ids
    # A form the customer still had open is refused too, and saves nothing.
    assert post_form(add_page, add_page.form("add-form"), CARD_VALUES).status_code == 404
    assert attached_ids(client, customer) == []

    assert open_page(bystander.url).status == 200
    assert open_page(create_session(client, customer).url).status == 200  # a new session works
    assert revoke_credentials(client, customer).billing_portal_sessions_revoked == 1


def test_a_deleted_customers_portal_is_closed(client, customer):
    session = create_session(client, customer)
    assert open_page(session.url).status == 200
    client.v1.customers.delete(customer)
    closed = open_page(session.url)
    assert closed.status == 404 and EXPIRED in closed.text


def test_a_wrong_token_or_session_is_not_found(client, customer):
    session = create_session(client, customer)
    token = token_of(session)
    forged = session.url[: -len(token)] + token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    unknown = session.url.replace(session.id, "bps_" + "X" * 24)
    other = create_session(client, customer)
    swapped = session.url.replace(session.id, other.id)  # a real session with another session's token
    for url in (forged, unknown, swapped, session.url.rsplit("/", 1)[0]):
        closed = open_page(url)
        assert closed.status == 404, url
        assert "add-payment-method" not in closed.ids and "payment-methods" not in closed.ids
    assert open_page(session.url).status == 200


# The pages, as a browser without script sees them


class _Elements(html.parser.HTMLParser):
    """Every element of a page: tag, attributes, its text (with its descendants') and the elements
    it is inside, for what html_forms.parse does not keep (a list item's data attributes, an input's
    autocomplete, which list item a badge is in, labels)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self._open = []

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": {name: value or "" for name, value in attrs}, "text": "",
                   "parents": list(self._open)}
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_endtag(self, tag):
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index]["tag"] == tag:
                del self._open[index:]
                return

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data


class Page:
    """A portal page as the browser got it: status, headers, text, forms (html_forms), elements."""

    def __init__(self, url, response):
        self.url = url
        self.response = response
        self.status = response.status_code
        self.content_type = response.headers.get("Content-Type", "")
        read = parse(response.text)
        self.forms, self.links, self.ids, self.text = read.forms, read.links, read.ids, read.text
        elements = _Elements()
        elements.feed(response.text)
        elements.close()
        self.elements = elements.elements

    @property
    def location(self):
        location = self.response.headers.get("Location")
        return None if location is None else urllib.parse.urljoin(self.url, location)

    def by_id(self, element_id):
        return next((e for e in self.elements if e["attrs"].get("id") == element_id), None)

    def text_of(self, element_id):
        element = self.by_id(element_id)
        return None if element is None else " ".join(element["text"].split())

    def items(self):
        """The listed methods: {pm id: the element of its <li class="payment-method">}."""
        return {
            e["attrs"]["data-payment-method"]: e for e in self.elements
            if e["tag"] == "li" and "payment-method" in e["attrs"].get("class", "").split()
            and "data-payment-method" in e["attrs"]
        }

    def form(self, form_id=None, action_suffix=None):
        """A form by its id (found through the elements, in document order) or by the end of its
        resolved action."""
        forms = [e for e in self.elements if e["tag"] == "form"]
        for element, form in zip(forms, self.forms):
            action = urllib.parse.urljoin(self.url, form["action"] or "")
            if form_id and element["attrs"].get("id") == form_id:
                return form
            if action_suffix and action.endswith(action_suffix):
                return form
        return None

    def actions(self):
        return [urllib.parse.urljoin(self.url, form["action"] or "") for form in self.forms]


BROWSER = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0 Safari/537.36",
    "Accept": "text/html,application/xhtml+xml", "Accept-Language": "en-US,en;q=0.9",
}


def open_page(url):
    return Page(url, requests.get(url, headers=BROWSER, allow_redirects=False, timeout=30))


def origin_of(url):
    return "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))


def card_form(page):
    """The add form for a card: `page` when it has one, else the page its card type choice leads to."""
    if page.by_id("card_number") is not None:
        return page
    choice = next((link for link in page.links if re.search(r"[?&]type=card(?:&|$)", link["href"])), None)
    assert choice is not None, f"no card form nor card choice on {page.url}: {page.text[:300]}"
    return card_form(open_page(urllib.parse.urljoin(page.url, choice["href"])))


def post_form(page, form, values=None, drop=(), headers=None):
    """Posts `form` of `page` as a browser does (its fields, `values` typed in), less the fields
    named in `drop`, with a same-origin browser's headers updated by `headers` (None removes one).
    The card data typed is registered in SENT_CARD_DATA."""
    assert form is not None, f"no such form on {page.url}"
    assert form["method"] == "post"
    fields = [(name, value) for name, value in form_fields(form, values) if name not in drop]
    for name, value in fields:
        if name == "card_number" and value:
            SENT_CARD_DATA.card_numbers.add(value)
        if name == "card_cvc" and value:
            SENT_CARD_DATA.cvcs.add(value)
    sent = dict(BROWSER, **{
        "Content-Type": "application/x-www-form-urlencoded", "Origin": origin_of(page.url),
        "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document",
    })
    for name, value in (headers or {}).items():
        if value is None:
            sent.pop(name, None)
        else:
            sent[name] = value
    target = urllib.parse.urljoin(page.url, form["action"] or "")
    return requests.post(target, data=urllib.parse.urlencode(fields), headers=sent, allow_redirects=False, timeout=30)


def csp_directives(response):
    return {
        part.split()[0].lower(): part.split()[1:]
        for part in (piece.strip() for piece in response.headers["Content-Security-Policy"].split(";")) if part
    }


def test_the_page_is_html_with_its_protections(client, customer):
    session = create_session(client, customer, return_url=RETURN_URL)
    page = open_page(session.url)
    assert page.status == 200
    assert page.content_type.startswith("text/html")
    directives = csp_directives(page.response)
    assert directives["default-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert "frame-ancestors 'none'" in page.response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in page.response.headers["Content-Security-Policy"]
    html_element = next(e for e in page.elements if e["tag"] == "html")
    assert html_element["attrs"].get("lang") == "en"
    assert " ".join(next(e for e in page.elements if e["tag"] == "h1")["text"].split()) == "Payment methods"
    assert "no-payment-methods" in page.ids and page.items() == {}
    links = {link["id"]: urllib.parse.urljoin(page.url, link["href"]) for link in page.links if link["id"]}
    assert links["add-payment-method"] == session.url + "/add"
    assert links["return-link"] == RETURN_URL
    # No third-party anything: every link and form stays on the page's origin, but the way back.
    assert all(origin_of(action) == origin_of(session.url) for action in page.actions())


def test_the_add_form_saves_a_card(purse, client, customer):
    session = create_session(client, customer)
    page = card_form(open_page(session.url + "/add?type=card"))
    assert page.status == 200
    form = page.form("add-form")
    assert form is not None
    assert urllib.parse.urljoin(page.url, form["action"]) == session.url + "/payment_methods"
    hidden = {c["name"]: c["value"] for c in form["controls"] if c["tag"] == "input" and c["type"] == "hidden"}
    assert hidden.get("type") == "card" and hidden.get("csrf_token")
    for field, autocomplete in [("card_number", "cc-number"), ("card_expiry", "cc-exp"), ("card_cvc", "cc-csc")]:
        element = page.by_id(field)
        assert element is not None and element["tag"] == "input", field
        assert element["attrs"].get("name") == field and element["attrs"].get("autocomplete") == autocomplete, field
        assert element["attrs"].get("value", "") == ""
    assert page.by_id("card_number")["attrs"].get("inputmode") == "numeric"
    labelled = {e["attrs"].get("for") for e in page.elements if e["tag"] == "label"}
    unlabelled = [
        e["attrs"].get("id") or e["attrs"].get("name") for e in page.elements
        if e["tag"] in ("input", "select", "textarea") and e["attrs"].get("type") not in ("hidden", "submit")
        and e["attrs"].get("id") not in labelled
    ]
    assert unlabelled == []
    assert page.by_id("make_default") is not None and "checked" in page.by_id("make_default")["attrs"]
    save = page.by_id("save")
    assert save is not None and save["tag"] == "button" and save["attrs"].get("type") == "submit"

    answer = post_form(page, form, CARD_VALUES)
    assert answer.status_code == 303, answer.text[:500]
    assert urllib.parse.urljoin(answer.url, answer.headers["Location"]) == session.url + "?done=added"

    (method,) = client.v1.customers.payment_methods.list(customer).data
    assert (method.type, method.card.last4, method.card.exp_month, method.card.exp_year) == ("card", "4242", 12, 2034)
    assert default_of(client, customer) == method.id  # make_default was checked: the customer had no default

    done = open_page(session.url + "?done=added")
    assert done.text_of("notice") == "Payment method added."
    assert done.by_id("notice")["attrs"].get("role") == "status"
    assert list(done.items()) == [method.id]
    shown = " ".join(done.items()[method.id]["text"].split())
    assert "Visa •••• 4242" in shown and "Expires 12/34" in shown
    badge = done.by_id("default-badge")
    assert badge is not None and " ".join(badge["text"].split()) == "Default"
    assert done.items()[method.id] in badge["parents"]
    assert VISA not in done.response.text and VISA not in answer.text


def test_form_posts_need_the_token_and_the_pages_own_origin(client, customer):
    """A cross-site form cannot know the session's csrf_token, and a browser says where a post
    comes from: without the token, with a wrong one, cross-site or from another origin, the post
    is refused with 403 and changes nothing; the same post, as the page sends it, works."""
    session = create_session(client, customer)
    page = card_form(open_page(session.url + "/add?type=card"))
    form = page.form("add-form")
    wrong_token = {"csrf_token": "A" * 32}
    for attempt, arguments in {
        "no token": {"drop": ("csrf_token",)},
        "wrong token": {"values": {**CARD_VALUES, **wrong_token}},
        "cross-site": {"headers": {"Sec-Fetch-Site": "cross-site"}},
        "other origin": {"headers": {"Origin": "http://127.0.0.1:9", "Sec-Fetch-Site": None}},
    }.items():
        arguments.setdefault("values", CARD_VALUES)
        answer = post_form(page, form, **arguments)
        assert answer.status_code == 403, attempt
        assert answer.headers.get("Content-Type", "").startswith("text/html"), attempt
        assert attached_ids(client, customer) == [], attempt

    # The make-default and remove forms are guarded the same way.
    first, second = saved_card(client, customer), saved_card(client, customer, "pm_card_mastercard")
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": first}})
    listing = open_page(session.url)
    make_default = listing.form(action_suffix=f"/payment_methods/{second}/default")
    remove = listing.form(action_suffix=f"/payment_methods/{second}/remove")
    assert make_default is not None and remove is not None
    for form in (make_default, remove):
        assert post_form(listing, form, drop=("csrf_token",)).status_code == 403
        assert post_form(listing, form, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert sorted(attached_ids(client, customer)) == sorted([first, second])
    assert default_of(client, customer) == first

    saved = post_form(page, form=page.form("add-form"), values=CARD_VALUES)
    assert saved.status_code == 303
    assert len(attached_ids(client, customer)) == 3


def test_make_default_and_remove_through_the_pages(client, customer):
    first, second = saved_card(client, customer), saved_card(client, customer, "pm_card_mastercard")
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": first}})
    session = create_session(client, customer)
    page = open_page(session.url)
    assert set(page.items()) == {first, second}
    assert page.items()[first] in page.by_id("default-badge")["parents"]
    # The default is not removable while another method remains; the other one is.
    assert page.form(action_suffix=f"/payment_methods/{first}/remove") is None
    assert page.form(action_suffix=f"/payment_methods/{first}/default") is None

    answer = post_form(page, page.form(action_suffix=f"/payment_methods/{second}/default"))
    assert answer.status_code == 303 and urllib.parse.urljoin(answer.url, answer.headers["Location"]) == (
        session.url + "?done=default"
    )
    assert default_of(client, customer) == second
    page = open_page(session.url + "?done=default")
    assert page.text_of("notice") == "Default payment method updated."
    assert page.items()[second] in page.by_id("default-badge")["parents"]

    answer = post_form(page, page.form(action_suffix=f"/payment_methods/{first}/remove"))
    assert answer.status_code == 303 and urllib.parse.urljoin(answer.url, answer.headers["Location"]) == (
        session.url + "?done=removed"
    )
    assert attached_ids(client, customer) == [second]
    assert client.v1.payment_methods.retrieve(first).customer is None
    page = open_page(session.url + "?done=removed")
    assert page.text_of("notice") == "Payment method removed."
    assert list(page.items()) == [second]
    # The last method, the default, may be removed.
    assert page.form(action_suffix=f"/payment_methods/{second}/remove") is not None


def test_another_customers_method_is_not_found_through_a_session(client, customer, other_customer):
    """Customer A's session cannot reach customer B's method: both actions answer 404, and
    nothing of either customer changes."""
    mine = saved_card(client, customer)
    theirs = saved_card(client, other_customer, "pm_card_mastercard")
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": mine}})
    client.v1.customers.update(other_customer, params={"invoice_settings": {"default_payment_method": theirs}})
    session = create_session(client, customer)
    page = open_page(session.url)
    assert list(page.items()) == [mine] and theirs not in page.response.text
    own_form = page.form(action_suffix=f"/payment_methods/{mine}/remove")
    assert own_form is not None  # its csrf_token is the session's, valid for any of its posts

    for action in ("default", "remove"):
        forged = dict(own_form, action=f"{session.url}/payment_methods/{theirs}/{action}")
        answer = post_form(page, forged)
        assert answer.status_code == 404, action
    assert client.v1.payment_methods.retrieve(theirs).customer == other_customer
    assert default_of(client, other_customer) == theirs
    assert default_of(client, customer) == mine
    assert attached_ids(client, customer) == [mine]


def test_a_configuration_without_payment_method_update_offers_no_changes(client, customer):
    saved_card(client, customer)
    saved_card(client, customer, "pm_card_mastercard")
    read_only = configure(client, payment_method_update=False)
    page = open_page(create_session(client, customer, configuration=read_only.id).url)
    assert page.status == 200 and len(page.items()) == 2
    assert "add-payment-method" not in page.ids
    assert [a for a in page.actions() if re.search(r"/payment_methods(/|$)", a)] == []


@pytest.mark.parametrize("after_completion", ["redirect", "hosted_confirmation", "portal_homepage"])
def test_a_flow_session_adds_a_method_makes_it_the_default_and_finishes(client, customer, after_completion):
    existing = saved_card(client, customer, "pm_card_mastercard")
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": existing}})
    redirect = "https://merchant.example/updated?order=42"
    message = "Thanks, Jenny: your new card is saved."
    completion = {
        "redirect": {"type": "redirect", "redirect": {"return_url": redirect}},
        "hosted_confirmation": {"type": "hosted_confirmation", "hosted_confirmation": {"custom_message": message}},
        "portal_homepage": {"type": "portal_homepage"},
    }[after_completion]
    session = create_session(
        client, customer, return_url=RETURN_URL,
        flow_data={"type": "payment_method_update", "after_completion": completion},
    )
    opened = open_page(session.url)
    assert opened.status == 200
    assert " ".join(next(e for e in opened.elements if e["tag"] == "h1")["text"].split()) == "Add a payment method"
    page = card_form(opened)
    assert page.by_id("make_default") is None  # in a flow the new method becomes the default anyway

    answer = post_form(page, page.form("add-form"), CARD_VALUES)
    assert answer.status_code == 303, answer.text[:500]
    location = urllib.parse.urljoin(answer.url, answer.headers["Location"])
    added = [m for m in client.v1.customers.payment_methods.list(customer).data if m.id != existing]
    assert len(added) == 1 and added[0].card.last4 == "4242"
    assert default_of(client, customer) == added[0].id

    if after_completion == "redirect":
        assert location == redirect
    elif after_completion == "hosted_confirmation":
        assert location == session.url + "/done"
        done = open_page(location)
        assert done.status == 200
        assert " ".join(next(e for e in done.elements if e["tag"] == "h1")["text"].split()) == "Payment method saved"
        assert done.text_of("custom-message") == message
        assert any(link["id"] == "return-link" and link["href"] == RETURN_URL for link in done.links)
    else:
        assert location == session.url + "?done=added"
        home = open_page(session.url)  # the flow is done: the session now opens on its payment methods
        assert set(home.items()) == {existing, added[0].id}


def test_the_url_token_is_neither_logged_nor_kept(purse, client, customer):
    """The URL's token opens a customer's pages, and the session's answer is the only place it is
    shown: the server's log records the requests to the pages with the token masked, as it does the
    authentication page's, and nothing the API shows later (the setup intent the add form
    confirmed, the events) carries it. test_zz_card_data.py also checks the database and the data
    folder, from SECRETS_SEEN."""
    session = create_session(client, customer)
    token = token_of(session)
    page = card_form(open_page(session.url + "/add?type=card"))
    assert post_form(page, page.form("add-form"), drop=("csrf_token",)).status_code == 403
    assert post_form(page, page.form("add-form"), CARD_VALUES).status_code == 303
    assert open_page(session.url).status == 200
    log = purse.log_text()
    assert "/p/session/" in log, "the log must record the page's requests, or the check proves nothing"
    assert token not in log

    intents = client.v1.setup_intents.list(params={"customer": customer}).data
    assert intents, "the add form saves through a setup intent, or the check proves nothing"
    assert token not in json.dumps([intent.to_dict() for intent in intents])
    events = client.v1.events.list(params={"limit": 100}).data
    assert token not in json.dumps([event.to_dict() for event in events])
