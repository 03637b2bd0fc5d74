"""Customers through stripe-python: CRUD, list, pagination, auth errors, idempotency."""
import threading
import uuid

import pytest
import stripe


def test_customer_crud(client):
    customer = client.v1.customers.create(params={
        "email": "jenny.rosen@example.com",
        "name": "Jenny Rosen",
        "metadata": {"order_id": "6735"},
        "address": {"line1": "1 Main St", "city": "Berlin", "country": "DE"},
        "preferred_locales": ["de", "en"],
    })
    assert customer.id.startswith("cus_")
    assert customer.object == "customer"
    assert customer.email == "jenny.rosen@example.com"
    assert customer.metadata["order_id"] == "6735"
    assert customer.address.city == "Berlin"
    assert customer.phone is None
    assert customer.livemode is False
    assert customer.invoice_settings.default_payment_method is None

    fetched = client.v1.customers.retrieve(customer.id)
    assert fetched.id == customer.id and fetched.name == "Jenny Rosen"

    updated = client.v1.customers.update(customer.id, params={"name": "Jenny R.", "metadata": {"tier": "gold"}})
    assert updated.name == "Jenny R."
    assert updated.email == "jenny.rosen@example.com"
    assert updated.metadata.to_dict() == {"order_id": "6735", "tier": "gold"}

    unset = client.v1.customers.update(customer.id, params={"name": "", "metadata": {"order_id": ""}})
    assert unset.name is None
    assert unset.metadata.to_dict() == {"tier": "gold"}

    deleted = client.v1.customers.delete(customer.id)
    assert deleted.id == customer.id and deleted.deleted is True
    assert client.v1.customers.retrieve(customer.id).deleted is True
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.customers.delete(customer.id)
    assert error.value.http_status == 404
    assert error.value.code == "resource_missing"


def test_list_filters_and_auto_paging(client):
    ids = [client.v1.customers.create(params={"email": "same@example.com"}).id for _ in range(7)]
    client.v1.customers.create(params={"email": "other@example.com"})
    page = client.v1.customers.list(params={"email": "same@example.com", "limit": 3})
    assert page.object == "list" and page.has_more is True and page.url == "/v1/customers"
    assert [c.id for c in page.data] == list(reversed(ids))[:3]
    everything = [c.id for c in page.auto_paging_iter()]
    assert everything == list(reversed(ids))


def test_expand_on_retrieve(client):
    customer = client.v1.customers.create()
    expanded = client.v1.customers.retrieve(customer.id, params={"expand": ["invoice_settings.default_payment_method"]})
    assert expanded.invoice_settings.default_payment_method is None
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.customers.retrieve(customer.id, params={"expand": ["nothing"]})
    assert error.value.param == "expand"


def test_unknown_parameters_are_refused(client):
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.customers.create(params={"emial": "typo@example.com"})
    assert error.value.http_status == 400
    assert error.value.param == "emial"
    assert error.value.code == "parameter_unknown"


def test_authentication_errors(purse, account):
    with pytest.raises(stripe.AuthenticationError) as error:
        purse.client("sk_test_" + "0" * 40 + "abcd", max_network_retries=0).v1.customers.list()
    assert error.value.http_status == 401
    assert "sk_test_" in str(error.value) and "abcd" in str(error.value)
    with pytest.raises(stripe.PermissionError) as denied:
        purse.client(account["publishable_key"], max_network_retries=0).v1.customers.list()
    assert denied.value.http_status == 403
    assert denied.value.error.code == "secret_key_required"


def test_idempotent_replay_and_mismatch(client):
    key = str(uuid.uuid4())
    first = client.v1.customers.create(params={"name": "Once"}, options={"idempotency_key": key})
    again = client.v1.customers.create(params={"name": "Once"}, options={"idempotency_key": key})
    assert again.id == first.id
    assert again.last_response.headers.get("Idempotent-Replayed") == "true"
    with pytest.raises(stripe.IdempotencyError):
        client.v1.customers.create(params={"name": "Twice"}, options={"idempotency_key": key})


def test_sdk_retries_are_replayed(purse, account):
    """stripe-python sends an idempotency key on every POST and retries 409s: concurrent
    duplicates end as one customer."""
    retrying = purse.client(account["secret_key"], max_network_retries=5)
    key = str(uuid.uuid4())
    results = []

    def create():
        results.append(retrying.v1.customers.create(params={"name": "Racer"}, options={"idempotency_key": key}).id)

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8 and len(set(results)) == 1
    racers = [c for c in retrying.v1.customers.list(params={"limit": 100}).data if c.name == "Racer"]
    assert len(racers) == 1


def test_events_record_changes(client):
    customer = client.v1.customers.create(params={"email": "events@example.com"})
    client.v1.customers.update(customer.id, params={"email": "changed@example.com"})
    events = client.v1.events.list(params={"type": "customer.updated"})
    assert len(events.data) == 1
    event = events.data[0]
    assert event.data.object["id"] == customer.id
    assert event.data.previous_attributes["email"] == "events@example.com"
    assert client.v1.events.retrieve(event.id).id == event.id
