"""pytest plugin: ``pytest --roc-target reference|HOST:PORT`` runs every conformance check as a test item.

Each item is named after its check and the requirement IDs it verifies, so ``--junitxml`` output carries the
IDs. Checks of undeclared profiles are skipped with the reason; a harness fault (adapter bug, timeout)
fails the item with an ``ERROR (harness fault)`` message, distinct from a requirement violation.

Installed, the package loads it through its ``pytest11`` entry point; otherwise enable it with
``-p roc_conformance.pytest_plugin``. The entry point is named after this module, so giving ``-p`` as well is
harmless (pytest sees one plugin under one name) and ``-p no:roc_conformance.pytest_plugin`` disables it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from roc_conformance.checks.base import Check, CheckContext, Status
from roc_conformance.client import Description, HarnessClient, Timeouts
from roc_conformance.registry import load_registry
from roc_conformance.runner import run_check, skip_reason
from roc_conformance.settings import CERTIFY, EXPLORE
from roc_conformance.target import Target, resolve

_STATE_KEY = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("roc", "RoC conformance suite")
    group.addoption(
        "--roc-target", default=None, help="run the RoC conformance checks against 'reference' or HOST:PORT"
    )
    group.addoption(
        "--roc-profile", action="append", default=None, help="only run checks of these profiles (repeatable)"
    )
    group.addoption("--roc-explore", action="store_true", help="explore settings instead of certify")


class ConformanceFailure(Exception):
    """A check failed (FAIL) or could not run (ERROR)."""


class RocCollector(pytest.Collector):
    """Holds the conformance items (created when --roc-target is given)."""

    def collect(self) -> Iterator[pytest.Item]:
        return iter(())


class RocCheckItem(pytest.Item):
    def __init__(self, *, check: Check, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.user_properties.append(("requirements", " ".join(check.requirements)))

    def _state(self) -> dict[str, Any]:
        state = self.config.stash.setdefault(_STATE_KEY, {})
        if "client" not in state:
            target: Target = resolve(self.config.getoption("--roc-target"))
            state["target"] = target
            client = HarnessClient.connect(target.address, timeouts=Timeouts())
            state["client"] = client
            state["description"] = client.describe()
            state["registry"] = load_registry()
        return state

    def runtest(self) -> None:
        state = self._state()
        description: Description = state["description"]
        selected = self.config.getoption("--roc-profile")
        # The runner's rule, so that --roc-profile core runs core's checks that need a claimed executor.
        reason = skip_reason(self.check, description, set(selected) if selected else None, state["registry"])
        if reason is not None:
            pytest.skip(reason)
        settings = EXPLORE if self.config.getoption("--roc-explore") else CERTIFY
        ctx = CheckContext(client=state["client"], description=description, settings=settings)
        result = run_check(self.check, ctx)
        if result.status is Status.SKIPPED:
            pytest.skip(result.message)
        if result.status is Status.FAIL:
            text = f"FAIL {', '.join(result.failed_requirements)}: {result.message}"
            if result.counterexample:
                text += f"\n\ncounterexample:\n{result.counterexample}"
            raise ConformanceFailure(text)
        if result.status is Status.ERROR:
            raise ConformanceFailure(
                f"ERROR (harness fault, not a verdict on the implementation): {result.message}"
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "roc-conformance", None, self.name


def _item_name(check: Check) -> str:
    reqs = list(check.requirements)
    shown = " ".join(reqs[:6]) + (f" +{len(reqs) - 6}" if len(reqs) > 6 else "")
    return f"{check.name}[{shown}]"


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not config.getoption("--roc-target"):
        return
    from roc_conformance.checks import all_checks

    collector = RocCollector.from_parent(session, name="roc-conformance")
    for check in all_checks():
        items.append(RocCheckItem.from_parent(collector, name=_item_name(check), check=check))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_STATE_KEY, {})
    client = state.get("client")
    if client is not None:
        client.close()
    target = state.get("target")
    if target is not None:
        target.stop()
