#!/usr/bin/env python3
"""A rolling upgrade, as docs/operations.md describes it, under the keyed, retrying write load of
`exactly_once.py`: two `purse serve --skip-migrations` instances of the previous release (`--old`)
on one PostgreSQL serve the load; the new binary runs `purse migrate` while they serve; then each
instance in turn is stopped with SIGTERM (it drains) and started again as the new binary. For a
while the old and the new binary serve one schema side by side, each reading and changing what
the other wrote, and retried keys move between them.

The checks of exactly_once.py hold across the versions: every key answered with a 2xx, 0 objects
created twice, 0 keys answered with two objects, 0 acknowledged writes lost, 0 invariant
violations, every event delivered; no failed request (any non-2xx; refused connections to the
instance being replaced aside) later than 5 s after a step of the upgrade. So the new release's
migrations keep the previous release's binary working on the migrated schema.

    python3 Tests/reliability/upgrade.py --old PATH [--old-ref REF] [--seconds S] [--json PATH] [--keep]

`scripts/upgrade-check [REF]` builds REF's binary (default: the previous release tag) and runs
this. Loopback only.
"""

import argparse
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

from exactly_once import Suite
from faults import Purse, log, purse_binary

FAULT = "rolling-upgrade"
# The upgrade's steps begin this long into the run, and this long apart.
FIRST_STEP = 2.0
STEP_GAP = 3.0


class UpgradeSuite(Suite):
    def __init__(self, folder, seconds, old_binary, new_binary):
        super().__init__(folder, seconds)
        self.old_binary = old_binary
        self.new_binary = new_binary
        self.setup_binary = old_binary
        self.steps = []

    def refusals_expected(self, fault):
        return True  # an instance being replaced refuses connections between its stop and start

    def instances(self, fault):
        pair = [Purse(self.cluster, self.folder, name=f"upgrade-{side}", master_key=self.master_key,
                      binary=self.old_binary) for side in ("a", "b")]
        for instance in pair:
            instance.start("--skip-migrations")
        return pair

    def inject(self, fault, instances, faults_at, stop):
        """Migrate with the new binary, then replace each instance with it, one at a time."""
        if stop.wait(FIRST_STEP):
            return
        started = time.monotonic()
        migrator = Purse(self.cluster, self.folder, name="migrate", master_key=self.master_key,
                         binary=self.new_binary)
        applied = migrator.command("migrate")
        faults_at.append((started, time.monotonic()))
        self.steps.append({"step": "new binary: purse migrate", "seconds": round(time.monotonic() - started, 2),
                           "output": applied.strip()[-300:]})
        log(f"  migrated with the new binary in {time.monotonic() - started:.2f} s")
        for instance in reversed(instances):
            if stop.wait(STEP_GAP):
                return
            started = time.monotonic()
            instance.stop()  # SIGTERM: in-flight requests finish, new connections are refused
            instance.binary = self.new_binary
            instance.start("--skip-migrations")
            faults_at.append((started, time.monotonic()))
            self.steps.append({"step": f"{instance.name} replaced by the new binary",
                               "seconds": round(time.monotonic() - started, 2)})
            log(f"  {instance.name} now runs the new binary ({time.monotonic() - started:.2f} s without it)")

    def check(self, fault, round_number, load, instances, faults_at, wall):
        result = super().check(fault, round_number, load, instances, faults_at, wall)
        result["steps"] = self.steps
        mixed = [key for key in load.keys if len({attempt.instance for attempt in key.attempts}) > 1]
        result["keys_retried_on_the_other_instance"] = len(mixed)
        if len(self.steps) != 3:
            result["violations"].append(f"the upgrade did not finish within the run: {self.steps}")
        return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the previous release's purse binary")
    parser.add_argument("--old-ref", default="", help="the git ref it was built from, for the figures")
    parser.add_argument("--seconds", type=float, default=15.0, help="load in all (default 15)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (cluster and logs)")
    arguments = parser.parse_args()
    for binary in (arguments.old, purse_binary()):
        if not pathlib.Path(binary).exists():
            raise SystemExit(f"{binary} is missing")
    if arguments.seconds < FIRST_STEP + 2 * STEP_GAP + 3:
        raise SystemExit(f"--seconds must leave room for the upgrade's steps (at least {FIRST_STEP + 2 * STEP_GAP + 3:.0f})")
    started = time.monotonic()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="upgrade-", dir=os.environ.get("PURSE_TEST_ROOT")))
    folder.chmod(0o755)
    suite = UpgradeSuite(folder, arguments.seconds, arguments.old, purse_binary())
    try:
        suite.setup()
        result = suite.run(FAULT, 1)
    finally:
        if suite.cluster.is_running():
            with contextlib.suppress(subprocess.CalledProcessError):
                suite.cluster.stop()
        if arguments.keep:
            log(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    summary = {"old_ref": arguments.old_ref, "wall_seconds": round(time.monotonic() - started, 1), "run": result}
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\n{result['keys']} keys, {result['attempts']} attempts in {summary['wall_seconds']} s, "
          f"{result['keys_retried_on_the_other_instance']} retried on the other instance")
    print("FAILED" if result["violations"] else "OK: the old and the new binary served one schema side by side")
    sys.exit(1 if result["violations"] else 0)


if __name__ == "__main__":
    main()
