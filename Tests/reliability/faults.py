#!/usr/bin/env python3
"""Fault injection against `purse serve`: what clients see, and what is left in the database,
when PostgreSQL goes away, when the server is killed, and when it is asked to stop.

    python3 Tests/reliability/faults.py [--json PATH] [--keep]

It builds nothing: it runs the debug binary (.build/debug/purse, or $PURSE_BINARY) on a
PostgreSQL 15 cluster of its own, made in a temporary folder (under $PURSE_TEST_ROOT when set)
and removed at the end (--keep leaves it, with the servers' logs). Loopback only; under a minute.

Four scenarios, the first two under steady load from eight client threads (creates, attaches,
default changes, detaches, setup intents and reads, each thread on customers of its own, every
request's outcome recorded). Every POST carries an Idempotency-Key, and a 503 or a transport
failure is retried with the same key, as Stripe's SDKs do.

1. PostgreSQL stopped (pg_ctl stop -m fast) for 10 s, then started again. Every failed request
   must be a 503 with `Stripe-Should-Retry: true` (never a 500, a 4xx or a dropped connection),
   purse must stay up and give every client a 2xx again within a few seconds of PostgreSQL being
   back, a create answered only with 503s must have created nothing, and every object whose
   creation got a 2xx must be retrievable.
2. `purse serve` killed with SIGKILL mid-load, then started again on the same database. No
   half-written state, checked in SQL (a default names a method attached to the same customer; no
   attached method without its customer; a succeeded setup intent has its method; every
   2xx-created object is stored) and through the API (it shows what the tables hold; every
   2xx-created object answers GET with 200).
3. SIGTERM with 16 requests in flight, held inside the server by row locks taken from psql: new
   connections are refused at once while those requests still run, each then completes with a
   200, and the process exits with status 0.
4. A synchronous standby away (synchronous_standby_names naming one that never connects), with
   `--statement-timeout 1`: a create's commit waits for the standby until it is cancelled, and
   the create answers 503, though PostgreSQL has committed it here. Its retries, with the key,
   must answer 503 too while the standby is away (a replay is an acknowledgement, and a failover
   would take that commit back), and once the standby is no longer required the retry replays
   the one customer created.

It prints a summary (requests per phase and outcome, each scenario's figures, every violated
expectation with the request ids, the server's log lines for them and the idempotency key's
row) and exits 1 when any expectation is violated. --json PATH writes the same figures as JSON.
"""

import argparse
import collections
import concurrent.futures
import contextlib
import http.client
import itertools
import json
import os
import pathlib
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
WORKERS = 8
WARM_UP = 3.0
POSTGRES_DOWN = 10.0
AFTER_POSTGRES_BACK = 8.0
AFTER_RESTART = 5.0
# "Serves again on its own once PostgreSQL is back" (README): every client within a few seconds.
RECOVERY_LIMIT = 5.0
# A 503 must come fast: at worst after the pool's checkout timeout (--pool-timeout, 5 s).
FAIL_FAST_LIMIT = 6.0
IN_FLIGHT = 16
DRAIN_EXIT_LIMIT = 30.0
LISTENER_CLOSE_LIMIT = 5.0
RETRY_PAUSE = 0.1
CLIENT_TIMEOUT = 30.0
SHOWN_VIOLATIONS = 20


def log(message):
    print(f"[faults {time.strftime('%H:%M:%S')}] {message}", flush=True)


def purse_binary():
    return os.environ.get("PURSE_BINARY") or str(REPOSITORY / ".build" / "debug" / "purse")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A PostgreSQL 15 cluster of the run's own on a loopback port. As root, its tools run as the
    `postgres` user, since initdb and the server refuse to run as root."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.data = self.folder / "data"
        self.port = free_port()
        self.password = secrets.token_hex(16)
        self.bin = pathlib.Path("/usr/lib/postgresql/15/bin")
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def tool(self, name, *arguments):
        subprocess.run(self.as_postgres + [str(self.bin / name), *arguments], check=True, capture_output=True)

    def create(self):
        self.folder.mkdir()
        password_file = self.folder / "password"
        password_file.write_text(self.password)
        if self.as_postgres:
            shutil.chown(self.folder, "postgres")
            shutil.chown(password_file, "postgres")
        self.tool("initdb", "-D", str(self.data), "-U", "postgres", "--auth=scram-sha-256",
                  f"--pwfile={password_file}", "--no-sync")
        self.start()
        self.psql("CREATE DATABASE purse", database="postgres")

    def start(self):
        options = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder}"
        self.tool("pg_ctl", "-D", str(self.data), "-w", "-o", options, "-l", str(self.folder / "server.log"), "start")

    def stop(self):
        self.tool("pg_ctl", "-D", str(self.data), "-w", "-m", "fast", "stop")

    def is_running(self):
        return (self.data / "postmaster.pid").exists()

    def url(self):
        return f"postgres://postgres:{self.password}@127.0.0.1:{self.port}/purse"

    def env(self):
        return dict(os.environ, PGPASSWORD=self.password, PGHOST="127.0.0.1", PGPORT=str(self.port),
                    PGUSER="postgres")

    def psql_command(self, database="purse"):
        return [str(self.bin / "psql"), "-X", "-q", "-t", "-A", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", database]

    def psql(self, sql, database="purse"):
        """The rows `sql` returns, each a tuple of text fields."""
        result = subprocess.run(self.psql_command(database) + ["-c", sql], env=self.env(), capture_output=True,
                                text=True, check=True)
        return [tuple(line.split("\t")) for line in result.stdout.splitlines() if line]


class Purse:
    """`purse serve` on the cluster, restartable on the same database and master key, and with
    another `binary` (a rolling upgrade). The load's threads read `base` at every request, so
    they follow a restart to its new port."""

    def __init__(self, cluster, folder, name="serve", master_key=None, environment=None, binary=None):
        self.folder = pathlib.Path(folder)
        self.name = name
        self.binary = binary or purse_binary()
        self.env = {name: value for name, value in os.environ.items()
                    if not name.startswith("PURSE_") and name != "DATABASE_URL"}
        self.env.update(DATABASE_URL=cluster.url(), PURSE_MASTER_KEY=master_key or secrets.token_hex(32),
                        PURSE_LOG_LEVEL="warning")
        self.env.update(environment or {})
        self.starts = itertools.count(1)
        self.logs = []
        self.process = None
        self.base = None

    def command(self, *arguments):
        return subprocess.run([self.binary, *arguments], env=self.env, capture_output=True, text=True,
                              check=True, timeout=120).stdout

    def start(self, *flags):
        path = self.folder / f"{self.name}-{next(self.starts)}.log"
        self.logs.append(path)
        with open(path, "w") as output:
            self.process = subprocess.Popen([self.binary, "serve", "--port", "0", *flags], env=self.env,
                                            stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            found = re.search(r"listening on port (\d+)", path.read_text())
            if found:
                self.base = f"http://127.0.0.1:{found.group(1)}"
                return
            if self.process.poll() is not None:
                raise SystemExit(f"purse serve exited with {self.process.returncode}:\n{path.read_text()}")
            time.sleep(0.05)
        raise SystemExit("purse serve did not start within 120 s")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)

    def kill(self):
        if self.alive():
            self.process.kill()
            self.process.wait()

    def log_lines(self, request_id=None):
        """The lines of every run's log about one request, or else at level error or critical."""
        pattern = re.compile(re.escape(request_id) if request_id else r"\blevel=(error|critical)\b")
        return [f"{path.name}: {line}" for path in self.logs
                for line in path.read_text(errors="replace").splitlines() if pattern.search(line)]


Reply = collections.namedtuple("Reply", "status headers body")


def send(base, key, method, path, params=None, idempotency_key=None):
    """One request on a connection of its own, so that a server closing an idle keep-alive
    connection can never pass for a dropped request. Transport failures raise OSError or
    HTTPException."""
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=CLIENT_TIMEOUT)
    form = urllib.parse.urlencode(params or {})
    headers = {"Authorization": f"Bearer {key}"}
    if method == "POST":
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif form:
        path, form = f"{path}?{form}", None
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    try:
        connection.request(method, path, body=form if method == "POST" else None, headers=headers)
        response = connection.getresponse()
        return Reply(response.status, response.headers, response.read())
    finally:
        connection.close()


def kind_of(status):
    if 200 <= status < 300:
        return "2xx"
    if 400 <= status < 500:
        return "4xx"
    return "503" if status == 503 else "other"


def is_key_in_use(entry):
    return entry.get("status") == 409 and "idempotency_key_in_use" in entry.get("body", "")


class Recorder:
    """Every request's outcome, labelled with the phase it started in and the client thread that
    sent it; the ids of objects whose creation got a 2xx; the Idempotency-Key of each customer
    create, by the customer's name."""

    def __init__(self):
        self.lock = threading.Lock()
        self.phase = "setup"
        self.requests = []
        self.created = collections.defaultdict(list)
        self.customer_creates = {}

    def set_phase(self, name):
        with self.lock:
            self.phase = name

    def send(self, base, key, method, path, params=None, idempotency_key=None, route=None):
        """Sends and records one request. Returns its entry (`kind`: 2xx, 4xx, 503, other or
        connection) and the reply, None after a transport failure."""
        entry = {"phase": self.phase, "client": threading.current_thread().name, "route": f"{method} {route or path}",
                 "idempotency_key": idempotency_key, "started": time.monotonic()}
        try:
            reply = send(base, key, method, path, params, idempotency_key)
        except (OSError, http.client.HTTPException) as error:
            entry.update(kind="connection", error=type(error).__name__, finished=time.monotonic())
            reply = None
        else:
            entry.update(kind=kind_of(reply.status), status=reply.status, finished=time.monotonic(),
                         should_retry=reply.headers.get("Stripe-Should-Retry"),
                         request_id=reply.headers.get("Request-Id"))
            if entry["kind"] != "2xx":
                entry["body"] = reply.body[:300].decode(errors="replace")
        with self.lock:
            self.requests.append(entry)
        return entry, reply

    def record_created(self, object_type, object_id):
        with self.lock:
            self.created[object_type].append(object_id)

    def record_customer_create(self, name, idempotency_key):
        with self.lock:
            self.customer_creates[name] = idempotency_key

    def with_key(self, idempotency_key):
        with self.lock:
            return [entry for entry in self.requests if entry["idempotency_key"] == idempotency_key]

    def in_phases(self, *names):
        with self.lock:
            return [entry for entry in self.requests if entry["phase"] in names]


class Worker(threading.Thread):
    """One client thread. It owns its customers, so nothing another thread does can make its
    requests fail, and it reads what it acts on just before acting."""

    OPERATIONS = {"create_customer": 12, "attach": 22, "set_default": 14, "detach": 10, "setup_intent": 8,
                  "read_customer": 18, "list_methods": 16}

    def __init__(self, number, purse, key, recorder, stopping):
        super().__init__(name=f"client-{number}", daemon=True)
        self.purse = purse
        self.key = key
        self.recorder = recorder
        self.stopping = stopping
        self.random = random.Random(number)
        self.customers = []

    def run(self):
        while not self.stopping.is_set():
            operation = "create_customer" if not self.customers else self.random.choices(
                list(self.OPERATIONS), list(self.OPERATIONS.values()))[0]
            getattr(self, operation)()

    def call(self, method, path, params=None, route=None):
        """The answer's JSON after a 2xx, else None; and the Idempotency-Key of a POST. A 503 or
        a transport failure is retried with the same key until the load stops."""
        idempotency_key = f"faults-{secrets.token_hex(12)}" if method == "POST" else None
        while True:
            entry, reply = self.recorder.send(self.purse.base, self.key, method, path, params, idempotency_key, route)
            if entry["kind"] in ("503", "connection") and not self.stopping.is_set():
                time.sleep(RETRY_PAUSE)
                continue
            return (json.loads(reply.body) if entry["kind"] == "2xx" else None), idempotency_key

    def create_customer(self):
        # A unique name finds the customer in SQL even when no answer gave its id.
        name = f"faults {secrets.token_hex(8)}"
        customer, idempotency_key = self.call("POST", "/v1/customers", {"name": name})
        self.recorder.record_customer_create(name, idempotency_key)
        if customer:
            self.recorder.record_created("customer", customer["id"])
            self.customers.append(customer["id"])

    def attach(self):
        method, _ = self.call("POST", "/v1/payment_methods/pm_card_visa/attach",
                              {"customer": self.random.choice(self.customers)})
        if method:
            self.recorder.record_created("payment_method", method["id"])

    def attached(self, customer):
        listing, _ = self.call("GET", f"/v1/customers/{customer}/payment_methods", {"limit": "100"},
                               route="/v1/customers/{id}/payment_methods")
        return [method["id"] for method in listing["data"]] if listing else []

    def set_default(self):
        customer = self.random.choice(self.customers)
        methods = self.attached(customer)
        if methods:
            self.call("POST", f"/v1/customers/{customer}",
                      {"invoice_settings[default_payment_method]": self.random.choice(methods)},
                      route="/v1/customers/{id}")

    def detach(self):
        methods = self.attached(self.random.choice(self.customers))
        if methods:
            self.call("POST", f"/v1/payment_methods/{self.random.choice(methods)}/detach",
                      route="/v1/payment_methods/{id}/detach")

    def setup_intent(self):
        intent, _ = self.call("POST", "/v1/setup_intents",
                              {"customer": self.random.choice(self.customers), "payment_method_types[]": "card"})
        if intent:
            self.recorder.record_created("setup_intent", intent["id"])
            confirmed, _ = self.call("POST", f"/v1/setup_intents/{intent['id']}/confirm",
                                     {"payment_method": "pm_card_visa"}, route="/v1/setup_intents/{id}/confirm")
            if confirmed and confirmed.get("payment_method"):
                self.recorder.record_created("payment_method", confirmed["payment_method"])

    def read_customer(self):
        self.call("GET", f"/v1/customers/{self.random.choice(self.customers)}", route="/v1/customers/{id}")

    def list_methods(self):
        self.attached(self.random.choice(self.customers))


class Load:
    """WORKERS client threads, started together on entry and stopped together on exit."""

    def __init__(self, purse, key, recorder):
        self.stopping = threading.Event()
        self.workers = [Worker(number, purse, key, recorder, self.stopping) for number in range(WORKERS)]

    def __enter__(self):
        for worker in self.workers:
            worker.start()
        return self

    def __exit__(self, *exception):
        self.stopping.set()
        for worker in self.workers:
            worker.join(timeout=2 * CLIENT_TIMEOUT)


class Run:
    """The four scenarios, in order, on one cluster and database; their figures and violations."""

    OBJECT_PATHS = {"customer": "/v1/customers/", "payment_method": "/v1/payment_methods/",
                    "setup_intent": "/v1/setup_intents/"}
    TABLES = {"customer": "customers", "payment_method": "payment_methods", "setup_intent": "setup_intents"}

    def __init__(self, folder):
        self.cluster = Cluster(folder / "postgres")
        self.purse = Purse(self.cluster, folder)
        self.recorder = Recorder()
        self.violations = []
        self.invariant_violations = 0
        self.figures = {"scenarios": {}}

    def violate(self, message, entry=None, invariant=False):
        """Records a violated expectation (`invariant`: one about the data kept), with the story
        of the request behind it when there is one."""
        self.invariant_violations += invariant
        if entry is not None:
            message += self.describe(entry)
        self.violations.append(message)
        log(f"violation: {message.splitlines()[0]}")

    def describe(self, entry):
        """Every attempt made with the entry's Idempotency-Key (a run of alike 503s as a count),
        the server's log lines for each, and the key's row as it is now."""
        key = entry["idempotency_key"]
        attempts = self.recorder.with_key(key) if key else [entry]
        text = f"\n      {entry['route']}" + (f", Idempotency-Key {key}" if key else "")
        skipped = 0
        for number, attempt in enumerate(attempts, 1):
            if 1 < number < len(attempts) and attempt["kind"] == "503":
                skipped += 1
                continue
            if skipped:
                text += f"\n      ... {skipped} more attempts answered 503"
                skipped = 0
            text += (f"\n      attempt {number} ({attempt['phase']}, {attempt['finished'] - attempt['started']:.3f} s):"
                     f" {attempt.get('status', attempt.get('error'))} {attempt.get('request_id') or ''}")
            if attempt.get("should_retry") is not None:
                text += f" Stripe-Should-Retry: {attempt['should_retry']}"
            if attempt.get("body"):
                text += f"\n        body: {attempt['body']}"
            for line in self.purse.log_lines(attempt["request_id"]) if attempt.get("request_id") else []:
                text += f"\n        log: {line}"
        if key:
            rows = self.cluster.psql(f"SELECT status, created_at FROM idempotency_keys WHERE key = '{key}'")
            for status, created in rows:
                text += f"\n      idempotency_keys row now: answer {status}, kept at {created}"
            if not rows:
                text += "\n      no idempotency_keys row: no attempt committed"
        return text

    def expect(self, condition, message):
        if not condition:
            self.violate(message)
        return condition

    def setup(self):
        log(f"PostgreSQL 15 cluster on 127.0.0.1:{self.cluster.port}")
        self.cluster.create()
        self.purse.start()
        account = json.loads(self.purse.command("accounts", "create", "--name", "Faults", "--json",
                                                "--database-url", self.cluster.url()))
        self.account = account["account"]
        self.key = account["secret_key"]
        log(f"purse serve on {self.purse.base}, account {self.account}")

    # Scenario 1

    def postgres_restart(self):
        log(f"scenario 1: PostgreSQL stopped for {POSTGRES_DOWN:.0f} s under load")
        phases = ("s1 before", "s1 postgres down", "s1 postgres back")
        self.recorder.set_phase(phases[0])
        with Load(self.purse, self.key, self.recorder):
            time.sleep(WARM_UP)
            self.recorder.set_phase(phases[1])
            stopping = time.monotonic()
            self.cluster.stop()
            time.sleep(POSTGRES_DOWN)
            self.cluster.start()
            back = time.monotonic()
            self.recorder.set_phase(phases[2])
            log(f"PostgreSQL back, {back - stopping:.1f} s after pg_ctl stop began")
            time.sleep(AFTER_POSTGRES_BACK)
        entries = self.recorder.in_phases(*phases)
        self.expect(self.purse.alive(), "purse serve died while PostgreSQL was down")
        for entry in entries:
            if entry["kind"] == "503" and entry["should_retry"] != "true":
                self.violate("a 503 without Stripe-Should-Retry: true", entry)
            elif is_key_in_use(entry):
                # The 503 said the request changed nothing and to retry it, yet its key stayed
                # reserved: releasing it needed the database that was down.
                self.violate("a retry of a 503'd request with its Idempotency-Key got 409 idempotency_key_in_use",
                             entry)
            elif entry["kind"] not in ("2xx", "503"):
                self.violate(f"a failed request that is not a 503 ({entry['phase']})", entry)

        first_2xx = {}
        for entry in entries:
            if entry["kind"] == "2xx" and entry["finished"] > back:
                first_2xx[entry["client"]] = min(first_2xx.get(entry["client"], 1e9), entry["finished"] - back)
        every_client_served = max(first_2xx.values()) if len(first_2xx) == WORKERS else None
        if self.expect(every_client_served is not None, "a client got no 2xx at all after PostgreSQL came back"):
            self.expect(every_client_served <= RECOVERY_LIMIT,
                        f"a client's first 2xx came {every_client_served:.2f} s after PostgreSQL came back "
                        f"(limit {RECOVERY_LIMIT:.0f} s)")
        unavailable = [entry for entry in entries if entry["kind"] == "503"]
        slowest_503 = max((entry["finished"] - entry["started"] for entry in unavailable), default=0.0)
        self.expect(slowest_503 <= FAIL_FAST_LIMIT,
                    f"a 503 took {slowest_503:.2f} s, not failing fast (limit {FAIL_FAST_LIMIT:.0f} s)")
        last_503 = max([entry["finished"] - back for entry in unavailable] + [0.0])
        self.expect(last_503 <= RECOVERY_LIMIT,
                    f"503s went on {last_503:.2f} s after PostgreSQL came back (limit {RECOVERY_LIMIT:.0f} s)")
        created_despite_503 = self.customers_created_despite_refusal()
        retrieved, missing = self.retrieve_created() if self.purse.alive() else (0, None)
        self.figures["scenarios"]["postgres_restart"] = {
            "postgres_down_seconds": round(back - stopping, 2),
            "first_2xx_after_postgres_back_seconds": round(min(first_2xx.values()), 3) if first_2xx else None,
            "every_client_2xx_after_postgres_back_seconds":
                None if every_client_served is None else round(every_client_served, 3),
            "last_503_after_postgres_back_seconds": round(last_503, 3),
            "slowest_503_seconds": round(slowest_503, 3),
            "retries_refused_409_key_in_use": sum(map(is_key_in_use, entries)),
            "purse_alive": self.purse.alive(),
            "customers_created_despite_503": created_despite_503,
            "objects_retrieved": retrieved,
            "objects_missing": missing,
        }

    def customers_created_despite_refusal(self):
        """Counts (and reports) customers created by a request whose every attempt was refused
        (503, or 409 for its key): a 503 says the request changed nothing."""
        refused = {}
        for name, idempotency_key in self.recorder.customer_creates.items():
            attempts = self.recorder.with_key(idempotency_key)
            if not {"2xx", "connection"} & {attempt["kind"] for attempt in attempts}:
                refused[name] = attempts[-1]
        found = self.cluster.psql(
            "SELECT name, id, to_timestamp(created) FROM customers WHERE name = ANY(string_to_array($$"
            + "|".join(refused) + "$$, '|'))"
        ) if refused else []
        for name, customer, created in found:
            self.violate(f"customer {customer} (created {created}) exists though every attempt to create it was "
                         "refused", refused[name], invariant=True)
        return len(found)

    def retrieve_created(self):
        """GETs every object whose creation got a 2xx; returns how many, and how many did not
        answer 200."""
        objects = [(kind, object_id) for kind, ids in self.recorder.created.items() for object_id in ids]

        def retrieve(item):
            kind, object_id = item
            try:
                return item, send(self.purse.base, self.key, "GET", self.OBJECT_PATHS[kind] + object_id).status
            except (OSError, http.client.HTTPException) as error:
                return item, type(error).__name__

        missing = 0
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            for (kind, object_id), status in pool.map(retrieve, objects):
                if status != 200:
                    missing += 1
                    self.violate(f"{kind} {object_id}, created with a 2xx, answers GET with {status}", invariant=True)
        self.figures["objects_checked"] = len(objects)
        return len(objects), missing

    # Scenario 2

    def sigkill(self):
        log("scenario 2: purse serve killed with SIGKILL under load, then started again")
        phases = ("s2 before", "s2 killed", "s2 restarted")
        self.recorder.set_phase(phases[0])
        with Load(self.purse, self.key, self.recorder):
            time.sleep(WARM_UP)
            self.recorder.set_phase(phases[1])
            killed = time.monotonic()
            self.purse.kill()
            self.purse.start()
            restarted = time.monotonic()
            self.recorder.set_phase(phases[2])
            log(f"purse serve back on {self.purse.base}, {restarted - killed:.1f} s after SIGKILL")
            time.sleep(AFTER_RESTART)
        for entry in self.recorder.in_phases(*phases):
            # Refused and cut connections are the kill itself. A key the killed server held is
            # free as soon as PostgreSQL sees its connection close, so no retry gets 409.
            if entry["kind"] in ("4xx", "503", "other"):
                self.violate(f"an unexpected answer around the SIGKILL ({entry['phase']})", entry)
            elif entry["kind"] == "connection" and entry["phase"] == phases[2]:
                self.violate("a connection failed after the restart", entry)
        self.figures["scenarios"]["sigkill"] = {"restart_seconds": round(restarted - killed, 2),
                                                **self.check_consistency()}

    def check_consistency(self):
        """The tables' invariants, checked in SQL, and the API's view compared with the tables."""
        bad_defaults = self.cluster.psql("""
            SELECT c.id, c.default_payment_method, p.state, p.customer_id FROM customers c
            LEFT JOIN payment_methods p ON p.id = c.default_payment_method
            WHERE c.default_payment_method IS NOT NULL
              AND (p.id IS NULL OR p.state <> 'attached' OR p.customer_id IS DISTINCT FROM c.id)""")
        for customer, default, state, owner in bad_defaults:
            self.violate(f"customer {customer}'s default {default} is not attached to it (state {state!r}, "
                         f"customer {owner!r})", invariant=True)
        orphans = self.cluster.psql("""
            SELECT p.id, p.customer_id FROM payment_methods p LEFT JOIN customers c ON c.id = p.customer_id
            WHERE p.state = 'attached' AND (c.id IS NULL OR c.deleted)""")
        for method, customer in orphans:
            self.violate(f"payment method {method} is attached to missing customer {customer}", invariant=True)
        unfinished = self.cluster.psql("""
            SELECT s.id, s.payment_method_id FROM setup_intents s
            LEFT JOIN payment_methods p ON p.id = s.payment_method_id
            WHERE s.status = 'succeeded' AND p.id IS NULL""")
        for intent, method in unfinished:
            self.violate(f"setup intent {intent} succeeded without its payment method ({method!r})", invariant=True)

        unstored = 0
        for kind, ids in self.recorder.created.items():
            stored = {row[0] for row in self.cluster.psql(
                f"SELECT id FROM {self.TABLES[kind]} WHERE account_id = '{self.account}'")}
            for object_id in set(ids) - stored:
                unstored += 1
                self.violate(f"{kind} {object_id}, created with a 2xx, is not in {self.TABLES[kind]}", invariant=True)

        defaults = dict(self.cluster.psql(
            "SELECT id, coalesce(default_payment_method, '') FROM customers "
            f"WHERE account_id = '{self.account}' AND NOT deleted"))
        attached = collections.defaultdict(set)
        for method, customer in self.cluster.psql("SELECT id, customer_id FROM payment_methods "
                                                  f"WHERE account_id = '{self.account}' AND state = 'attached'"):
            attached[customer].add(method)
        disagreements = 0
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            problems = pool.map(
                lambda customer: self.api_disagreement(customer, defaults[customer], attached[customer]), defaults)
            for customer, problem in zip(defaults, problems):
                if problem:
                    disagreements += 1
                    self.violate(f"the API disagrees with the tables on customer {customer}: {problem}",
                                 invariant=True)
        retrieved, missing = self.retrieve_created()
        return {
            "customers_checked": len(defaults),
            "attached_methods_checked": sum(len(methods) for methods in attached.values()),
            "defaults_not_attached_to_their_customer": len(bad_defaults),
            "attached_methods_without_customer": len(orphans),
            "succeeded_setup_intents_without_method": len(unfinished),
            "created_objects_not_stored": unstored,
            "api_disagreements": disagreements,
            "objects_retrieved": retrieved,
            "objects_missing": missing,
        }

    def api_disagreement(self, customer, default, attached):
        """What GET /v1/customers/{id} and its payment method list say otherwise than the tables,
        or None."""
        reply = send(self.purse.base, self.key, "GET", f"/v1/customers/{customer}")
        if reply.status != 200:
            return f"GET /v1/customers/{customer} → {reply.status}"
        shown_default = json.loads(reply.body)["invoice_settings"]["default_payment_method"] or ""
        if shown_default != default:
            return f"default {shown_default!r} in the API, {default!r} in the table"
        listed, after = set(), None
        while True:
            params = {"limit": "100", **({"starting_after": after} if after else {})}
            reply = send(self.purse.base, self.key, "GET", f"/v1/customers/{customer}/payment_methods", params)
            if reply.status != 200:
                return f"GET /v1/customers/{customer}/payment_methods → {reply.status}"
            page = json.loads(reply.body)
            listed |= {method["id"] for method in page["data"]}
            if not page["has_more"]:
                break
            after = page["data"][-1]["id"]
        if listed != attached:
            return f"it lists {sorted(listed)}, the table has {sorted(attached)} attached"
        return None

    # Scenario 3

    def sigterm(self):
        log(f"scenario 3: SIGTERM with {IN_FLIGHT} requests in flight")
        self.recorder.set_phase("s3 drain")
        self.purse.stop()
        # Each held request keeps a database connection while it waits on its row lock.
        self.purse.start("--pool-size", str(2 * IN_FLIGHT))
        customers = sorted(set(self.recorder.created["customer"]))[:IN_FLIGHT]
        holder = subprocess.Popen(self.cluster.psql_command(), env=self.cluster.env(), stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, text=True)
        holder.stdin.write("BEGIN;\nSELECT id FROM customers WHERE id = ANY('{" + ",".join(customers)
                           + "}') FOR UPDATE;\n")
        holder.stdin.flush()
        self.expect(self.wait_for("SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'", 1),
                    "psql never took its row locks")
        answers = [None] * len(customers)

        def update(index):
            answers[index] = self.recorder.send(
                self.purse.base, self.key, "POST", f"/v1/customers/{customers[index]}", {"metadata[drain]": str(index)},
                f"faults-{secrets.token_hex(12)}", route="/v1/customers/{id}")

        threads = [threading.Thread(target=update, args=(index,)) for index in range(len(customers))]
        for thread in threads:
            thread.start()
        self.expect(self.wait_for("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
                                  len(customers)), f"the {len(customers)} updates never all waited on their row locks")
        signalled = time.monotonic()
        self.purse.process.send_signal(signal.SIGTERM)
        listener_closed = self.wait_until_refused()
        draining = self.purse.alive() and all(thread.is_alive() for thread in threads)
        self.expect(listener_closed is not None,
                    f"new connections were still accepted {LISTENER_CLOSE_LIMIT:.0f} s after SIGTERM")
        self.expect(draining, "the requests in flight, or the server, ended before their row locks were released")
        holder.stdin.write("COMMIT;\n")
        holder.stdin.close()
        holder.wait(timeout=30)
        for thread in threads:
            thread.join(timeout=DRAIN_EXIT_LIMIT)
        try:
            status = self.purse.process.wait(timeout=max(0.0, signalled + DRAIN_EXIT_LIMIT - time.monotonic()))
        except subprocess.TimeoutExpired:
            status = None
            self.purse.kill()
        exited = time.monotonic() - signalled
        self.expect(status == 0,
                    f"purse serve exited with {status} after SIGTERM (expected 0 within {DRAIN_EXIT_LIMIT:.0f} s)")
        completed = 0
        for index, answer in enumerate(answers):
            entry, reply = answer or ({"kind": "no answer"}, None)
            if entry["kind"] == "2xx" and json.loads(reply.body)["metadata"].get("drain") == str(index):
                completed += 1
            else:
                self.violate(f"the in-flight update of {customers[index]} did not complete normally ({entry['kind']})",
                             entry if answer else None)
        refused_after_exit = self.connection_refused()
        self.expect(refused_after_exit, "a connection was accepted after purse serve exited")
        self.figures["scenarios"]["sigterm"] = {
            "in_flight": len(customers),
            "completed_2xx": completed,
            "listener_closed_after_seconds": None if listener_closed is None else round(listener_closed, 3),
            "server_still_draining_when_closed": draining,
            "exit_status": status,
            "exit_seconds_after_sigterm": round(exited, 2),
            "refused_after_exit": refused_after_exit,
        }

    def wait_for(self, count_sql, count, limit=15.0):
        """Whether `count_sql` counts at least `count` within `limit` seconds."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if int(self.cluster.psql(count_sql)[0][0]) >= count:
                return True
            time.sleep(0.05)
        return False

    def connection_refused(self):
        address = urllib.parse.urlsplit(self.purse.base)
        try:
            socket.create_connection((address.hostname, address.port), timeout=2).close()
            return False
        except ConnectionRefusedError:
            return True

    def wait_until_refused(self):
        """Seconds until a new connection is refused, or None after LISTENER_CLOSE_LIMIT."""
        started = time.monotonic()
        while time.monotonic() - started < LISTENER_CLOSE_LIMIT:
            if self.connection_refused():
                return time.monotonic() - started
            time.sleep(0.01)
        return None

    # Scenario 4

    def standby_away(self):
        log("scenario 4: a synchronous standby away; a retry must not replay a commit it lacks")
        self.recorder.set_phase("s4 standby away")
        self.purse.start("--statement-timeout", "1")
        name = f"standby-away {secrets.token_hex(6)}"
        key = f"faults-{secrets.token_hex(12)}"

        def create():
            return self.recorder.send(self.purse.base, self.key, "POST", "/v1/customers", {"name": name}, key,
                                      route="/v1/customers")

        def stored():
            return int(self.cluster.psql(f"SELECT count(*) FROM customers WHERE name = '{name}'")[0][0])

        self.require_standby("purse_absent_standby")
        try:
            first, _ = create()
            self.expect(first["kind"] == "503",
                        f"a create whose commit waited for an absent standby answered {first['kind']}, not 503")
            self.expect(stored() == 1, "the create cancelled in its wait for the standby is not committed locally; "
                                       "the scenario shows nothing")
            retries = [create()[0] for _ in range(2)]
            for retry in retries:
                if retry["kind"] != "503":
                    self.violate("a retry acknowledged a commit the synchronous standby does not have", retry)
        finally:
            self.require_standby("")
        self.recorder.set_phase("s4 standby back")
        replay, reply = create()
        replayed = replay["kind"] == "2xx" and reply.headers.get("Idempotent-Replayed") == "true"
        if not replayed:
            self.violate("with the standby no longer required, the retry did not replay the create", replay)
        self.expect(stored() == 1, f"{stored()} customers named {name!r}, not 1")
        self.purse.stop()
        self.figures["scenarios"]["standby_away"] = {
            "first_attempt": first["kind"],
            "retries_while_away": [retry["kind"] for retry in retries],
            "retry_once_back_replayed": replayed,
            "customers_stored": stored(),
        }

    def require_standby(self, names):
        """Sets synchronous_standby_names (empty: commits wait for no standby) and reloads."""
        self.cluster.psql(f"ALTER SYSTEM SET synchronous_standby_names = '{names}'")
        self.cluster.psql("SELECT pg_reload_conf()")

    # Summary

    def summarise(self, wall):
        phases = collections.defaultdict(list)
        for entry in self.recorder.requests:
            phases[entry["phase"]].append(entry)
        self.figures.update(
            requests_sent=len(self.recorder.requests),
            phases={name: tally(entries) for name, entries in phases.items()},
            objects_created={kind: len(ids) for kind, ids in self.recorder.created.items()},
            server_error_log_lines=self.purse.log_lines(),
            invariant_violations=self.invariant_violations,
            violated_expectations=len(self.violations),
            violations=self.violations,
            wall_seconds=round(wall, 1),
        )
        print()
        print(f"{'phase':<18}{'requests':>9}{'2xx':>7}{'4xx':>6}{'(409 key)':>10}{'503':>6}{'other':>7}{'conn err':>9}")
        for name, counts in self.figures["phases"].items():
            print(f"{name:<18}{counts['requests']:>9}{counts['2xx']:>7}{counts['4xx']:>6}"
                  f"{counts['409_idempotency_key_in_use']:>10}{counts['503']:>6}{counts['other']:>7}"
                  f"{counts['connection_errors']:>9}")
        for scenario, figures in self.figures["scenarios"].items():
            print(f"\n{scenario}:")
            for name, value in figures.items():
                print(f"  {name}: {value}")
        print(f"\nobjects created with a 2xx: {self.figures['objects_created']}; objects checked: "
              f"{self.figures.get('objects_checked', 0)}; invariant violations: {self.invariant_violations}")
        print(f"requests sent: {self.figures['requests_sent']}; wall time {wall:.1f} s")
        for line in self.figures["server_error_log_lines"]:
            print(f"server log: {line}")
        if self.violations:
            print(f"\nFAILED: {len(self.violations)} violated expectation(s):")
            for violation in self.violations[:SHOWN_VIOLATIONS]:
                print(f"  - {violation}")
            if len(self.violations) > SHOWN_VIOLATIONS:
                print(f"  ... and {len(self.violations) - SHOWN_VIOLATIONS} more (--json lists them all)")
        else:
            print("\nOK: every expectation held")


def tally(entries):
    counts = collections.Counter(entry["kind"] for entry in entries)
    return {"requests": len(entries), "2xx": counts["2xx"], "4xx": counts["4xx"],
            "409_idempotency_key_in_use": sum(map(is_key_in_use, entries)), "503": counts["503"],
            "other": counts["other"], "connection_errors": counts["connection"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (cluster and logs)")
    arguments = parser.parse_args()
    if not pathlib.Path(purse_binary()).exists():
        raise SystemExit(f"{purse_binary()} is missing: run `swift build --product purse` first")

    started = time.monotonic()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="faults-", dir=os.environ.get("PURSE_TEST_ROOT")))
    folder.chmod(0o755)  # the postgres user must reach the cluster's folder inside
    run = Run(folder)
    try:
        run.setup()
        run.postgres_restart()
        run.sigkill()
        run.sigterm()
        run.standby_away()
        run.summarise(time.monotonic() - started)
    finally:
        run.purse.kill()
        if run.cluster.is_running():
            with contextlib.suppress(subprocess.CalledProcessError):
                run.cluster.stop()
        if arguments.keep:
            log(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(run.figures, indent=2) + "\n")
    sys.exit(1 if run.violations else 0)


if __name__ == "__main__":
    main()
