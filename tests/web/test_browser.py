"""The real page in headless Chromium: ask, watch the answer stream in, follow its links.

Needs Debian's `chromium` (Playwright's own download does not work offline). Without it the
tests skip, unless WIKIQ_REQUIRE_E2E=1 (CI), where a missing browser is a failure.
Screenshots go to a folder printed at the start of the run (`pytest -s` shows it; set
WIKIQ_SCREENSHOTS=<folder> to keep them).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM, Reply
from tests.support.vaults import VaultFactory, index_md
from tests.web.conftest import (
    DOCKED,
    SPACE_RACE_NOTE,
    LiveServer,
    citing_responder,
    note_citing_responder,
    serve,
)
from wikiq.web.app import create_app
from wikiq.wiki import Wiki

pytestmark = pytest.mark.e2e

CHROMIUM = os.environ.get("WIKIQ_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set WIKIQ_CHROMIUM)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _browser_missing()
    if missing:
        if os.environ.get("WIKIQ_REQUIRE_E2E") == "1":
            pytest.fail(f"WIKIQ_REQUIRE_E2E=1 but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's temporary folder, or WIKIQ_SCREENSHOTS to keep them past pytest's clean-up."""
    chosen = os.environ.get("WIKIQ_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nwikiq browser screenshots: {folder}")
    return folder


def page_for(
    browser: Any, url: str, width: int = 1280, height: int = 860, *, bypass_csp: bool = False
) -> Any:
    context = browser.new_context(
        viewport={"width": width, "height": height}, bypass_csp=bypass_csp
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.on(
        "dialog", lambda dialog: (page.errors.append(f"dialog: {dialog.message}"), dialog.dismiss())
    )
    page.goto(url)
    page.wait_for_function(
        "() => document.querySelector('#vault-info').textContent.includes('pages')"
    )
    return page


def ask(page: Any, question: str) -> Any:
    turns = page.locator(".turn").count()
    page.fill("#question", question)
    page.press("#question", "Enter")
    turn = page.locator(".turn").nth(turns)
    page.wait_for_function(
        "n => document.querySelectorAll('.turn')[n].classList.contains('done')",
        arg=turns,
        timeout=30_000,
    )
    return turn


def test_an_answer_streams_in_with_links_to_pages_and_a_graph_of_them(
    browser: Any, live: LiveServer, model_env: FakeLLM, shots: Path
) -> None:
    model_env.responder = citing_responder(delay=0.02)  # slow enough to see it stream
    page = page_for(browser, live.url)

    page.fill("#question", "How does a gravity assist work?")
    page.press("#question", "Enter")
    # Mid-stream: some text shown, the answer not finished yet.
    page.wait_for_function(
        "() => (document.querySelector('.answer-body')?.textContent.length || 0) > 10"
    )
    assert not page.locator(".turn").first.evaluate("t => t.classList.contains('done')")
    page.wait_for_selector(".turn.done", timeout=30_000)
    turn = page.locator(".turn").first

    assert turn.locator(".badge.arm").inner_text() == "Lex+PPR"
    assert turn.locator(".purellm-banner").is_hidden()
    links = turn.locator(".answer-body a.wikilink")
    assert links.count() >= 2
    cited = set()
    for i in range(links.count()):
        link = links.nth(i)
        path = link.get_attribute("data-page")
        assert path in live.wiki.catalog.by_path
        assert link.get_attribute("href") == (
            "obsidian://open?vault=demo-vault&file=" + ("wiki/" + path).replace("/", "%2F")
        )
        cited.add(path)
    assert "concepts/gravity-assist" in cited

    # The graph shows the cited pages, lit, among their neighbours.
    lit = set(page.eval_on_selector_all("#graph g.node.cited", "ns => ns.map(n => n.dataset.path)"))
    assert lit == cited
    assert page.locator("#graph g.node.neighbour").count() > 0
    assert page.locator("#graph line.edge").count() > 0
    page.screenshot(path=str(shots / "answer.png"))

    # A link previews its page inside the app, with a way to open it in Obsidian.
    links.first.click()
    page.wait_for_selector("#preview:not([hidden])")
    page.wait_for_function(
        "() => document.querySelector('#preview-title').textContent === 'Gravity assist'"
    )
    assert (
        page.locator("#preview-obsidian")
        .get_attribute("href")
        .startswith("obsidian://open?vault=demo-vault&file=wiki%2Fconcepts%2Fgravity-assist")
    )
    assert "slingshot" in page.locator("#preview-body").inner_text().lower()
    page.screenshot(path=str(shots / "answer-with-preview.png"))

    # A graph node is clickable too.
    page.locator("#graph g.node", has_text="Voyager").first.click()
    page.wait_for_function(
        "() => document.querySelector('#preview-title').textContent === 'Voyager program'"
    )

    # A follow-up is sent with the conversation so far.
    ask(page, "Which probes used one?")
    messages = model_env.chat_requests[-1].json["messages"]
    assert messages[-3]["content"] == "How does a gravity assist work?"
    assert "[[__WIKI_FOLDER__/" in messages[-2]["content"]
    assert page.locator(".turn").count() == 2
    assert page.errors == []


def test_the_excerpts_of_a_cited_note_show_under_the_answer_with_the_passage_marked(
    browser: Any, live: LiveServer, model_env: FakeLLM, shots: Path
) -> None:
    model_env.responder = note_citing_responder()
    page = page_for(browser, live.url)
    turn = ask(page, DOCKED)

    excerpts = turn.locator(".excerpts")
    assert excerpts.is_visible()
    assert excerpts.locator("figure.excerpt").count() == 1
    link = excerpts.locator("a.note-link")
    assert link.get_attribute("href") == (
        "obsidian://open?vault=demo-vault&file=" + SPACE_RACE_NOTE.replace("/", "%2F").replace(" ", "%20")
    )
    assert link.inner_text() == "Reading notes on a history of the space race"
    marked = excerpts.locator("blockquote mark").inner_text()
    # The note wraps its lines ("…44 hours\ndocked together…"): shown as the paragraph it is.
    assert "spent about 44 hours docked together" in marked
    quote = excerpts.locator("blockquote").inner_text()
    assert "Sputnik" in quote and "Sputnik" not in marked  # the excerpt, the passage marked in it
    assert "## Chapter 9: handshake in orbit\n" in quote  # a heading keeps its own line
    # The answer cites a note and no page: the status line says so, not "1 page cited".
    assert turn.locator(".status").inner_text().startswith("1 note cited")
    page.screenshot(path=str(shots / "answer-with-excerpts.png"))

    # An answer that cites no note shows none.
    model_env.responder = citing_responder()
    other = ask(page, "How does a gravity assist work?")
    assert other.locator(".excerpts").is_hidden()
    assert page.errors == []


def test_a_question_the_vault_does_not_cover_shows_the_banner(
    browser: Any, live: LiveServer, shots: Path
) -> None:
    page = page_for(browser, live.url)

    turn = ask(page, "What is the best sourdough pizza recipe?")

    banner = turn.locator(".purellm-banner")
    assert banner.is_visible()
    assert "not from your vault" in banner.inner_text().lower()
    assert turn.locator(".badge.arm").inner_text() == "LLM+KB"
    assert turn.locator(".answer-body a.wikilink").count() == 0
    assert "sourdough" in turn.locator(".answer-body").inner_text().lower()
    assert page.locator("#graph g.node").count() == 0
    page.screenshot(path=str(shots / "not-in-vault.png"))
    assert page.errors == []


def test_a_follow_up_is_searched_with_the_question_before_it_and_says_so(
    browser: Any, live: LiveServer, shots: Path
) -> None:
    page = page_for(browser, live.url)
    ask(page, "Who was the first person to walk on the Moon?")
    turn = ask(page, "When was he born?")
    assert "searched with the earlier question" in turn.locator(".status").inner_text()
    assert "Who was the first person" in (turn.locator(".badge.arm").get_attribute("title") or "")
    assert "neil-armstrong" in turn.locator(".answer-body").inner_html()
    assert page.errors == []


def test_the_pages_own_words_follow_the_questions_language(
    browser: Any, live: LiveServer, shots: Path
) -> None:
    page = page_for(browser, live.url)
    chinese = ask(page, "谁是中国第一位进入太空的航天员？")
    assert "引用" in chinese.locator(".status").inner_text()
    english = ask(page, "Who was the first person to walk on the Moon?")
    assert "cited" in english.locator(".status").inner_text()
    assert page.errors == []


def test_the_page_works_at_phone_width(browser: Any, live: LiveServer, shots: Path) -> None:
    page = page_for(browser, live.url, width=390, height=844)

    ask(page, "How does a gravity assist work?")

    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert page.locator("#graph g.node.cited").count() >= 1
    box = page.locator("#ask-button").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    page.locator(".answer-body a.wikilink").first.click()
    page.wait_for_selector("#preview:not([hidden])")
    page.screenshot(path=str(shots / "phone.png"), full_page=True)
    assert page.errors == []


def test_at_phone_width_the_whole_placeholder_fits_in_the_ask_box(
    browser: Any, live: LiveServer, shots: Path
) -> None:
    page = page_for(browser, live.url, width=390, height=844)
    # The whole placeholder is readable: laid out at the box's own width and font (as the
    # browser wraps it), it is no taller than the box's inside, and never wider.
    fits = page.evaluate(
        """() => { const t = document.querySelector('#question');
                   const cs = getComputedStyle(t), ph = getComputedStyle(t, '::placeholder');
                   const m = document.createElement('div');
                   const inner = t.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
                   Object.assign(m.style, {position: 'absolute', visibility: 'hidden', width: inner + 'px',
                     font: cs.font, fontSize: ph.fontSize, lineHeight: cs.lineHeight,
                     whiteSpace: ph.whiteSpace, overflowWrap: 'break-word'});
                   m.textContent = t.placeholder; document.body.appendChild(m);
                   const need = m.scrollHeight, wide = m.scrollWidth; m.remove();
                   const room = t.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
                   return {need, room, wide, inner}; }"""
    )
    assert fits["need"] <= fits["room"] + 1 and fits["wide"] <= fits["inner"] + 1, fits
    page.screenshot(path=str(shots / "phone-placeholder.png"))
    assert page.errors == []


def test_at_phone_width_a_long_third_answer_starts_in_view_above_the_ask_box(
    browser: Any, live: LiveServer, model_env: FakeLLM, shots: Path
) -> None:
    # Long answers, so the third one grows well past the bottom of the screen.
    long = "".join(f"Step {i}: the craft borrows momentum from the planet it passes.\n\n" for i in range(40))
    model_env.responder = lambda body: Reply.text(chunks=[long[i : i + 60] for i in range(0, len(long), 60)])
    page = page_for(browser, live.url, width=390, height=844)
    for q in ("How does a gravity assist work?", "What is a Hohmann transfer orbit?", "Who was Yuri Gagarin?"):
        turn = ask(page, q)
    page.wait_for_timeout(800)  # the smooth scroll
    # Its start (the question and the status line) is on screen, not hidden behind the sticky
    # ask box at the bottom.
    form = page.locator(".ask-form").bounding_box()
    for part in (turn.locator(".question-bubble"), turn.locator(".status")):
        box = part.bounding_box()
        assert box is not None and form is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= form["y"], (box, form)
    page.screenshot(path=str(shots / "phone-third-answer.png"))
    assert page.errors == []


def test_script_in_a_page_or_an_answer_never_runs(
    browser: Any, model_env: FakeLLM, make_vault: VaultFactory, shots: Path
) -> None:
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/hostile-page|hostile-page]]"),
            "wiki/concepts/hostile-page.md": (
                "---\ntype: concept\ntitle: Hostile page\n---\n# Hostile page\n\n"
                "<script>window.__pwned = 'script'</script>\n\n"
                "<img src=x onerror=\"window.__pwned = 'onerror'\">\n\n"
                "[click](javascript:window.__pwned='link') and [[concepts/hostile-page]]\n"
            ),
        }
    )
    model_env.responder = lambda body: Reply.text(
        chunks=[
            "See [[__WIKI_FOLDER__/concepts/hostile-page]]. ",
            "<img src=x onerror=\"window.__pwned='answer'\">",
            "<script>window.__pwned='answer-script'</script>",
        ]
    )
    wiki = Wiki.open(vault)
    with serve(create_app(wiki)) as url:
        # With the page's Content-Security-Policy, and without it: the sanitizing alone holds.
        for bypass_csp in (False, True):
            page = page_for(browser, url, bypass_csp=bypass_csp)
            turn = ask(page, "Tell me about the hostile page")
            assert "<img src=x" in turn.locator(".answer-body").inner_text()
            turn.locator(".answer-body a.wikilink").first.click()
            page.wait_for_function(
                "() => document.querySelector('#preview-title').textContent === 'Hostile page'"
            )
            page.wait_for_timeout(300)  # let any injected handler fire, if one could
            body = page.locator("#preview-body")
            assert "<script>" in body.inner_text()
            assert body.locator("script, img, iframe").count() == 0
            assert page.evaluate("() => window.__pwned") is None
            assert page.errors == []
            page.screenshot(path=str(shots / f"hostile-page{'-no-csp' if bypass_csp else ''}.png"))
            page.context.close()
    wiki.close()
