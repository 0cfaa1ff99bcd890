"""The OpenAPI schema holds: schemathesis over every operation finds no 5xx, and every
response matches its documented status, content type and schema (bounded examples)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from apihelpers import api

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
EXAMPLES = 8


def test_every_operation_conforms_to_the_schema(tmp_path: Path) -> None:
    with api(tmp_path / "home", rate_limit=0) as live:
        schema = schemathesis.openapi.from_asgi("/openapi.json", live.client.app)
        failures: list[str] = []
        operations = 0
        for result in schema.get_all_operations():
            operation = result.ok()
            operations += 1

            @given(case=operation.as_strategy())
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
                database=None,
            )
            def run(case: Any) -> None:
                case.call_and_validate(headers=live.admin, checks=CHECKS)

            try:
                run()
            except Exception as exc:  # collect every operation's failure, then report
                failures.append(f"{operation.label}: {exc}")
        assert operations >= 15
        assert not failures, "\n\n".join(failures)
