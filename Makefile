# Two entry points: `make demo` and `make check`. Both build .venv from scratch
# when it is missing, so a fresh clone needs nothing but Python 3.11 and make.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# Examples run offline in checks, whatever keys the shell has.
OFFLINE := env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY

.PHONY: demo check system-deps lint typecheck verifytypes test docs examples bench bench-quick clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: $(BIN)/activate pyproject.toml
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: $(BIN)/activate pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.demo-installed

demo: $(VENV)/.demo-installed
	$(PY) examples/quickstart.py

check: system-deps lint typecheck test docs examples bench-quick

# System programs some tests need that the package index does not provide (Graphviz's
# `dot` for the workflow pictures). Installed with apt when `make` runs as root on Debian;
# elsewhere those tests skip with the reason, and CI (AGENTCORE_REQUIRE_EXTERNAL=1) fails
# on such a skip.
SYSTEM_PACKAGES := dot:graphviz

system-deps:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
		command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	if [ -z "$$missing" ]; then echo "system packages present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "missing system packages:$$missing (not root on Debian: the tests that need them skip)"; fi

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy
	$(BIN)/basedpyright
	@$(MAKE) --no-print-directory verifytypes

# Every public symbol of each import package fully typed: `basedpyright --verifytypes`
# must score 100 % (it exits non-zero below). It finds the installed packages through
# the `python` on PATH, hence the venv's bin first.
TYPED_PACKAGES := agentcore agentcore_openai agentcore_anthropic agentcore_contrib \
	agentcore_mcp agentcore_dbos agentcore_postgres

verifytypes: $(VENV)/.dev-installed
	@set -e; for pkg in $(TYPED_PACKAGES); do \
		if out=$$(PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/basedpyright --verifytypes $$pkg \
				--ignoreexternal 2>&1) && echo "$$out" | grep -q "completeness score: 100%"; then \
			echo "$$pkg: public API 100% typed"; \
		else \
			echo "$$out"; echo "$$pkg: public API not fully typed (basedpyright --verifytypes)"; \
			exit 1; \
		fi; \
	done

test: $(VENV)/.dev-installed
	$(BIN)/pytest -n auto --cov --cov-branch --cov-report=term:skip-covered --cov-fail-under=85
	$(BIN)/coverage report --include='agentcore/*' --fail-under=90

docs: $(VENV)/.dev-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site

examples: $(VENV)/.dev-installed
	@set -e; for script in examples/*.py; do \
		echo "== $$script"; $(OFFLINE) $(PY) $$script > /dev/null; \
	done; echo "all examples ran"

bench: $(VENV)/.dev-installed
	$(PY) -m benchmarks

bench-quick: $(VENV)/.dev-installed
	$(PY) -m benchmarks --quick

clean:
	rm -rf $(VENV) site .coverage .mypy_cache .ruff_cache
