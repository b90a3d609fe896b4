"""The Patterns page runs as written and prints what it shows.

docs/patterns/index.md is one program told in steps, in Python and (in tabs) in TypeScript: its Python
blocks run in page order in one namespace, its TypeScript blocks run in page order as one program under
Node against the Strands Agents TypeScript SDK, and the ``text`` block that follows a code block is exactly
what that block prints. The files the page shows (``title="payments.py"``) are written to a working directory
first. So a changed id, stop reason, result or replay count in the runtime fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from executed_page import Step, read, run_python

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "patterns" / "index.md"
TS_ADAPTER = ROOT / "conformance" / "adapters" / "strands-typescript"
MARK = "--- end of step ---"
SECTIONS = [
    "Approve or reject",
    "Edit before approval",
    "Several interrupts, answered by id",
    "Partial answers",
    "Resuming in another process",
    "Hooks or the tool body",
]


def steps(lang: str) -> list[Step]:
    return [step for step in read(PAGE)[0] if step.lang == lang]


def sections() -> dict[str, str]:
    """Each ``## `` section of the page by its title."""
    parts = re.split(r"^## (.+)$", PAGE.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_pattern_has_a_section_with_an_executed_example() -> None:
    found = sections()
    for title in SECTIONS:
        assert title in found, f"no section {title!r}"
        body = found[title]
        assert "**When to use" in body, f"{title}: no paragraph on when to use it"
        assert "```python" in body, f"{title}: no Python example"
        assert "```text" in body, f"{title}: no output shown"
    python = steps("python")
    # Every step but the setup shows its output, so a reader sees what the runtime did.
    assert sum(step.output is not None for step in python) == len(python) - 1 >= len(SECTIONS)


def test_the_python_steps_run_in_order_and_print_what_they_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, files = read(PAGE)
    assert {"payments.py", "resume.py"} <= set(files)
    for name, text in files.items():
        if name.endswith(".py"):
            (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # resume.py is started from here, as a reader would
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        run_python(PAGE, steps("python"), {"__name__": "patterns_page"})
    finally:
        sys.modules.pop("payments", None)  # the page's module, not to be found by another test


# The examples are TypeScript a reader can compile: strict, with the SDK's own types.
TSCONFIG = {
    "compilerOptions": {
        "target": "ES2023",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "noEmit": True,
        "allowImportingTsExtensions": True,
        "skipLibCheck": True,
        "types": ["node"],
    },
    "include": ["*.ts"],
}


@pytest.fixture(scope="module")
def ts_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the page's TypeScript steps as one module (``page.ts``, a marker line after each
    step's code) and its files, resolving packages from the Strands TypeScript adapter's ``node_modules``."""
    node_modules = TS_ADAPTER / "node_modules"
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("Node.js and npm are needed to run the page's TypeScript; they are not on PATH")
    # The adapter's locked packages, installed as make strands-typescript does when missing or stale, so CI
    # (which has Node.js) always runs the TypeScript tabs rather than skipping them.
    installed, lock = node_modules / ".package-lock.json", TS_ADAPTER / "package-lock.json"
    if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
        command = [npm, "ci", "--no-audit", "--no-fund"]
        done = subprocess.run(command, cwd=TS_ADAPTER, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    project = tmp_path_factory.mktemp("patterns-ts")
    (project / "node_modules").symlink_to(node_modules, target_is_directory=True)
    (project / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    (project / "tsconfig.json").write_text(json.dumps(TSCONFIG), encoding="utf-8")
    for name, text in read(PAGE)[1].items():
        if name.endswith(".ts"):
            (project / name).write_text(text, encoding="utf-8")
    program = "".join(f"{step.code}console.log({MARK!r});\n" for step in steps("ts"))
    (project / "page.ts").write_text(program, encoding="utf-8")
    return project


def test_the_typescript_steps_run_in_order_and_print_what_they_show(ts_project: Path) -> None:
    found = steps("ts")
    assert {"scripted.ts", "payments.ts", "resume.ts"} <= set(read(PAGE)[1])
    assert sum(step.output is not None for step in found) == len(found) - 1 >= len(SECTIONS)
    tsx = ts_project / "node_modules" / ".bin" / "tsx"
    run = subprocess.run(
        [str(tsx), "page.ts"], cwd=ts_project, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    outputs = run.stdout.split(MARK + "\n")
    assert outputs[-1] == "", run.stdout  # nothing printed after the last step
    assert len(outputs) == len(found) + 1, run.stdout
    for step, out in zip(found, outputs, strict=False):
        if step.output is None:
            assert out == "", f"the block at line {step.line} prints output the page does not show"
        else:
            assert out == step.output, f"the block at line {step.line} prints something else"


def test_the_typescript_examples_type_check(ts_project: Path) -> None:
    tsc = ts_project / "node_modules" / ".bin" / "tsc"
    run = subprocess.run(
        [str(tsc), "-p", "."], cwd=ts_project, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(
    ("section", "needle"),
    [
        ("Edit before approval", "transfers.append(approved)"),
        ("Several interrupts, answered by id", "reply(i.id"),
        ("Several interrupts, answered by id", "reversed(result.interrupts)"),
        ("Partial answers", "UNKNOWN_INTERRUPT"),
        ("Resuming in another process", "subprocess.run("),
        ("Hooks or the tool body", "BeforeToolCallEvent"),
        ("Hooks or the tool body", "tool_context.interrupt("),
    ],
)
def test_each_section_shows_what_its_pattern_is_about(section: str, needle: str) -> None:
    assert needle in sections()[section]


def test_each_requirement_link_points_at_its_block() -> None:
    anchors = {
        r["id"]: r["anchor"]
        for r in json.loads((ROOT / "spec" / "requirements.json").read_text())["requirements"]
    }
    links = re.findall(r"\[(ROC-[A-Z]+-\d{3})\]\(\.\./spec/([^)]+)\)", PAGE.read_text(encoding="utf-8"))
    assert len(links) >= 15
    for rid, target in links:
        assert target == anchors[rid], f"{rid} links to {target}, its block is {anchors[rid]}"


def test_the_built_page_shows_each_section_and_its_output(site: Path) -> None:
    html = (site / "patterns" / "index.html").read_text(encoding="utf-8")
    for title in SECTIONS:
        assert f">{title}<" in html
    # The outputs render as code blocks, not as prose: the transfer as it ran is in one.
    assert re.search(r"<code>.*ran with:.*ACME Ltd", html, re.S)
    # Setup and each pattern: a tab set whose tabs are Python and TypeScript, in that order.
    tab_sets = re.findall(r'<div class="tabbed-set[^"]*"(.*?)<div class="tabbed-content">', html, re.S)
    assert len(tab_sets) == len(SECTIONS) + 1
    for labels in tab_sets:
        assert re.findall(r"<label[^>]*>([^<]+)</label>", labels) == ["Python", "TypeScript"]
    # Example files show their names.
    for name in ("scripted.ts", "payments.py", "resume.py", "payments.ts", "resume.ts"):
        assert f'<span class="filename">{name}</span>' in html
