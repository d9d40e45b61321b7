# iobench: build, run the main job, test.
#   make run    builds iobench and runs the main job on the embedded defaults
#   make test   installs and starts what the tests need, then go vet + go test -race
GO      ?= go
BIN     := bin/iobench
PKG     := github.com/iobench/iobench
COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X $(PKG)/internal/version.Commit=$(COMMIT)
# State of the services `make test` starts (kept apart from a user's `iobench services up`).
TEST_STATE ?= $(CURDIR)/.state/test-services

.PHONY: build run test vet bench clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/iobench

run: build
	./$(BIN) run

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# The services are real (RabbitMQ, PostgreSQL, Redis, Memcached) and started once for all packages;
# they are stopped again whatever the tests say.
test: build vet
	bash scripts/install-services.sh --with-test-tools
	./$(BIN) services up --state-dir $(TEST_STATE)
	set -e; eval "$$(./$(BIN) services env --state-dir $(TEST_STATE))"; \
	status=0; $(GO) test -race -timeout 15m ./... || status=$$?; \
	./$(BIN) services down --state-dir $(TEST_STATE); exit $$status

bench: build
	bash bench/http-vs-wrk.sh

clean:
	rm -rf bin .state
