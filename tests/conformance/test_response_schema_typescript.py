"""The TypeScript kit (conformance/adapters/kit-typescript) checks the cross-language response schema vectors
(spec/examples/response-schema/vectors.json) with ``ajv`` (draft 2020-12, all errors): the same subset
verdicts and the same normalized errors as the Python reference's ``jsonschema`` (spec 14.5).

Skipped, with the reason, when Node.js 20+ or npm is not installed (``node_kit``).
"""

from __future__ import annotations

import pytest
from node_kit import checked, ready_node


@pytest.mark.req("ROC-SCHEMA-002", "ROC-SCHEMA-005")
def test_the_typescript_kit_reproduces_every_response_schema_vector() -> None:
    node = ready_node()
    checked([node, "--import", "tsx", "--test", "test/response-schema.test.ts"], timeout=300)
