"""The TypeScript kit (conformance/adapters/kit-typescript) checks the cross-language canonical JSON vectors
(spec/examples/canonical/vectors.json) with the npm package ``canonicalize``, and verifies the digests and
integrity tags of the frozen snapshot fixtures as the Python writer computed them.

Skipped, with the reason, when Node.js 20+ or npm is not installed (``node_kit``).
"""

from __future__ import annotations

import pytest
from node_kit import checked, ready_node

CANONICAL_TESTS = ["test/canonical.test.ts", "test/frozen-snapshots.test.ts"]


@pytest.mark.req("ROC-SNAP-008", "ROC-SNAP-015")
def test_the_typescript_kit_reproduces_every_canonical_vector() -> None:
    node = ready_node()
    checked([node, "--import", "tsx", "--test", *CANONICAL_TESTS], timeout=300)
