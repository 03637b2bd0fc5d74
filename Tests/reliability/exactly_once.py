#!/usr/bin/env python3
"""Exactly once per Idempotency-Key, under faults: two `purse serve` instances on one PostgreSQL,
a bounded write load whose every request carries a key and is retried, with that key, on the
other instance after any failure, and one fault per run:

    kill-after-commit   an instance dies (SIGKILL) after a request's commit, before its response
                        (the server's test-only fault point, PURSE_TEST_FAULT; debug builds only)
    kill-before-commit  an instance dies after a request's work, before its commit (same)
    kill-random         an instance is killed with SIGKILL at random moments, from outside
    postgres-restart    PostgreSQL is restarted (pg_ctl restart -m immediate: a crash and recovery)
    cut-mid-commit      the servers reach PostgreSQL through a proxy that cuts connections at a
                        COMMIT: before it reaches PostgreSQL, or after, dropping its answer

A killed instance is started again at once. After each run, and with the load stopped:

- every key was answered in the end with a 2xx (the load sends only valid requests);
- every 2xx for one key names the same object, and 0 objects were created twice for one key
  (customers and setup intents carry their key in metadata; attached cards are matched to the
  answers of their attach requests);
- 0 acknowledged writes lost: each object a 2xx named is stored, confirmed setup intents succeeded;
- 0 invariant violations (defaults name methods attached to the same customer, succeeded intents
  have their method, each event of the run is delivered to the webhook endpoint with its id);
- no failed request (a 503, a 409, any other error) started later than 5 s after the fault
  before it; refused or cut connections to a killed instance do not count.

    python3 Tests/reliability/exactly_once.py [--seconds S] [--rounds N] [--faults a,b] [--json PATH] [--keep]

The quick form (the test command) runs each fault once for a few seconds; `scripts/exactly-once`
runs the long form and writes its figures to Tests/reliability/exactly-once.json. Loopback only.
"""

import argparse
import collections
import contextlib
import http.server
import json
import os
import pathlib
import random
import re
import secrets
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from faults import Cluster, Purse, log, purse_binary, send

WORKERS = 6
RETRY_PAUSE = 0.05
# After the load stops, a key still unanswered gets this long to be answered.
SETTLE_LIMIT = 30.0
# No failed request may start later than this after the fault before it.
FAILURE_LIMIT = 5.0
# How late the suite may notice a fault (a kill is seen when the supervisor next looks).
DETECTION_LAG = 1.0
FAULT_PROBABILITY = 0.01
# After the load stops, the webhook queue gets this long to drain.
DRAIN_LIMIT = 20.0
# The chance that the proxy cuts a connection at one COMMIT, in `cut-mid-commit`.
CUT_PROBABILITY = 0.02
FAULTS = ("kill-after-commit", "kill-before-commit", "kill-random", "postgres-restart", "cut-mid-commit")


class Attempt:
    __slots__ = ("instance", "started", "finished", "status", "body", "error", "replayed")


class Key:
    """One logical request: its key, what it asked, and every attempt made with the key."""

    def __init__(self, operation, method, path, params):
        self.id = f"once-{secrets.token_hex(10)}"
        self.operation = operation
        self.method = method
        self.path = path
        self.params = params
        self.attempts = []

    @property
    def answer(self):
        """The last attempt's JSON when it was a 2xx, else None."""
        last = self.attempts[-1] if self.attempts else None
        return json.loads(last.body) if last and last.status and 200 <= last.status < 300 else None


class Load:
    """WORKERS threads, each with customers of its own, sending keyed writes until stopped; a
    key whose attempt failed (503, 409, a transport error) is retried on the other instance, and
    the thread goes on only once the key is answered, so every key ends answered or is reported."""

    OPERATIONS = {"create_customer": 3, "attach": 4, "set_default": 3, "setup_intent": 3, "update": 2}

    def __init__(self, instances, api_key):
        self.instances = instances
        self.api_key = api_key
        self.stopping = threading.Event()
        self.abandoning = threading.Event()
        self.lock = threading.Lock()
        self.keys = []
        self.threads = [threading.Thread(target=self.work, args=(number,), name=f"client-{number}", daemon=True)
                        for number in range(WORKERS)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        """Stops new keys; waits up to SETTLE_LIMIT for every key in flight to be answered."""
        self.stopping.set()
        deadline = time.monotonic() + SETTLE_LIMIT
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self.abandoning.set()
        for thread in self.threads:
            thread.join(timeout=10)

    def call(self, operation, method, path, params, chooser):
        key = Key(operation, method, path, params)
        with self.lock:
            self.keys.append(key)
        instance = chooser.choice(self.instances)
        while not self.abandoning.is_set():
            attempt = Attempt()
            attempt.instance = instance.name
            attempt.started = time.monotonic()
            attempt.status = attempt.body = attempt.error = None
            attempt.replayed = False
            try:
                reply = send(instance.base, self.api_key, method, path, params, key.id)
                attempt.status, attempt.body = reply.status, reply.body
                attempt.replayed = reply.headers.get("Idempotent-Replayed") == "true"
            except Exception as error:  # a refused or cut connection: the kill itself
                attempt.error = type(error).__name__
            attempt.finished = time.monotonic()
            key.attempts.append(attempt)
            if attempt.status is not None and attempt.status not in (409, 503) and attempt.status < 500:
                return key.answer
            instance = self.instances[1 - self.instances.index(instance)]
            time.sleep(RETRY_PAUSE)
        return None

    def work(self, number):
        chooser = random.Random(number)
        customers = []  # (customer id, attached method ids)
        while not self.stopping.is_set():
            operation = "create_customer" if not customers else chooser.choices(
                list(self.OPERATIONS), list(self.OPERATIONS.values()))[0]
            if operation == "create_customer":
                tag = f"c-{secrets.token_hex(6)}"
                customer = self.call(operation, "POST", "/v1/customers",
                                     {"name": f"once {tag}", "metadata[purpose]": "exactly-once"}, chooser)
                if customer:
                    customers.append((customer["id"], []))
                continue
            customer, methods = chooser.choice(customers)
            if operation == "attach":
                method = self.call(operation, "POST", "/v1/payment_methods/pm_card_visa/attach",
                                   {"customer": customer}, chooser)
                if method:
                    methods.append(method["id"])
            elif operation == "set_default" and methods:
                self.call(operation, "POST", f"/v1/customers/{customer}",
                          {"invoice_settings[default_payment_method]": chooser.choice(methods)}, chooser)
            elif operation == "update":
                self.call(operation, "POST", f"/v1/customers/{customer}",
                          {"metadata[touched]": secrets.token_hex(4)}, chooser)
            elif operation == "setup_intent":
                intent = self.call(operation, "POST", "/v1/setup_intents",
                                   {"customer": customer, "payment_method_types[]": "card", "usage": "off_session"},
                                   chooser)
                if intent:
                    self.call("confirm", "POST", f"/v1/setup_intents/{intent['id']}/confirm",
                              {"payment_method": "pm_card_visa"}, chooser)


class CuttingProxy:
    """A TCP proxy between the servers and PostgreSQL that cuts connections at a COMMIT: with
    probability `probability`, a client message holding `COMMIT` is either dropped with the
    connection (the transaction never commits), or forwarded and the server's answer dropped
    with the connection (it commits, and the acknowledgement is lost), half and half."""

    def __init__(self, target_port, probability):
        self.target_port = target_port
        self.probability = probability
        self.cutting = threading.Event()
        self.lock = threading.Lock()
        self.cuts = collections.Counter()
        self.cut_times = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            threading.Thread(target=self.pump, args=(client, server), daemon=True).start()

    def pump(self, client, server):
        chooser = random.Random()
        dropping_answer = False
        with selectors.DefaultSelector() as selector, client, server:
            selector.register(client, selectors.EVENT_READ, server)
            selector.register(server, selectors.EVENT_READ, client)
            while True:
                for ready, _ in selector.select():
                    source, destination = ready.fileobj, ready.data
                    try:
                        data = source.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    if source is server and dropping_answer:
                        self.record("after-commit-sent")
                        return
                    if source is client and b"COMMIT" in data and self.cutting.is_set() \
                            and chooser.random() < self.probability:
                        if chooser.random() < 0.5:
                            self.record("before-commit-sent")
                            return
                        dropping_answer = True
                    try:
                        destination.sendall(data)
                    except OSError:
                        return

    def record(self, window):
        with self.lock:
            self.cuts[window] += 1
            self.cut_times.append(time.monotonic())


class WebhookReceiver:
    """A loopback endpoint that answers 200 and counts every event id it is sent."""

    def __init__(self):
        received = self.received = collections.Counter()
        lock = self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    received[json.loads(body)["id"]] += 1
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        class Server(http.server.ThreadingHTTPServer):
            # Two servers send up to 16 attempts each at once; the default backlog of 5 would
            # refuse some, and their retries would come after the run's check.
            request_queue_size = 128

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class Suite:
    """The runs on one PostgreSQL cluster. `failover.py` runs the same load and checks on a
    pg_auto_failover formation, through the hooks `failure_limit` and `refusals_expected`."""

    def __init__(self, folder, seconds, cluster=None):
        self.folder = folder
        self.seconds = seconds
        self.cluster = cluster or Cluster(folder / "postgres")
        self.proxy = None
        self.setup_binary = None  # the binary that migrates and makes the account; None: this tree's
        self.master_key = secrets.token_hex(32)
        self.receiver = WebhookReceiver()
        self.results = []
        # Cumulative webhook figures at the end of the run before, to report each run's own.
        self.unrecorded_before = 0
        self.sent_twice_before = 0

    def setup(self):
        self.cluster.create()
        self.proxy = CuttingProxy(self.cluster.port, CUT_PROBABILITY)
        self.create_account()

    def create_account(self):
        """The run's account and its webhook endpoint, made by a first instance that also
        migrates the database."""
        first = Purse(self.cluster, self.folder, name="setup", master_key=self.master_key, binary=self.setup_binary)
        first.start()  # migrates the database
        account = json.loads(first.command("accounts", "create", "--name", "Exactly once", "--json",
                                           "--database-url", self.cluster.url()))
        self.account, self.api_key = account["account"], account["secret_key"]
        reply = send(first.base, self.api_key, "POST", "/v1/webhook_endpoints",
                     {"url": self.receiver.url, "enabled_events[]": "*"})
        first.kill()
        if reply.status != 200:
            raise SystemExit(f"creating the webhook endpoint failed: {reply.status} {reply.body[:300]}")
        log(f"account {self.account}, webhooks to {self.receiver.url}")

    def instances(self, fault):
        """Two instances; the first carries the fault point when the fault is one."""
        environment = {}
        if fault in ("kill-after-commit", "kill-before-commit"):
            environment["PURSE_TEST_FAULT"] = f"{fault.removeprefix('kill-')}:{FAULT_PROBABILITY}"
        if fault == "cut-mid-commit":
            environment["DATABASE_URL"] = self.cluster.url().replace(f":{self.cluster.port}/", f":{self.proxy.port}/")
        pair = [Purse(self.cluster, self.folder, name=f"{fault}-a", master_key=self.master_key,
                      environment=environment),
                Purse(self.cluster, self.folder, name=f"{fault}-b", master_key=self.master_key)]
        for instance in pair:
            instance.start()
        return pair

    def run(self, fault, round_number):
        log(f"{fault}, round {round_number}: {self.seconds:.0f} s of load")
        instances = self.instances(fault)
        started = time.monotonic()
        load = Load(instances, self.api_key)
        faults_at = []
        stop_faults = threading.Event()
        watcher = threading.Thread(target=self.inject, args=(fault, instances, faults_at, stop_faults), daemon=True)
        load.start()
        watcher.start()
        time.sleep(self.seconds)
        stop_faults.set()
        watcher.join()
        if self.proxy:
            with self.proxy.lock:
                faults_at.extend((moment, moment) for moment in self.proxy.cut_times)
                self.proxy.cut_times.clear()
        load.stop()
        for instance in instances:
            if not instance.alive():
                instance.start()
        result = self.check(fault, round_number, load, instances, faults_at, time.monotonic() - started)
        for instance in instances:
            instance.kill()
        self.results.append(result)
        return result

    def inject(self, fault, instances, faults_at, stop):
        """Makes the run's fault happen, and brings killed instances back, until `stop`."""
        chooser = random.Random()
        next_kill = time.monotonic() + chooser.uniform(1.0, 2.5)
        restarted = False
        while not stop.is_set():
            now = time.monotonic()
            for instance in instances:
                if not instance.alive():
                    faults_at.append((now, now))
                    instance.start()
            if fault == "kill-random" and now >= next_kill:
                victim = chooser.choice(instances)
                victim.kill()
                faults_at.append((time.monotonic(), time.monotonic()))
                victim.start()
                next_kill = time.monotonic() + chooser.uniform(1.0, 2.5)
            elif fault == "postgres-restart" and not restarted and now >= next_kill:
                # The fault lasts until PostgreSQL is back: failures while it is down are expected.
                stopping = time.monotonic()
                self.cluster.tool("pg_ctl", "-D", str(self.cluster.data), "-w", "-m", "immediate", "stop")
                self.cluster.start()
                faults_at.append((stopping, time.monotonic()))
                restarted = True
            elif fault == "cut-mid-commit" and not self.proxy.cutting.is_set():
                self.proxy.cutting.set()
            time.sleep(0.02)
        self.proxy.cutting.clear()

    def check(self, fault, round_number, load, instances, faults_at, wall):
        violations = []
        keys = load.keys
        unanswered = [key for key in keys if key.answer is None]
        for key in unanswered[:10]:
            violations.append(f"key {key.id} ({key.operation}) never got a 2xx: "
                              + ", ".join(str(a.status or a.error) for a in key.attempts[-5:]))
        # Each failed attempt must follow a fault by at most its limit. A refused or cut
        # connection is a failure only where no server was killed.
        limit = self.failure_limit(fault)
        kills = self.refusals_expected(fault)
        fault_times = sorted(faults_at)  # (start, end) of each fault
        late_failures = []
        for key in keys:
            for attempt in key.attempts:
                failed = (attempt.status is not None and attempt.status >= 400) or (
                    attempt.error is not None and not kills)
                if not failed:
                    continue
                delay = self.delay_after_fault(attempt, fault_times)
                if delay is None or delay > limit:
                    late_failures.append((key, attempt, delay))
        for key, attempt, delay in late_failures[:10]:
            when = "with no fault before it" if delay is None else f"{delay:.2f} s after the fault before it"
            violations.append(f"key {key.id} ({key.operation}) got {attempt.status or attempt.error} on "
                              f"{attempt.instance} {when}: {(attempt.body or b'')[:200].decode(errors='replace')}")
        # Every 2xx for one key names one object.
        split_answers = 0
        for key in keys:
            ids = {json.loads(a.body).get("id") for a in key.attempts if a.status and 200 <= a.status < 300}
            if len(ids) > 1:
                split_answers += 1
                violations.append(f"key {key.id} was answered with {sorted(ids)}")
        duplicates, lost = self.count_duplicates_and_losses(keys, violations)
        invariant_violations = self.invariants(violations)
        events = self.events_delivered(fault, violations)
        self.sent_twice_before += events["sent_more_than_once"]
        hits = self.fault_point_hits(instances)
        attempts = [attempt for key in keys for attempt in key.attempts]
        outcome = collections.Counter(
            "2xx" if a.status and a.status < 300 else str(a.status) if a.status else "connection" for a in attempts)
        result = {
            "fault": fault, "round": round_number, "wall_seconds": round(wall, 1), "keys": len(keys),
            "attempts": len(attempts), "attempt_outcomes": dict(outcome), "faults": len(faults_at),
            "fault_point_hits": hits, "keys_unanswered": len(unanswered),
            "failure_limit_seconds": limit, "failed_attempts_later_than_the_limit": len(late_failures),
            "slowest_recovery_seconds": self.slowest_recovery(keys, fault_times),
            "longest_attempt_seconds": round(max((a.finished - a.started for a in attempts), default=0.0), 3),
            "keys_retried": sum(1 for key in keys if len(key.attempts) > 1),
            "retries_answered_by_replay": sum(1 for key in keys if key.attempts[-1].replayed),
            "keys_answered_with_two_objects": split_answers, "objects_created_twice": duplicates,
            "acknowledged_writes_lost": lost, "invariant_violations": invariant_violations,
            "events": events, "violations": violations,
        }
        log(f"{fault} round {round_number}: {len(keys)} keys, {len(attempts)} attempts {dict(outcome)}, "
            f"{len(faults_at)} faults {hits or ''}, {result['retries_answered_by_replay']} retries answered by replay, "
            f"duplicates {duplicates}, lost {lost}, "
            f"invariants {invariant_violations}, unanswered {len(unanswered)}, late failures {len(late_failures)}"
            + (f" — {len(violations)} violation(s)" if violations else ""))
        for violation in violations[:10]:
            log(f"  violation: {violation}")
        return result

    def failure_limit(self, fault):
        """How long after a fault a request may still fail."""
        return FAILURE_LIMIT

    def refusals_expected(self, fault):
        """Whether the fault kills a server, so that refused or cut connections are its own."""
        return fault.startswith("kill-")

    @staticmethod
    def slowest_recovery(keys, fault_times):
        """The longest time from the end of a fault to a failed attempt after it."""
        delays = [Suite.delay_after_fault(attempt, fault_times) for key in keys for attempt in key.attempts
                  if attempt.status is not None and attempt.status >= 400]
        return round(max([delay for delay in delays if delay is not None], default=0.0), 3)

    @staticmethod
    def delay_after_fault(attempt, fault_times):
        """How long after the end of the latest fault that can explain it a failed attempt
        began (0 during the fault), or None when no fault can. A fault explains the attempt
        when it began before the attempt ended, or within DETECTION_LAG after (a kill is
        noticed when the supervisor next looks; the attempt a cut ended began before it)."""
        ends = [end for start, end in fault_times if start <= attempt.finished + DETECTION_LAG]
        return max(0.0, attempt.started - max(ends)) if ends else None

    def count_duplicates_and_losses(self, keys, violations):
        duplicates = lost = 0
        answered = {key.id: key.answer for key in keys if key.answer}
        # Customers and setup intents carry nothing of their key; the customer's name and the
        # intent's customer with its creation order do. Count per name and per attach answer.
        names = collections.Counter(row[0] for row in self.cluster.psql(
            f"SELECT name FROM customers WHERE account_id = '{self.account}' AND name LIKE 'once c-%'"))
        for key in keys:
            if key.operation != "create_customer":
                continue
            count = names.get(key.params["name"], 0)
            if count > 1:
                duplicates += count - 1
                violations.append(f"key {key.id} created {count} customers named {key.params['name']!r}")
            if key.id in answered and count == 0:
                lost += 1
                violations.append(f"customer {answered[key.id]['id']} (key {key.id}) was answered but is not stored")
        stored_methods = {row[0]: row[1] for row in self.cluster.psql(
            "SELECT p.id, p.customer_id FROM payment_methods p "
            f"WHERE p.account_id = '{self.account}' AND p.state = 'attached' "
            "AND NOT EXISTS (SELECT 1 FROM setup_intents s WHERE s.payment_method_id = p.id)")}
        answered_methods = {answer["id"] for key in keys if key.operation == "attach"
                            for answer in [answered.get(key.id)] if answer}
        run_customers = {key.params["customer"] for key in keys if key.operation == "attach"}
        extra = [m for m, customer in stored_methods.items() if customer in run_customers and m not in answered_methods]
        stored_ids = {row[0] for row in self.cluster.psql(
            f"SELECT id FROM payment_methods WHERE account_id = '{self.account}'")}
        for method in extra:
            duplicates += 1
            violations.append(f"payment method {method} is attached but no attach answer named it (a second run)")
        for method in answered_methods - stored_ids:
            lost += 1
            violations.append(f"payment method {method} was answered by attach but is not stored")
        intents = {row[0]: row[1] for row in self.cluster.psql(
            f"SELECT id, status FROM setup_intents WHERE account_id = '{self.account}'")}
        for key in keys:
            answer = answered.get(key.id)
            if not answer:
                continue
            if key.operation == "setup_intent" and answer["id"] not in intents:
                lost += 1
                violations.append(f"setup intent {answer['id']} was answered but is not stored")
            if key.operation == "confirm" and intents.get(answer["id"]) != "succeeded":
                lost += 1
                violations.append(f"setup intent {answer['id']} was confirmed (2xx) but is "
                                  f"{intents.get(answer['id'])!r}")
        created_intents = collections.Counter(row[0] for row in self.cluster.psql(
            f"SELECT customer_id FROM setup_intents WHERE account_id = '{self.account}'"))
        asked_intents = collections.Counter(key.params["customer"] for key in keys if key.operation == "setup_intent")
        for customer, asked in asked_intents.items():
            if created_intents[customer] > asked:
                duplicates += created_intents[customer] - asked
                violations.append(f"customer {customer} has {created_intents[customer]} setup intents; "
                                  f"{asked} keys asked for one each")
        return duplicates, lost

    def invariants(self, violations):
        found = 0
        for row in self.cluster.psql("""
                SELECT c.id, c.default_payment_method FROM customers c
                LEFT JOIN payment_methods p ON p.id = c.default_payment_method
                WHERE c.default_payment_method IS NOT NULL
                  AND (p.id IS NULL OR p.state <> 'attached' OR p.customer_id IS DISTINCT FROM c.id)"""):
            found += 1
            violations.append(f"customer {row[0]}'s default {row[1]} is not attached to it")
        for row in self.cluster.psql("""
                SELECT s.id FROM setup_intents s LEFT JOIN payment_methods p ON p.id = s.payment_method_id
                WHERE s.status = 'succeeded' AND p.id IS NULL"""):
            found += 1
            violations.append(f"setup intent {row[0]} succeeded without its payment method")
        return found

    def events_delivered(self, fault, violations):
        """Waits, up to DRAIN_LIMIT, until: every event of the account reached the endpoint, under
        its own id; every send the endpoint acknowledged is in the attempt log, unless the server
        that made it died before recording it (then, and only then, the event is sent again when
        its claim expires). A delivery still held by a dead server's claim, or waiting for its
        retry after a failed attempt, is reported, not failed: it is sent later (`--final-drain`
        waits for it). The wait is for the condition itself, so a delivery in flight when it is
        first read (claimed, sent, not yet recorded) is read again, not taken for a loss."""
        deadline = time.monotonic() + DRAIN_LIMIT
        while True:
            figures = self.delivery_figures()
            settled = not figures["missing"] and (
                figures["unrecorded"] == self.unrecorded_before or self.refusals_expected(fault))
            if settled or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        for event in figures["missing"][:10]:
            violations.append(f"event {event} never reached the webhook endpoint: {self.delivery_story(event)}")
        new_unrecorded = figures["unrecorded"] - self.unrecorded_before
        self.unrecorded_before = figures["unrecorded"]
        if new_unrecorded and not self.refusals_expected(fault):
            violations.append(f"{new_unrecorded} sends the endpoint acknowledged are not in the attempt log, "
                              "though no server died")
        return {"events": figures["events"], "missing": len(figures["missing"]),
                "held_by_a_dead_servers_claim": figures["held"], "waiting_for_a_retry": figures["retrying"],
                "sent_more_than_once": figures["sent_twice"] - self.sent_twice_before,
                "acknowledged_sends_not_recorded": new_unrecorded}

    def delivery_figures(self):
        """One reading of the account's deliveries. The endpoint's count is read last: a delivery
        that was neither held nor retrying when the database was read, and was sent since, is in it."""
        events = [row[0] for row in self.cluster.psql(
            f"SELECT id FROM events WHERE account_id = '{self.account}'")]
        held = {row[0] for row in self.cluster.psql(
            "SELECT event_id FROM webhook_deliveries WHERE state = 'pending' AND claimed_until >= now()")}
        retrying = {row[0] for row in self.cluster.psql(
            "SELECT event_id FROM webhook_deliveries WHERE state = 'pending' AND attempts > 0 AND next_attempt_at > now()")}
        recorded = collections.Counter(row[0] for row in self.cluster.psql(
            "SELECT event_id FROM webhook_attempts WHERE status_code BETWEEN 200 AND 299"))
        with self.receiver.lock:
            received = dict(self.receiver.received)
        return {
            "events": len(events), "held": len(held), "retrying": len(retrying),
            "missing": [event for event in events if event not in received and event not in held and event not in retrying],
            "unrecorded": sum(max(0, count - recorded.get(event, 0)) for event, count in received.items()),
            "sent_twice": sum(1 for count in received.values() if count > 1),
        }

    def delivery_story(self, event):
        """What the database holds of one event's delivery, for a violation's message."""
        server = self.cluster.psql("SELECT inet_server_port(), pg_is_in_recovery()")[0]
        deliveries = self.cluster.psql(
            "SELECT state, attempts, claimed_until - now(), next_attempt_at - now(), created_at "
            f"FROM webhook_deliveries WHERE event_id = '{event}'")
        attempts = self.cluster.psql(
            f"SELECT created, status_code, error FROM webhook_attempts WHERE event_id = '{event}'")
        return f"deliveries {deliveries}, attempts {attempts} (read on port {server[0]}, in recovery {server[1]})"

    def final_drain(self):
        """With one server running, waits out the claims of dead servers (their lease, 60 s),
        then checks that every event reached the endpoint."""
        log("final drain: waiting for deliveries held by dead servers' claims")
        server = Purse(self.cluster, self.folder, name="drain", master_key=self.master_key)
        server.start()
        violations = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and int(self.cluster.psql(
                "SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'")[0][0]):
            time.sleep(0.5)
        figures = self.events_delivered("final-drain", violations)
        server.kill()
        pending = int(self.cluster.psql("SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'")[0][0])
        if pending:
            violations.append(f"{pending} deliveries still pending 90 s after the load")
        result = {"fault": "final-drain", "events": figures, "violations": violations,
                  "keys": 0, "attempts": 0, "fault_point_hits": {}}
        log(f"final drain: {figures}" + (f" — {len(violations)} violation(s)" if violations else ""))
        for violation in violations[:10]:
            log(f"  violation: {violation}")
        self.results.append(result)

    def fault_point_hits(self, instances):
        """Kills by the fault point, and cuts by the proxy, per window, in this run."""
        hits = collections.Counter()
        if self.proxy:
            with self.proxy.lock:
                hits.update({f"cut {window}": count for window, count in self.proxy.cuts.items()})
                self.proxy.cuts.clear()
        for instance in instances:
            for path in instance.logs:
                for found in re.finditer(r"test fault point (\S+) reached", path.read_text(errors="replace")):
                    hits[found.group(1)] += 1
        return dict(hits)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="load per run (default 6)")
    parser.add_argument("--rounds", type=int, default=1, help="runs per fault (default 1)")
    parser.add_argument("--faults", default=",".join(FAULTS), help="which faults, comma-separated")
    parser.add_argument("--final-drain", action="store_true",
                        help="at the end, wait for deliveries held by dead servers' claims and check every event arrived")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (cluster and logs)")
    arguments = parser.parse_args()
    if not pathlib.Path(purse_binary()).exists():
        raise SystemExit(f"{purse_binary()} is missing: run `swift build --product purse` first")
    started = time.monotonic()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="exactly-once-", dir=os.environ.get("PURSE_TEST_ROOT")))
    folder.chmod(0o755)
    suite = Suite(folder, arguments.seconds)
    try:
        suite.setup()
        for round_number in range(1, arguments.rounds + 1):
            for fault in arguments.faults.split(","):
                suite.run(fault, round_number)
        if arguments.final_drain:
            suite.final_drain()
    finally:
        if suite.cluster.is_running():
            with contextlib.suppress(subprocess.CalledProcessError):
                suite.cluster.stop()
        if arguments.keep:
            log(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    failed = [result for result in suite.results if result["violations"]]
    summary = {"wall_seconds": round(time.monotonic() - started, 1), "runs": suite.results}
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\n{len(suite.results)} runs, {sum(r['keys'] for r in suite.results)} keys, "
          f"{sum(r['attempts'] for r in suite.results)} attempts in {summary['wall_seconds']} s; "
          f"fault point hits {sum((collections.Counter(r['fault_point_hits']) for r in suite.results), collections.Counter())}")
    print("FAILED" if failed else "OK: every run held exactly once")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
