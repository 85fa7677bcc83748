"""Properties that hold for any text: nothing raises, slugs are stable, counts are sane."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from wikiq.text import (
    count_tokens,
    detect_language,
    slugify,
    stem,
    tokenize,
)

# Plain st.text() rarely produces CJK; mix in the scripts the package treats specially.
_CJK_HEAVY = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),
        st.characters(min_codepoint=0xAC00, max_codepoint=0xD7AF),
        st.sampled_from(list(" .-'’,，。？（）的是和Aa1")),
        # Compatibility forms that NFKC turns into CJK or ASCII: ｶﾅ ㊀ ⼈ ＧＰＴ４ ﬁ.
        st.sampled_from(list("ｶﾅﾀｰ㊀㈠⼈⺟豈ＧＰＴ４ﬁ①")),
        # Lone surrogates reach Python strings through surrogateescape and bad JSON.
        st.characters(categories=["Cs"]),
    )
)
_ANY_TEXT = st.one_of(st.text(), _CJK_HEAVY)


@given(_ANY_TEXT)
def test_slugify_is_idempotent(text: str) -> None:
    slug = slugify(text)
    assert slug
    assert slugify(slug) == slug


@given(_ANY_TEXT)
def test_slug_has_no_unsafe_characters_or_edge_dashes(text: str) -> None:
    slug = slugify(text)
    assert not set(slug) & set("/\\:*?\"<>|,()'!、，。；：！？（）【】《》 ")
    assert not slug.startswith("-")
    assert not slug.endswith("-")
    assert "--" not in slug


@given(_ANY_TEXT)
def test_tokens_are_nonempty_lowercase_words(text: str) -> None:
    for token in tokenize(text):
        assert token
        assert token == token.lower()
        assert not any(ch.isspace() for ch in token)


@given(_ANY_TEXT)
def test_count_tokens_is_zero_only_for_empty_text(text: str) -> None:
    count = count_tokens(text)
    assert count >= 0
    assert (count == 0) == (text == "")


@given(_ANY_TEXT, _ANY_TEXT)
def test_count_tokens_never_shrinks_when_text_is_appended(a: str, b: str) -> None:
    assert count_tokens(a + b) >= count_tokens(a)


@given(_ANY_TEXT)
def test_detect_language_returns_a_known_code(text: str) -> None:
    assert detect_language(text) in {"zh", "ja", "ko", "en", "fr", "de", "es", "pt", "it", "other"}


@given(st.text())
def test_stem_never_raises_and_never_grows_much(token: str) -> None:
    assert len(stem(token)) <= len(token) + 1
