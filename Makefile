# The two commands of the README: `make run` and `make test`.

.PHONY: run test test-go test-e2e build bench

# A fresh vault from sample-vault/, a token, and the server on
# http://127.0.0.1:8787/mcp; prints where the vault is and how to connect.
run:
	go run ./cmd/cairn demo --from sample-vault

# Everything CI runs: formatting, vet, the Go tests (race detector on), and
# the end-to-end tests through the official TypeScript MCP client and the
# MCP conformance suite against the built binary.
test: test-go test-e2e

test-go:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	go test -race -count=1 ./...

test-e2e: build
	cd e2e && npm ci --no-audit --no-fund --loglevel=error && CAIRN_BIN=$(CURDIR)/bin/cairn node --test

build:
	go build -o bin/cairn ./cmd/cairn

# The figures in docs/benchmarks.md: the foundation on a generated
# 10,000-note vault, the link graph, the watcher, search, LoCoMo, and
# the memory idle HTTP sessions hold.
bench:
	go run ./bench/vaultbench -notes 10000
	go run ./bench/graphbench
	go run ./bench/watchbench
	go run ./bench/searchbench -notes 10000,100000
	go run ./bench/locomo -data ../shared/data/locomo10.json
	go run ./bench/sessionbench -sessions 10000 -idle 30s
