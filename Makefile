.PHONY: setup demo test lint
setup:
	scripts/setup
demo:
	scripts/demo
test:
	scripts/test
lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy
