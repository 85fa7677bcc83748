"""Page previews: Markdown rendered so that nothing from a page can run in the browser."""

from __future__ import annotations

from html.parser import HTMLParser

from wikiq.web.render import SafeMarkdown

HOSTILE = """# Notes <script>alert('title')</script>

<script>alert(document.cookie)</script>

<img src=x onerror="alert(1)">

<div onclick="alert(2)">click</div>

[click me](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=)
[vb](vbscript:msgbox) [file](file:///etc/passwd)

![tracker](https://evil.example/pixel.png) ![x" onerror="alert(4)](x.png)

<iframe src="https://evil.example"></iframe> <svg onload=alert(5)></svg>

[[concepts/orbit|Orbit <b onmouseover=alert(6)>]] and [[nowhere]]

```html
<script>alert(7)</script>
```
"""


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def parse(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(html)
    return parser.tags


def render(text: str) -> str:
    return SafeMarkdown(lambda t: "concepts/orbit" if t.endswith("orbit") else None).render(text)


def test_no_tag_or_attribute_from_a_page_can_run_script() -> None:
    tags = parse(render(HOSTILE))

    names = {tag for tag, _ in tags}
    assert names <= {"h1", "p", "a", "span", "pre", "code", "strong", "em"}
    for _, attrs in tags:
        assert not [a for a in attrs if a.startswith("on")]
        href = (attrs.get("href") or "").lower()
        assert not href.startswith(("javascript:", "data:", "vbscript:", "file:"))
        assert "src" not in attrs


def test_hostile_markup_is_shown_as_text() -> None:
    html = render(HOSTILE)

    assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=" in html


def test_remote_images_are_not_fetched_but_named() -> None:
    html = render("![tracker](https://evil.example/pixel.png)")

    assert "<img" not in html
    assert "[image: tracker]" in html


def test_web_links_open_in_a_new_tab_without_referrer() -> None:
    tags = parse(render("[site](https://example.org/a?b=1)"))

    assert (
        "a",
        {
            "href": "https://example.org/a?b=1",
            "target": "_blank",
            "rel": "noopener noreferrer nofollow",
            "class": "external",
        },
    ) in tags


def test_wiki_links_point_at_their_page_and_dead_ones_are_plain_text() -> None:
    tags = parse(render("See [[wiki/concepts/orbit|the orbit]] and [[nowhere]]."))

    links = [attrs for tag, attrs in tags if tag == "a"]
    assert links == [
        {"class": "wikilink", "href": "#page=concepts/orbit", "data-page": "concepts/orbit"}
    ]
    dead = [attrs for tag, attrs in tags if tag == "span"]
    assert dead and dead[0]["class"] == "wikilink dead"


def test_wiki_links_inside_code_stay_code() -> None:
    html = render("`[[concepts/orbit]]`")

    assert "<code>[[concepts/orbit]]</code>" in html


def test_obsidian_syntax_is_drawn_as_obsidian_draws_it() -> None:
    md = SafeMarkdown(lambda t: "concepts/orbit" if t == "orbit" else None)
    html = md.render(
        "> [!tip] Use the hotkey\n> It opens the palette ^callout-tip\n\n"
        "See [[#Supported types]], [[orbit#History|its history]] and [[ghost]]. Done ^abc-1\n"
    )
    # A callout is a titled box, not a quote with "[!tip]" in it.
    assert '<blockquote class="callout" data-callout="tip"><p class="callout-title">Use the hotkey</p>' in html
    assert "[!tip]" not in html
    # Block ids are not text.
    assert "^callout-tip" not in html and "^abc-1" not in html and "Done</p>" in html
    # A link to a section of this page is not a dead link; a missing page still is.
    assert '<span class="wikilink section" title="a section of this page">Supported types</span>' in html
    assert 'data-page="concepts/orbit">its history</a>' in html
    assert '<span class="wikilink dead" title="not a page in this vault">ghost</span>' in html


def test_a_callout_title_cannot_carry_markup() -> None:
    html = SafeMarkdown(lambda t: None).render("> [!note] <img src=x onerror=alert(1)>\n> body\n")
    assert "<img" not in html and "&lt;img" in html
