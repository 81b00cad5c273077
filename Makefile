# The two commands of the README: `make run` and `make test`.

.PHONY: run test test-go test-e2e fuzz build bench

# A fresh vault from sample-vault/, a token, and the server on
# http://127.0.0.1:8787/mcp; prints where the vault is and how to connect.
# The binary, not go run: go run exits 1 when Ctrl-C stops the server, and
# make then reports an error; cairn itself stops cleanly and exits 0.
run:
	@go build -buildvcs=auto -o bin/cairn ./cmd/cairn
	./bin/cairn demo --from sample-vault

# Everything CI runs: formatting, vet, the Go tests (race detector on; a
# package's tests may take 15 minutes on a loaded 2-core machine), a
# bounded fuzzing run, and the end-to-end tests through the official
# TypeScript MCP client and the MCP conformance suite against the built
# binary.
test: test-go fuzz test-e2e

test-go:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	@# macOS too (Obsidian's people use it): the code and its tests build there.
	GOOS=darwin GOARCH=arm64 go vet ./...
	@command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || echo "make test: sshd is missing, so the SSH remote tests (teamsync) are skipped: apt-get install openssh-server (.ci/run installs it)" >&2
	go test -race -count=1 -timeout 15m ./...

# Each fuzz target for a number of executions, one per `go test` (Go
# fuzzes one target at a time), from its committed corpus
# (testdata/fuzz/<target>/) and seeds. Plain `go test` already replays
# those corpora; this step looks for new failures. A failure leaves its
# input in testdata/fuzz/<target>/: commit it with the fix, as a
# regression test. Counts, not a duration: Go 1.26's coordinator can fail
# a target with a bare "context deadline exceeded" when a -fuzztime
# duration ends while a worker is busy (golang/go#75804, fixed in Go
# 1.27), which a loaded CI machine hits. Each count is about what the
# target runs in 5 s on 2 loaded cores; FUZZX scales them all
# (FUZZX=10 for a longer hunt).
FUZZX ?= 1
FUZZ_TARGETS = \
	vault/note:FuzzFrontmatter:10000 vault/note:FuzzSummarize:10000 vault:FuzzRewriteLinks:5000 vault:FuzzFileName:4000 vault:FuzzFileNameFrom:2000 vault:FuzzCleanRel:10000 \
	wikilinks:FuzzParse:50000 wikilinks:FuzzRewrite:3000 wikilinks:FuzzParseRef:100000 \
	mcptools:FuzzDecodeArgs:5000 search:FuzzASCIIWords:20000

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; n=$$(( $${rest#*:} * $(FUZZX) )); \
		echo "fuzz ./$$pkg $$fn ($${n}x)"; \
		go test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $${n}x ./$$pkg; \
	done

test-e2e: build
	cd e2e && npm ci --no-audit --no-fund --loglevel=error && CAIRN_BIN=$(CURDIR)/bin/cairn node --test

build:
	go build -buildvcs=auto -o bin/cairn ./cmd/cairn

# The figures in docs/benchmarks.md: the foundation on a generated
# 10,000-note vault, the link graph, the watcher, search, LoCoMo
# (structured, and plain under numbered names and names without order),
# the held-out sets (each beside the bench's own plain BM25), and
# the memory idle HTTP sessions hold, hostile notes, many processes on
# one vault, a served vault from outside (servebench, membench), a fresh
# clone's open (openbench), history,
# bounded replies, a simulated team and its limits (teambench), and the
# cost of OAuth tokens. Every program in bench/ is here; bench/bm25,
# bench/corpus, bench/mcpproc and bench/measure are libraries the others
# share.
bench:
	go run ./bench/vaultbench -notes 10000
	go run ./bench/graphbench
	go run ./bench/watchbench
	go run ./bench/searchbench -notes 10000,100000
	go run ./bench/locomo -data ../shared/data/locomo10.json
	go run ./bench/locomo -data ../shared/data/locomo10.json -plain -names numbered
	go run ./bench/locomo -data ../shared/data/locomo10.json -plain -names hashed
	go run ./bench/heldout -set go
	go run ./bench/heldout -set fr-man
	go run ./bench/heldout -set web
	go run ./bench/sessionbench -sessions 10000 -idle 30s
	go run ./bench/pathobench -notes 10000
	go run ./bench/hostbench -notes 10000
	go run ./bench/servebench -notes 10000,100000 -history 1,all
	go run ./bench/openbench -notes 100000 -dir $${TMPDIR:-/tmp}/openbench
	go run ./bench/membench -notes 10000
	go run ./bench/historybench -notes 10000
	go run ./bench/replybench
	go run ./bench/teambench
	go run ./bench/teambench -mode scale
	go test -run '^$$' -bench 'Verify$$' -benchtime 1000x ./oauth
	go test -run '^$$' -bench GrantsMemory -benchtime 3x ./oauth
