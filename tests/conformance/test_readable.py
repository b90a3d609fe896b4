"""Shortening for people keeps JSON whole: long values end in a marker, a cut value is mended, never half."""

from __future__ import annotations

import json

from roc_conformance.readable import ELLIPSIS, clip, readable_lines, readable_text

REPLY = {"result": {"stopReason": "interrupt", "text": "y" * 500}, "trace": [{"turn": n} for n in range(80)]}


def got(text: str):
    return json.loads(text.split("got ", 1)[1])


def test_long_values_are_shortened_and_stay_json():
    shown = got(readable_text("expected ['X'], got " + json.dumps(REPLY)))
    assert shown["result"]["stopReason"] == "interrupt"
    assert shown["result"]["text"].endswith(ELLIPSIS)
    assert len(shown["result"]["text"]) < 500
    assert shown["trace"][-1] == f"{ELLIPSIS} 50 more"
    assert shown["trace"][0] == {"turn": 0}


def test_a_value_cut_by_its_producer_keeps_its_complete_members():
    cut = "got " + json.dumps(REPLY)[:60]  # inside "text"
    shown = got(readable_text(cut))
    assert shown == {"result": {"stopReason": "interrupt", ELLIPSIS: ELLIPSIS}}
    assert readable_text('got {"a') == f"got {ELLIPSIS}"  # not one member complete


def test_clip_cuts_by_length_and_mends():
    message = "step 2: got " + json.dumps(REPLY)
    mended = 0
    for limit in range(12, 300, 7):
        text = clip(message, limit).removesuffix(f" {ELLIPSIS}")
        if text.endswith(f"got {ELLIPSIS}") or text.strip() == "step 2: got":
            continue  # nothing whole to show yet
        assert got(text)["result"]  # whole JSON, whatever the limit
        mended += 1
    assert mended > 20


def test_brackets_that_are_not_json_are_kept():
    assert readable_text("[step 2] expected ['A', 'B']") == "[step 2] expected ['A', 'B']"


def test_long_transcripts_keep_their_first_and_last_lines():
    lines = [f'[step {n}] → {{"rpc":"Invoke","n":{n}}}' for n in range(100)]
    kept = readable_lines("\n".join(lines), max_chars=400)
    assert kept[0] == lines[0]
    assert kept[-1] == lines[-1]
    assert "line(s) left out" in kept[1]
    assert sum(len(k) for k in kept) < 600
