"""What the OpenAPI schema promises matches what the server does, where a schema-driven
fuzzer (schemathesis) found it did not: 405s name every allowed method, a body that
cannot be parsed is a documented 400, downloads carry a documented media type."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from apihelpers import Api, api

DOC = b"# Plants\n\nWater the ferns every Monday.\n"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("contract") / "home", ingest=False) as a:
        yield a


@pytest.fixture(scope="module")
def schema(app: Api) -> dict[str, Any]:
    result: dict[str, Any] = app.client.get("/openapi.json").json()
    return result


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/documents/abc", "GET, PATCH, DELETE"),
        ("POST", "/api/sessions/abc", "GET, DELETE"),
        ("GET", "/api/chat", "POST"),
        ("DELETE", "/api/admin/users/abc/tokens", "GET, POST"),
        ("PUT", "/v1/models", "GET"),
    ],
)
def test_405_lists_every_method_the_path_answers(
    app: Api, schema: dict[str, Any], method: str, path: str, allowed: str
) -> None:
    r = app.client.request(method, path, headers=app.admin)
    assert r.status_code == 405 and r.headers["allow"] == allowed
    assert r.json()["error"]["code"] == "method_not_allowed"
    assert method in r.json()["error"]["message"]
    templated = next(p for p in schema["paths"] if _matches(p, path))
    assert sorted(m.upper() for m in schema["paths"][templated]) == sorted(allowed.split(", "))


def _matches(template: str, path: str) -> bool:
    a, b = template.strip("/").split("/"), path.strip("/").split("/")
    return len(a) == len(b) and all(x == y or x.startswith("{") for x, y in zip(a, b, strict=True))


def test_an_unparsable_upload_is_a_documented_400(app: Api, schema: dict[str, Any]) -> None:
    r = app.client.post(
        "/api/documents",
        content=b"--xyz\r\nnot a part",
        headers={**app.admin, "Content-Type": "multipart/form-data; boundary=xyz"},
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    assert "400" in schema["paths"]["/api/documents"]["post"]["responses"]


def test_downloads_carry_a_documented_media_type(app: Api, schema: dict[str, Any]) -> None:
    up = app.client.post("/api/documents", files={"file": ("plants.md", DOC)}, headers=app.admin)
    assert up.status_code == 201, up.text
    r = app.client.get(f"/api/documents/{up.json()['id']}/download", headers=app.alice)
    assert r.status_code == 200
    for path in ("/api/documents/{document_id}/download", "/public/documents/{document_id}"):
        documented = schema["paths"][path]["get"]["responses"]["200"]["content"]
        assert r.headers["content-type"].split(";")[0] in documented
        assert {"application/pdf", "text/plain", "application/octet-stream"} <= set(documented)
