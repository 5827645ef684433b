# dispatchkit: `make test` and `make demo` set everything up themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.stamp-deps
ORACLE_STAMP := $(VENV)/.stamp-oracle

.PHONY: test demo setup oracle dot browser lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# Runtime + test dependencies, the project itself (editable). Re-run only when pyproject.toml changes.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e ".[test]"
	touch $@

# The torch oracle (CPU build from the local wheel cache). Tests skip with a reason when it is absent.
$(ORACLE_STAMP): | $(PY)
	$(PIP) install -q torch==2.13.0 || echo "warning: torch oracle not installed; oracle tests will be skipped"
	touch $@

# Debian's graphviz for `dot` (SVG rendering), installed when missing and we are root.
dot:
	@if command -v dot >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing graphviz (dot) with apt-get"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null) \
		|| echo "warning: could not install graphviz; SVG rendering tests will be skipped"; \
	else echo "note: 'dot' is missing; install Debian's graphviz (apt-get install graphviz) for SVG output"; fi

# Debian's chromium + chromedriver for the viewer's browser test (selenium comes with the test extras), installed
# when missing and we are root; the test skips with the reason otherwise.
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium and chromium-driver with apt-get (for the viewer's browser test)"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
		|| echo "warning: could not install chromium; the browser test will be skipped"; \
	else echo "note: chromium / chromedriver missing; install Debian's chromium and chromium-driver for the browser test"; fi

setup: $(STAMP) $(ORACLE_STAMP) dot

# the suite on both cores (pytest-xdist: two worker processes, tests handed out in groups by file)
test: setup browser
	$(PY) -m pytest -q -n 2 --dist loadfile

demo: setup
	$(PY) -m tracer demo

lint: setup
	$(VENV)/bin/ruff check .

bench: setup
	for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info test-artifacts
