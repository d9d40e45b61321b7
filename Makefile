# iobench: build, run the main job, test.
#   make run    builds iobench and runs the main job on the embedded defaults
#   make seeds  builds iobench and reproduces the five seeds in one run and one report
#               (SEEDS_FLAGS=--full for the seeds' own sizes)
#   make test   installs and starts what the tests need, then go vet + go test -race
GO      ?= go
BIN     := bin/iobench
PKG     := github.com/iobench/iobench
COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# BUILD tells this build's binaries from any other's: iobench hands `http` off to bin/iobench-http
# only when both carry the same stamp (internal/handoff).
BUILD   := $(shell date -u +%Y%m%dT%H%M%SZ)-$(shell od -An -N4 -tx4 /dev/urandom | tr -d ' ')
LDFLAGS := -s -w -X $(PKG)/internal/version.Commit=$(COMMIT) -X $(PKG)/internal/version.Build=$(BUILD)
# State of the services `make test` starts (kept apart from a user's `iobench services up`).
TEST_STATE ?= $(CURDIR)/.state/test-services

.PHONY: build run seeds test vet bench clean

# Static binaries (no cgo): iobench, and iobench-http, the lean generator image `iobench http`
# runs as (docs/ARCHITECTURE.md, "Two images").
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/iobench ./cmd/iobench-http

run: build
	./$(BIN) run

# The five seeds (scenarios/seed1-bus.yaml .. seed5-fanout.yaml) as one suite: services started
# once, impls missing a prerequisite skipped with what to install, one report with a section per
# seed and its verdict.
SEEDS_FLAGS ?=
seeds: build
	./$(BIN) run $(SEEDS_FLAGS) seeds

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# The services are real (RabbitMQ, PostgreSQL, Redis, Memcached) and started once for all packages;
# they are stopped again whatever the tests say. The allocation tests skip under -race (the race
# detector allocates), so they run once more without it.
# go test starts packages in the order given, -p (the cores) at a time: the longest ones
# (SLOW_TESTS) go first, so that none of them is left to run alone at the end.
SLOW_TESTS := ./internal/workload/bus/ ./internal/workload/cachequeue/ ./internal/workload/fanout/ ./cmd/iobench/
test: build vet
	bash scripts/install-services.sh --with-test-tools
	./$(BIN) services up --state-dir $(TEST_STATE)
	set -e; eval "$$(./$(BIN) services env --state-dir $(TEST_STATE))"; \
	status=0; $(GO) test -race -timeout 15m $(SLOW_TESTS) ./... || status=$$?; \
	$(GO) test -count=1 -run Allocs ./internal/engine/ ./internal/httpload/ ./internal/httpcmd/ || status=$$?; \
	./$(BIN) services down --state-dir $(TEST_STATE); exit $$status

bench: build
	bash bench/http-vs-wrk.sh

clean:
	rm -rf bin .state
