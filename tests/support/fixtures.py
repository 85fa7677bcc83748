"""Fixtures other test packages import from their conftest:

from tests.support.fixtures import fake_llm, fast_retry, sleeps  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_llm import FakeLLM
from wikiq.llm.transport import RetryPolicy


class SleepLog(list[float]):
    """A `sleep` that only records how long it was asked to wait."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A running scripted model server; `fake_llm.base_url` is its OpenAI-compatible `/v1`."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
def sleeps() -> SleepLog:
    return SleepLog()


@pytest.fixture
def fast_retry(sleeps: SleepLog) -> RetryPolicy:
    """The default retry policy, except that waits are recorded in `sleeps` instead of slept."""
    return RetryPolicy(sleep=sleeps, jitter=lambda: 0.0)
