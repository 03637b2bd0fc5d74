"""Webhook endpoints and signed deliveries through stripe-python: endpoints managed with the SDK,
every delivery received by a real HTTP endpoint in the test and verified with stripe-python's own
`stripe.Webhook.construct_event`, as a merchant's endpoint does. The tests that depend on which
servers deliver (retries, timeouts, a restart, two servers) get a database of their own, so that
the session's server, which delivers too, cannot take part."""
import collections
import http.server
import json
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest
import stripe

from conftest import Server, psql, purse_binary


class Receiver:
    """A merchant's webhook endpoint: an HTTP server on 127.0.0.1 (any free port) that checks each
    request (a JSON body with a Content-Length, not chunked, a valid `Stripe-Signature` for
    `secret`), keeps the verified ones in `deliveries`, and answers `answer(event, attempt)`, where
    `attempt` counts earlier requests for the same event. While `gate` is clear, verified requests
    are kept waiting before they are answered. Anything wrong goes to `problems` (and a 400)."""

    Delivery = collections.namedtuple("Delivery", "event headers body timestamp received")

    def __init__(self, answer=None):
        self.secret = None
        self.answer = answer or (lambda event, attempt: 200)
        self.gate = threading.Event()
        self.gate.set()
        self.deliveries = []
        self.problems = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                receiver.handle(self)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/stripe"

    def handle(self, request):
        problems = []
        if request.path != "/hooks/stripe":
            problems.append(f"posted to {request.path}")
        if request.headers.get("Transfer-Encoding"):
            problems.append(f"Transfer-Encoding: {request.headers['Transfer-Encoding']}")
        if not (request.headers.get("Content-Type") or "").startswith("application/json"):
            problems.append(f"Content-Type: {request.headers.get('Content-Type')}")
        length = request.headers.get("Content-Length")
        if length is None:
            problems.append("no Content-Length")
            request.close_connection = True
            return self.reply(request, 411, problems)
        body = request.rfile.read(int(length))
        signature = request.headers.get("Stripe-Signature")
        try:
            stripe.Webhook.construct_event(body, signature, self.secret)
        except (stripe.SignatureVerificationError, ValueError) as error:
            problems.append(f"not verified: {error!r}")
        if problems:
            return self.reply(request, 400, problems)
        event = json.loads(body)
        timestamp = int(re.match(r"t=(\d+),", signature).group(1))
        with self.lock:
            attempt = sum(1 for delivery in self.deliveries if delivery.event["id"] == event["id"])
            self.deliveries.append(Receiver.Delivery(event, dict(request.headers), body, timestamp, time.time()))
        self.gate.wait()
        self.reply(request, self.answer(event, attempt))

    def reply(self, request, status, problems=()):
        if problems:
            with self.lock:
                self.problems.extend(problems)
        request.send_response(status)
        request.send_header("Content-Length", "0")
        request.end_headers()

    def events(self):
        with self.lock:
            return [delivery.event for delivery in self.deliveries]

    def ids(self):
        return [event["id"] for event in self.events()]

    def close(self):
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receivers():
    """Makes Receivers, each closed after the test."""
    made = []

    def make(**options):
        receiver = Receiver(**options)
        made.append(receiver)
        return receiver

    yield make
    for receiver in made:
        receiver.close()
        assert receiver.problems == [], "the receiver got requests a merchant's endpoint would refuse"


def eventually(condition, what, timeout=10.0):
    """Polls `condition` until it returns something true, and returns that; fails after `timeout`
    seconds saying what it waited for."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout} s for {what}")
        time.sleep(0.05)


def listen(client, receiver, events=("*",), **params):
    """A webhook endpoint for `receiver`, which learns the endpoint's signing secret."""
    endpoint = client.v1.webhook_endpoints.create(
        params={"url": receiver.url, "enabled_events": list(events), **params}
    )
    receiver.secret = endpoint.secret
    return endpoint


def attempts(client, endpoint):
    """`GET /v1/webhook_endpoints/{id}/deliveries` (Purse's own, so no SDK method): newest first."""
    response = client.raw_request("get", f"/v1/webhook_endpoints/{endpoint}/deliveries", limit=100)
    return client.deserialize(response, api_mode="V1").data


def event_ids(client):
    return {event.id for event in client.v1.events.list(params={"limit": 100}).auto_paging_iter()}


def deliveries_by_state(server, endpoint):
    """The endpoint's rows in the delivery queue, counted by state."""
    rows = psql(
        server, "SELECT state, count(*) FROM webhook_deliveries WHERE endpoint_id = :'endpoint' GROUP BY state",
        endpoint=endpoint,
    )
    return {state: int(count) for state, count in (line.split("|") for line in rows.split())}


def dead_url():
    """An http URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/gone"


def listening(server):
    try:
        with urllib.request.urlopen(server.base + "/healthz", timeout=2):
            return True
    except (urllib.error.URLError, ConnectionError):
        return False


# MARK: - Endpoints


def test_endpoint_crud(client):
    endpoint = client.v1.webhook_endpoints.create(params={
        "url": "https://hooks.example.com/stripe",
        "enabled_events": ["customer.created", "payment_method.attached"],
        "description": "Orders",
        "metadata": {"team": "payments"},
    })
    assert endpoint.id.startswith("we_") and endpoint.object == "webhook_endpoint"
    assert re.fullmatch(r"whsec_[A-Za-z0-9]{24,}", endpoint.secret)
    assert endpoint.status == "enabled" and endpoint.livemode is False
    assert endpoint.enabled_events == ["customer.created", "payment_method.attached"]
    assert endpoint.url == "https://hooks.example.com/stripe"
    assert endpoint.description == "Orders" and endpoint.metadata.to_dict() == {"team": "payments"}

    fetched = client.v1.webhook_endpoints.retrieve(endpoint.id)
    assert fetched.url == endpoint.url and fetched.created == endpoint.created
    assert "secret" not in fetched, "the signing secret is shown on create only"

    updated = client.v1.webhook_endpoints.update(endpoint.id, params={
        "url": "https://hooks.example.com/v2", "enabled_events": ["*"], "disabled": True,
        "description": "", "metadata": {"team": "", "tier": "gold"},
    })
    assert updated.url == "https://hooks.example.com/v2" and updated.enabled_events == ["*"]
    assert updated.status == "disabled" and updated.description is None
    assert updated.metadata.to_dict() == {"tier": "gold"}
    assert client.v1.webhook_endpoints.update(endpoint.id, params={"disabled": False}).status == "enabled"

    second = client.v1.webhook_endpoints.create(params={"url": "http://127.0.0.1:9/local", "enabled_events": ["*"]})
    assert second.secret != endpoint.secret
    page = client.v1.webhook_endpoints.list(params={"limit": 1})
    assert [e.id for e in page.data] == [second.id] and page.has_more is True and page.url == "/v1/webhook_endpoints"
    assert [e.id for e in page.auto_paging_iter()] == [second.id, endpoint.id]

    deleted = client.v1.webhook_endpoints.delete(endpoint.id)
    assert deleted.id == endpoint.id and deleted.deleted is True
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.webhook_endpoints.retrieve(endpoint.id)
    assert missing.value.http_status == 404 and missing.value.code == "resource_missing"
    assert [e.id for e in client.v1.webhook_endpoints.list().data] == [second.id]


def test_endpoint_crud_with_resource_classes(purse, account, monkeypatch):
    """The older `stripe.WebhookEndpoint` interface, with the key on each call."""
    monkeypatch.setattr(stripe, "api_base", purse.base)
    monkeypatch.setattr(stripe, "max_network_retries", 0)
    key = account["secret_key"]
    endpoint = stripe.WebhookEndpoint.create(
        api_key=key, url="https://hooks.example.com/a", enabled_events=["setup_intent.succeeded"]
    )
    assert endpoint.secret.startswith("whsec_")
    assert stripe.WebhookEndpoint.retrieve(endpoint.id, api_key=key).enabled_events == ["setup_intent.succeeded"]
    modified = stripe.WebhookEndpoint.modify(endpoint.id, api_key=key, disabled=True, metadata={"k": "v"})
    assert modified.status == "disabled" and modified.metadata["k"] == "v"
    assert [e.id for e in stripe.WebhookEndpoint.list(api_key=key).data] == [endpoint.id]
    assert stripe.WebhookEndpoint.delete(endpoint.id, api_key=key).deleted is True
    assert stripe.WebhookEndpoint.list(api_key=key).data == []


@pytest.mark.parametrize("params, param", [
    ({"url": "not a url", "enabled_events": ["*"]}, "url"),
    ({"url": "ftp://hooks.example.com/x", "enabled_events": ["*"]}, "url"),
    ({"url": "/relative", "enabled_events": ["*"]}, "url"),
    ({"enabled_events": ["*"]}, "url"),
    ({"url": "https://hooks.example.com/x", "enabled_events": ["customer.exploded"]}, "enabled_events[0]"),
    ({"url": "https://hooks.example.com/x", "enabled_events": ["*", "charge.succeeded"]}, "enabled_events[1]"),
    ({"url": "https://hooks.example.com/x"}, "enabled_events"),
    ({"url": "https://hooks.example.com/x", "enabled_events": ["*"], "api_version": "yesterday"}, "api_version"),
])
def test_invalid_endpoints_are_refused(client, params, param):
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.webhook_endpoints.create(params=params)
    assert error.value.http_status == 400
    assert error.value.error.type == "invalid_request_error"
    assert error.value.param == param
    assert client.v1.webhook_endpoints.list().data == []


def test_invalid_updates_are_refused(client):
    endpoint = client.v1.webhook_endpoints.create(
        params={"url": "https://hooks.example.com/x", "enabled_events": ["*"]}
    )
    for params, param in [
        ({"url": "mailto:someone@example.com"}, "url"),
        ({"enabled_events": ["customer.created", "customer.exploded"]}, "enabled_events[1]"),
    ]:
        with pytest.raises(stripe.InvalidRequestError) as error:
            client.v1.webhook_endpoints.update(endpoint.id, params=params)
        assert error.value.http_status == 400 and error.value.param == param
    unchanged = client.v1.webhook_endpoints.retrieve(endpoint.id)
    assert unchanged.url == "https://hooks.example.com/x" and unchanged.enabled_events == ["*"]
    with pytest.raises(stripe.InvalidRequestError) as missing:
        attempts(client, "we_" + "0" * 24)
    assert missing.value.http_status == 404 and missing.value.code == "resource_missing"


# Loopback in every spelling a connection reads as loopback, the rest of the non-public space, and
# special-use names: all refused in the https-only mode.
NOT_PUBLIC = [
    "https://127.0.0.1/x", "https://localhost/x", "https://10.1.2.3/x", "https://192.168.0.7/x", "https://[::1]/x",
    "https://localhost./x", "https://[0:0:0:0:0:0:0:1]/x", "https://[::]/x", "https://2130706433/x", "https://0x7f000001/x",
    "https://0x7f.0.0.1/x", "https://0177.0.0.1/x", "https://127.1/x", "https://017700000001/x",
    "https://[::ffff:127.0.0.1]/x", "https://[::ffff:7f00:1]/x", "https://169.254.169.254/latest/meta-data/",
    "https://100.64.0.1/x", "https://[fd00::1]/x", "https://[fe80::1]/x", "https://[64:ff9b::7f00:1]/x",
    "https://api.localhost/x", "https://printer.local/x", "https://db.internal/x", "https://nas.home.arpa/x",
    "https://x.test/x", "https://x.invalid./x",
]


def test_https_only_setting(purse, account):
    with purse.sibling("--webhook-require-https") as strict:
        client = strict.client(account["secret_key"], max_network_retries=0)
        for url in ["http://hooks.example.com/x", *NOT_PUBLIC]:
            with pytest.raises(stripe.InvalidRequestError) as error:
                client.v1.webhook_endpoints.create(params={"url": url, "enabled_events": ["*"]})
            assert error.value.param == "url", url
            assert "resolves" not in error.value.user_message, "the refusal says nothing of what a name resolved to"
        assert client.v1.webhook_endpoints.create(
            params={"url": "https://hooks.example.com/x", "enabled_events": ["*"]}
        ).url == "https://hooks.example.com/x"


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_https_only_setting_with_allowed_hosts(purse, account, how):
    allowed = "localhost, 127.0.0.1/32,[::1]"
    if how == "flag":
        server = purse.sibling("--webhook-require-https", "--webhook-allowed-hosts", allowed)
    else:
        env = dict(purse.env, PURSE_WEBHOOK_REQUIRE_HTTPS="1", PURSE_WEBHOOK_ALLOWED_HOSTS=allowed)
        server = Server(None, purse.data, env, purse.log, database=purse.database).sibling()
    with server as strict:
        client = strict.client(account["secret_key"], max_network_retries=0)
        for url in ["https://localhost:8443/x", "https://127.0.0.1/x", "https://2130706433/x", "https://[::1]/x",
                    "https://[::ffff:127.0.0.1]/x"]:
            assert client.v1.webhook_endpoints.create(params={"url": url, "enabled_events": ["*"]}).url == url
        for url in ["http://localhost/x", "https://127.0.0.2/x", "https://10.1.2.3/x", "https://api.localhost/x"]:
            with pytest.raises(stripe.InvalidRequestError) as error:
                client.v1.webhook_endpoints.create(params={"url": url, "enabled_events": ["*"]})
            assert error.value.param == "url", url


def test_a_bad_allowed_host_stops_the_server(purse):
    result = subprocess.run(
        [purse_binary(), "serve", "--port", "0", "--webhook-allowed-hosts", "localhost,*.example.com"],
        env=purse.env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode != 0
    assert "'*.example.com' is neither" in result.stderr


# MARK: - Delivery


def test_a_delivery_verifies_with_stripe_python(client, receivers):
    receiver = receivers()
    endpoint = listen(client, receiver)
    before = time.time()
    customer = client.v1.customers.create(params={"email": "hooks@example.com", "name": "Zoë Ångström 🧾"})
    [delivery] = eventually(lambda: receiver.deliveries, "the customer.created delivery", timeout=5)
    assert delivery.received - before < 5

    event = delivery.event
    assert event["type"] == "customer.created" and event["data"]["object"]["id"] == customer.id
    assert delivery.headers["Content-Length"] == str(len(delivery.body))
    assert "Transfer-Encoding" not in delivery.headers
    assert abs(delivery.timestamp - time.time()) < 60
    # The body is the event as the API shows it; pending_webhooks counted this delivery then.
    shown = json.loads(client.raw_request("get", f"/v1/events/{event['id']}").body)
    assert event["pending_webhooks"] == 1
    assert {k: v for k, v in event.items() if k != "pending_webhooks"} == {
        k: v for k, v in shown.items() if k != "pending_webhooks"
    }
    verified = stripe.Webhook.construct_event(delivery.body, delivery.headers["Stripe-Signature"], endpoint.secret)
    assert verified.id == event["id"] and verified.data.object.name == "Zoë Ångström 🧾"

    # The verifier is not a formality: another secret or another body fails.
    other = client.v1.webhook_endpoints.create(params={"url": receiver.url, "enabled_events": ["customer.deleted"]})
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(delivery.body, delivery.headers["Stripe-Signature"], other.secret)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.Webhook.construct_event(
            delivery.body.replace(b"hooks@example.com", b"hook5@example.com"), delivery.headers["Stripe-Signature"],
            endpoint.secret,
        )

    [attempt] = eventually(lambda: attempts(client, endpoint.id), "the attempt to be listed")
    assert attempt.id.startswith("whdel_") and attempt.object == "webhook_delivery_attempt"
    assert attempt.endpoint == endpoint.id and attempt.event == event["id"]
    assert attempt.status_code == 200 and attempt.error is None and attempt.next_retry_at is None
    assert attempt.duration_ms >= 0 and abs(attempt.created - delivery.timestamp) <= 1
    assert eventually(
        lambda: client.v1.events.retrieve(event["id"]).pending_webhooks == 0, "pending_webhooks to reach 0"
    )


def test_enabled_events_choose_what_is_sent(purse, client, receivers):
    everything, attached_only = receivers(), receivers()
    listen(client, everything)
    endpoint = listen(client, attached_only, events=["payment_method.attached"])
    customer = client.v1.customers.create()
    method = client.v1.payment_methods.attach("pm_card_visa", params={"customer": customer.id})
    client.v1.customers.update(customer.id, params={"name": "Jenny"})

    expected = event_ids(client)
    assert len(expected) == 3  # customer.created, payment_method.attached, customer.updated
    eventually(lambda: sorted(everything.ids()) == sorted(expected), "every event at the * endpoint")
    [event] = eventually(attached_only.events, "the payment_method.attached delivery")
    assert event["type"] == "payment_method.attached" and event["data"]["object"]["id"] == method.id
    # Its deliveries were queued with the events, so none can follow later.
    assert deliveries_by_state(purse, endpoint.id) == {"delivered": 1}
    assert len(attached_only.deliveries) == 1


def test_a_disabled_endpoint_receives_nothing(purse, client, receivers):
    enabled, disabled = receivers(), receivers()
    listen(client, enabled)
    endpoint = listen(client, disabled)
    assert client.v1.webhook_endpoints.update(endpoint.id, params={"disabled": True}).status == "disabled"
    customers = [client.v1.customers.create().id for _ in range(5)]

    eventually(
        lambda: sorted(e["data"]["object"]["id"] for e in enabled.events()) == sorted(customers),
        "the enabled endpoint to receive every event",
    )
    time.sleep(1.5)  # room for a wrong delivery to arrive
    assert disabled.deliveries == []
    assert deliveries_by_state(purse, endpoint.id) == {}

    # Enabled again, it receives what happens from then on, and nothing from before.
    client.v1.webhook_endpoints.update(endpoint.id, params={"disabled": False})
    later = client.v1.customers.create().id
    [event] = eventually(disabled.events, "a delivery after re-enabling")
    assert event["data"]["object"]["id"] == later
    eventually(lambda: later in [e["data"]["object"]["id"] for e in enabled.events()], "the later event")
    assert deliveries_by_state(purse, endpoint.id) == {"delivered": 1}


def test_a_rolled_back_request_emits_nothing(purse, account, client, receivers):
    receiver = receivers()
    endpoint = listen(client, receiver)
    kept = client.v1.customers.create(params={"name": "Kept"})
    eventually(lambda: len(receiver.deliveries) == 1, "the first delivery")
    events_before = event_ids(client)

    # Refused requests: by validation, by a missing object, by an idempotency mismatch.
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.customers.create(params={"email": "x" * 600 + "@example.com"})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.customers.create(params={"payment_method": "pm_" + "0" * 24})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.customers.update(kept.id, params={"invoice_settings": {"default_payment_method": "pm_" + "0" * 24}})
    client.v1.customers.create(params={"name": "Once"}, options={"idempotency_key": f"wh-{kept.id}"})
    with pytest.raises(stripe.IdempotencyError):
        client.v1.customers.create(params={"name": "Twice"}, options={"idempotency_key": f"wh-{kept.id}"})

    # A change that fails after recording its first event: creating a customer with a payment
    # method records customer.created, then payment_method.attached, in one transaction; a trigger
    # makes the second insert fail.
    psql(
        purse,
        """
        CREATE FUNCTION compat_fail_the_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'compat: this change fails after its first event'; END $$;
        CREATE TRIGGER compat_fail_the_change BEFORE INSERT ON events FOR EACH ROW
            WHEN (NEW.account_id = :'account' AND NEW.type = 'payment_method.attached')
            EXECUTE FUNCTION compat_fail_the_change();
        """,
        account=account["account"],
    )
    try:
        with pytest.raises(stripe.APIError) as failed:
            client.v1.customers.create(params={"name": "Rolled back", "payment_method": "pm_card_visa"})
    finally:
        psql(purse, "DROP TRIGGER compat_fail_the_change ON events; DROP FUNCTION compat_fail_the_change();")
    assert failed.value.http_status == 500
    # The log names the SQLSTATE, never the server's message (which may quote row values):
    # P0001 is the trigger's RAISE EXCEPTION.
    assert "SQLSTATE P0001 (raise_exception)" in purse.log_text(), "it failed where the trigger is"
    assert "compat: this change fails after its first event" not in purse.log_text()

    # Two successes after the failures: the one that failed is missing in between.
    after = client.v1.customers.create(params={"name": "After"})
    names = [c.name for c in client.v1.customers.list().data]
    assert names == ["After", "Once", "Kept"]
    new_events = event_ids(client) - events_before
    assert len(new_events) == 2
    eventually(lambda: len(receiver.deliveries) == 3, "the deliveries of Once and After")
    assert {e["data"]["object"]["name"] for e in receiver.events()} == {"Kept", "Once", "After"}
    assert deliveries_by_state(purse, endpoint.id) == {"delivered": 3}
    assert after.id in {e["data"]["object"]["id"] for e in receiver.events()}
    # The queue holds no delivery of an event that does not exist, and one per event of the account.
    assert psql(
        purse,
        "SELECT count(*) FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)",
    ).strip() == "0"
    assert psql(
        purse,
        """
        SELECT count(*) FROM events e
        WHERE e.account_id = :'account'
          AND (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = :'endpoint') <> 1
        """,
        account=account["account"], endpoint=endpoint.id,
    ).strip() == "0"


# MARK: - Retries, timeouts, restarts and several servers (each on a database of its own)


def test_retries_after_failures(purse, receivers):
    flaky = receivers(answer=lambda event, attempt: 500 if attempt < 2 else 200)
    database = purse.fresh_database()
    with database.sibling("--webhook-retry-schedule", "1", "--webhook-give-up-after", "5") as server:
        account = database.create_account()
        client = server.client(account["secret_key"], max_network_retries=0)
        endpoint = listen(client, flaky)
        gone = client.v1.webhook_endpoints.create(params={"url": dead_url(), "enabled_events": ["customer.created"]})
        customer = client.v1.customers.create()

        listed = eventually(
            lambda: (found := attempts(client, endpoint.id)) and len(found) == 3 and found, "three attempts", timeout=15
        )
        [event] = client.v1.events.list().data
        assert event.data.object.id == customer.id
        assert [d.event["id"] for d in flaky.deliveries] == [event.id] * 3
        assert all(d.event["pending_webhooks"] >= 1 for d in flaky.deliveries)
        assert [a.status_code for a in listed] == [200, 500, 500]
        assert all(a.event == event.id and a.error is None for a in listed)
        assert listed[0].next_retry_at is None
        for failed in listed[1:]:
            assert failed.next_retry_at == failed.created + 1
        for newer, older in zip(listed, listed[1:]):
            assert newer.created >= older.next_retry_at, "a retry came before it was due"
        assert deliveries_by_state(database, endpoint.id) == {"delivered": 1}

        # An endpoint that never answers is retried until the give-up time, then left alone.
        eventually(lambda: deliveries_by_state(database, gone.id) == {"failed": 1}, "giving up", timeout=15)
        tries = attempts(client, gone.id)
        assert len(tries) >= 3
        assert all(t.status_code is None and t.error == "connection_failed" for t in tries)
        assert tries[0].next_retry_at is None and all(t.next_retry_at for t in tries[1:])
        assert tries[0].created + 1 > event.created + 5
        assert client.v1.events.retrieve(event.id).pending_webhooks == 0


def test_an_attempt_that_takes_too_long_is_retried(purse, receivers):
    receiver = receivers()
    receiver.gate.clear()
    database = purse.fresh_database()
    with database.sibling("--webhook-timeout", "1", "--webhook-retry-schedule", "1") as server:
        client = server.client(database.create_account()["secret_key"], max_network_retries=0)
        endpoint = listen(client, receiver)
        client.v1.customers.create()
        [first] = eventually(lambda: attempts(client, endpoint.id), "the first attempt to time out")
        assert first.status_code is None and first.error == "timeout"
        assert 900 <= first.duration_ms < 5000 and first.next_retry_at == first.created + 1
        receiver.gate.set()
        eventually(lambda: deliveries_by_state(database, endpoint.id) == {"delivered": 1}, "the retry to succeed")
        assert attempts(client, endpoint.id)[0].status_code == 200
        assert len(set(receiver.ids())) == 1 and len(receiver.ids()) >= 2


def test_a_restart_mid_backlog_delivers_everything(purse, receivers):
    receiver = receivers()
    receiver.gate.clear()
    database = purse.fresh_database()
    with database.sibling() as first:
        account = database.create_account()
        client = first.client(account["secret_key"], max_network_retries=0)
        endpoint = listen(client, receiver)
        for _ in range(50):
            client.v1.customers.create()
        # The first server is sending (its requests wait at the gate) when it is told to stop.
        eventually(lambda: receiver.deliveries, "the first server to start delivering")
        first.process.send_signal(signal.SIGTERM)
        eventually(lambda: not listening(first), "the first server to stop listening")
        receiver.gate.set()
        first.process.wait(timeout=30)
    backlog = deliveries_by_state(database, endpoint.id)
    assert backlog.get("pending", 0) > 0, f"the first server delivered everything ({backlog}): no backlog to test"
    assert len(set(receiver.ids())) < 50

    with database.sibling() as second:
        client = second.client(account["secret_key"], max_network_retries=0)
        expected = event_ids(client)
        assert len(expected) == 50
        eventually(lambda: expected <= set(receiver.ids()), "every event after the restart", timeout=15)
        eventually(lambda: deliveries_by_state(database, endpoint.id) == {"delivered": 50}, "every delivery recorded")
    assert set(receiver.ids()) == expected


def test_two_servers_deliver_each_event_once(purse, receivers):
    receiver = receivers()
    receiver.gate.clear()
    database = purse.fresh_database()
    with database.sibling() as one, database.sibling() as two:
        account = database.create_account()
        clients = [server.client(account["secret_key"], max_network_retries=0) for server in (one, two)]
        endpoint = listen(clients[0], receiver)
        for index in range(40):
            clients[index % 2].v1.customers.create()
        # Both servers hold claims at once: one server keeps at most 16 attempts in flight, so 32
        # claimed rows while the receiver holds every request means both are sending.
        eventually(
            lambda: psql(
                database, "SELECT count(*) FROM webhook_deliveries WHERE state = 'pending' AND claimed_until > now()"
            ).strip() == "32",
            "both servers to claim deliveries",
        )
        receiver.gate.set()
        expected = event_ids(clients[1])
        assert len(expected) == 40
        eventually(lambda: expected <= set(receiver.ids()), "every event")
        eventually(lambda: deliveries_by_state(database, endpoint.id) == {"delivered": 40}, "every delivery recorded")
        time.sleep(0.5)  # room for a duplicate to arrive
        counts = collections.Counter(receiver.ids())
        assert {i for i, n in counts.items() if n != 1} == set()
        assert set(counts) == expected
        assert psql(
            database, "SELECT count(*) FROM webhook_attempts WHERE endpoint_id = :'endpoint'", endpoint=endpoint.id
        ).strip() == "40"
        sent = [re.findall(r"webhook attempt.*?event=(evt_\w+)", server.log_text()) for server in (one, two)]
        assert all(sent), "each server sent some"
        assert sorted(sent[0] + sent[1]) == sorted(expected)
