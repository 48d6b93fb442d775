# rankline tasks (POSIX make). Installs are stamped .venv/.installed-{run,dev}-<cksum of the
# pyproject.toml> so they rerun when pyproject changes. `make run ARGS="--port 8000"`.
.POSIX:
.PHONY: all run install install-dev install-bench venv services tools check test test-fast bench fmt clean lock grpc-stubs dist swagger-ui

PYTHON = python3
VENV = .venv
BIN = $(VENV)/bin
ARGS =
# pytest-xdist workers (three: many tests wait on a server or a broker, and the third keeps two
# cores busy), and extra pytest arguments for `make test` (`PYTEST_ARGS=--durations=25`).
WORKERS = 3
PYTEST_ARGS =

all: check

# pip 24 or later: an older one cannot resolve rankline[dev] beside rankline-bench, which
# requires rankline (pip 23.2, Python 3.11's and 3.12's own, finds no rankline for it).
PIP_MIN = pip>=24
venv:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)

# Runtime install (pip install -e .). A dev install satisfies it too.
install: venv
	@h=$$(cat pyproject.toml clients/python/pyproject.toml bench/pyproject.toml | cksum | cut -d " " -f 1); \
	if [ ! -f $(VENV)/.installed-run-$$h ] && [ ! -f $(VENV)/.installed-dev-$$h ]; then \
		echo "pip install -e ./clients/python -e . (into $(VENV))"; \
		$(BIN)/python -m pip install -q --upgrade '$(PIP_MIN)' && \
		$(BIN)/python -m pip install -q -e ./clients/python -e . && \
		rm -f $(VENV)/.installed-run-* && touch $(VENV)/.installed-run-$$h; \
	fi

install-dev: venv
	@h=$$(cat pyproject.toml clients/python/pyproject.toml bench/pyproject.toml | cksum | cut -d " " -f 1); \
	if [ ! -f $(VENV)/.installed-dev-$$h ]; then \
		echo "pip install -e ./clients/python -e ./bench -e '.[dev]' (into $(VENV))"; \
		$(BIN)/python -m pip install -q --upgrade '$(PIP_MIN)' && \
		$(BIN)/python -m pip install -q -e ./clients/python -e ./bench -e '.[dev]' && \
		rm -f $(VENV)/.installed-dev-* && touch $(VENV)/.installed-dev-$$h; \
	fi

run: install
	$(BIN)/rankline serve $(ARGS)

services:
	@bash scripts/ensure-services.sh

# Debian's chromium (the page tests), wrk (the benchmark and its tests), podman and
# debootstrap (the image test), nodejs and npm (the TypeScript client's tests); apt-get
# installs what is missing.
tools:
	@bash scripts/ensure-tools.sh

# The import layers (pyproject's [tool.importlinter]), no import cycle anywhere, and the layout
# (scripts/check-layout.py: at most 20 modules at the top, none over 600 lines); the gRPC
# stubs match the proto (regenerated into a temporary directory and compared), and the proto
# keeps its style and every field number of the released one (scripts/proto-lint.py).
check: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python scripts/check-import-cycles.py
	$(BIN)/python scripts/check-layout.py
	$(BIN)/python scripts/grpc-stubs.py --check
	$(BIN)/python scripts/proto-lint.py

# Regenerate the Python stubs of src/rankline/grpc/proto/rankline/v1/rankline.proto (grpcio-tools).
grpc-stubs: install-dev
	$(BIN)/python scripts/grpc-stubs.py

# Tests compile rankline once (some machines set PYTHONDONTWRITEBYTECODE, which would make every
# process the suite starts compile the package again, and pytest rewrite the tests again).
TEST_ENV = env -u PYTHONDONTWRITEBYTECODE

# pytest exits 5 when no test ran: that is nonzero, so it fails the build. The slow tests of a
# module run on one worker, the rest is shared out test by test (tests/conftest.py groups them).
test: install-dev services tools
	@$(MAKE) check
	$(TEST_ENV) $(BIN)/pytest -n $(WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The fast lane: the pure and in-process tests on the embedded default (memory-sqlite); no
# database, Redis or broker needed, no server process started. A few minutes.
test-fast: install-dev
	$(TEST_ENV) RANKLINE_TEST_BACKENDS=memory-sqlite $(BIN)/pytest -n $(WORKERS) --dist loadgroup \
		-m "not services and not slow" $(PYTEST_ARGS)

# The benchmark's extra (matplotlib, py-spy); a dev install has it too.
install-bench: venv
	@h=$$(cat pyproject.toml clients/python/pyproject.toml bench/pyproject.toml | cksum | cut -d " " -f 1); \
	if [ ! -f $(VENV)/.installed-bench-$$h ] && [ ! -f $(VENV)/.installed-dev-$$h ]; then \
		echo "pip install -e ./clients/python -e ./bench -e '.[bench]' (into $(VENV))"; \
		$(BIN)/python -m pip install -q --upgrade '$(PIP_MIN)' && \
		$(BIN)/python -m pip install -q -e ./clients/python -e ./bench -e '.[bench]' && \
		rm -f $(VENV)/.installed-bench-* && touch $(VENV)/.installed-bench-$$h; \
	fi

# Quick mode (N=1M, 10 s per endpoint, < 10 min); `make bench ARGS="--markdown docs/performance.md"`.
# Needs the local PostgreSQL and Redis (started by `services`) and wrk (installed here).
bench: install install-bench services
	@bash scripts/ensure-tools.sh wrk
	$(BIN)/rankline bench --quick $(ARGS)

# requirements.lock: pyproject's runtime dependencies and those of the extras the image uses
# (IMAGE_EXTRAS), pinned with their hashes; the container image installs exactly these, and
# the distributions built from this tree (rankline-client) from the tree. Run it after
# changing the dependencies: it keeps every pin it can (`make lock ARGS=--upgrade` moves them
# all to the newest allowed). A test checks that the lock still matches pyproject.toml.
IMAGE_EXTRAS = --extra postgres --extra mariadb --extra redis --extra nats --extra kafka \
	--extra grpc --extra otel --extra tokens \
	--extra openskill
lock: install-dev
	rm -rf build/lock && $(BIN)/python -m pip wheel -q --no-deps -w build/lock ./clients/python
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --generate-hashes \
		--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
		--find-links build/lock $(IMAGE_EXTRAS) --output-file requirements.lock $(ARGS) \
		pyproject.toml
	awk '/^rankline-client==/ { skip = 1; next } skip && /^[ \t]/ { next } { skip = 0; print }' \
		requirements.lock > build/lock/requirements.lock && mv build/lock/requirements.lock .

# The sdist and wheel of every distribution (rankline, clients/python's rankline-client,
# bench/'s rankline-bench) into dist/, checked by twine. tests/test_wheels.py installs the
# wheels into fresh virtual environments; `nox -s wheels` does it on Python 3.11 to 3.13.
dist: install-dev
	rm -rf dist
	for where in . clients/python bench; do \
		$(BIN)/python -m build --outdir dist $$where || exit 1; \
	done
	$(BIN)/twine check --strict dist/*

# The Swagger UI files /docs serves (src/rankline/static/swagger/), from npm's swagger-ui-dist
# (VERSION=5 by default: the newest 5.x). Not run by the tests.
swagger-ui:
	scripts/refresh-swagger-ui.sh $(or $(VERSION),5)

fmt: install-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) build dist .nox .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -rf src/*.egg-info *.egg-info .coverage htmlcov
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
