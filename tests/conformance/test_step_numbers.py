"""Step numbers agree between findings and transcripts: "step N" in a message is the line ``[step N]``.

Steps count from 0, one per invoke and one per snapshot + restore; the CreateAgent before step 0 is
``[create]`` (``roc_conformance.oracle.driver.Exchange``). Before, the transcript numbered RPCs, so after a
restore (two RPCs) and the CreateAgent "step 2" sat on the line ``[3]`` or later.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from roc_conformance.oracle.vectors import run_vector
from roc_harness_support import client_for, serving

VECTOR = (
    Path(__file__).resolve().parents[2]
    / "conformance"
    / "vectors"
    / "v1"
    / "partial-answers-across-restores.json"
)


def test_a_message_names_the_step_its_transcript_line_carries():
    vector = json.loads(VECTOR.read_text(encoding="utf-8"))
    assert "restore" in vector["steps"][1]  # a restore before the step judged: two RPCs, one step
    wrong = copy.deepcopy(vector)
    wrong["steps"][2]["expect"]["stopReason"] = "end_turn"  # the implementation is right, the vector is not
    with serving() as (address, _), client_for(address) as client:
        found, driver = run_vector(wrong, client)
    messages = [v.message for v in found]
    assert any(f"vector {vector['id']} step 2: " in m for m in messages), messages
    transcript = driver.transcript()
    lines = transcript.splitlines()
    assert lines[0].startswith("[create] → ")
    labelled = [line for line in lines if line.startswith("[")]
    steps = [re.match(r"\[(create|step \d+)\]", line).group(1) for line in labelled]  # type: ignore[union-attr]
    assert steps == ["create", "step 0", "step 1", "step 1", "step 2", "step 3", "step 3", "step 4"]
    step2 = labelled[steps.index("step 2")]
    assert '"rpc":"Invoke"' in step2
    assert '"TakeSnapshot"' in labelled[steps.index("step 1")]
