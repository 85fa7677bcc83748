from tests.support.fixtures import fake_llm, fast_retry, sleeps  # noqa: F401
