"""The page's JSON endpoints and who may call them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.support.vaults import VaultFactory, index_md
from wikiq.errors import ConfigError
from wikiq.http_gate import is_loopback, server_token
from wikiq.web.app import create_app
from wikiq.wiki import Wiki

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"
LOCAL = "http://127.0.0.1:8765"


@pytest.fixture(scope="module")
def demo() -> Wiki:
    return Wiki.open(DEMO, use_cache=False)


@pytest.fixture
def client(demo: Wiki) -> Iterator[TestClient]:
    with TestClient(create_app(demo), base_url=LOCAL) as c:
        yield c


def test_the_page_is_served_with_a_policy_that_forbids_inline_script(client: TestClient) -> None:
    response = client.get("/")

    assert response.status_code == 200
    assert '<form id="ask-form"' in response.text
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/graph.js").status_code == 200


def test_info_describes_the_vault(client: TestClient) -> None:
    info = client.get("/api/info").json()

    assert info["name"] == info["obsidian_vault"] == "demo-vault"
    assert info["pages"] == 49
    assert info["link_prefix"] == "wiki/"
    assert info["by_type"]["entity"] == 25


def test_search_endpoint_returns_the_search_json(client: TestClient, demo: Wiki) -> None:
    data = client.get("/api/search", params={"q": "Hohmann transfer", "k": 5}).json()
    expected = demo.search("Hohmann transfer", k=5).to_dict(str(DEMO.resolve()), "wiki")

    assert data["results"][0]["path"] == "concepts/hohmann-transfer-orbit"
    assert [r["path"] for r in data["results"]] == [r["path"] for r in expected["results"]]
    assert set(data) == set(expected)


def test_page_endpoint_renders_the_page_and_links_it_to_obsidian(client: TestClient) -> None:
    data = client.get("/api/page", params={"path": "entities/voyager-program"}).json()

    assert data["title"] == "Voyager program"
    assert data["obsidian_url"] == (
        "obsidian://open?vault=demo-vault&file=wiki%2Fentities%2Fvoyager-program"
    )
    assert '<a class="wikilink"' in data["html"]
    assert data["links_out"] and data["links_in"]


def test_page_endpoint_refuses_traversal_and_reports_missing_pages(client: TestClient) -> None:
    refused = client.get("/api/page", params={"path": "../../etc/passwd"})
    missing = client.get("/api/page", params={"path": "concepts/warp-drive"})

    assert refused.status_code == 403 and "Refused" in refused.json()["error"]
    assert missing.status_code == 404 and "No page" in missing.json()["error"]


def test_a_hostile_page_previews_without_any_script(make_vault: VaultFactory) -> None:
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/evil|evil]]"),
            "wiki/concepts/evil.md": (
                "---\ntype: concept\n---\n# Evil\n<script>alert(1)</script>\n"
                '<img src=x onerror="alert(2)">\n[x](javascript:alert(3))\n'
            ),
        }
    )
    with TestClient(create_app(Wiki.open(vault, use_cache=False)), base_url=LOCAL) as c:
        html = c.get("/api/page", params={"path": "concepts/evil"}).json()["html"]

    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html


def test_graph_endpoint_lights_the_cited_pages(client: TestClient) -> None:
    graph = client.get(
        "/api/graph", params={"q": "gravity assist", "cited": ["wiki/concepts/gravity-assist"]}
    ).json()

    cited = [n["path"] for n in graph["nodes"] if n["cited"]]
    assert cited == ["concepts/gravity-assist"]
    assert any(n["role"] == "neighbour" for n in graph["nodes"])


def test_loopback_server_refuses_requests_for_another_host_name(demo: Wiki) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name.
    with TestClient(create_app(demo), base_url="http://evil.example") as c:
        assert c.get("/api/info").status_code == 403
    with TestClient(create_app(demo), base_url="http://localhost:8765") as c:
        assert c.get("/api/info").status_code == 200


def test_a_token_is_required_on_every_request_when_set(demo: Wiki) -> None:
    app = create_app(demo, token="s3cret-token", loopback=False)
    with TestClient(app, base_url="http://192.168.1.20:8765") as c:
        assert c.get("/").status_code == 401
        assert c.get("/api/info").status_code == 401
        assert (
            c.get("/api/info", headers={"Authorization": "Bearer wrong-token"}).status_code == 401
        )
        ok = c.get("/api/info", headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200

        opened = c.get("/", params={"token": "s3cret-token"})  # the printed link
        assert opened.status_code == 200
        assert "wikiq_token=s3cret-token" in opened.headers["set-cookie"]
        assert "HttpOnly" in opened.headers["set-cookie"]
        assert c.get("/api/info").status_code == 200  # the cookie now carries it


def test_a_token_is_generated_for_any_address_but_loopback() -> None:
    assert server_token("127.0.0.1", None) == (None, False)
    assert server_token("::1", None) == (None, False)
    token, generated = server_token("0.0.0.0", None)
    assert generated and token and len(token) >= 24
    assert server_token("0.0.0.0", "my-long-token") == ("my-long-token", False)
    with pytest.raises(ConfigError):
        server_token("0.0.0.0", "bad token;")
    assert is_loopback("localhost") and is_loopback("127.0.0.2") and not is_loopback("0.0.0.0")
