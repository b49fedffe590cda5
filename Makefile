# agentapp-conformance: build, certify the embedded mockhost, test.
GO        ?= go
BIN       := bin/conformance
REPORT    ?= conformance-report
TESTOUT   := $(shell mktemp -d -u /tmp/agentapp-make-XXXXXX)
STATICCHECK_VERSION ?= v0.8.2
GREMLINS_VERSION ?= v0.6.0
MUTATION_OUT ?= bin/mutation
# COMMIT: the harness's commit, stamped into the binary (report.json
# harness.commit, report.html, `conformance version`): git rev-parse HEAD,
# with -dirty when the tree has changes; `unknown` outside git.
COMMIT    ?= $(shell c=$$(git rev-parse HEAD 2>/dev/null) || c=unknown; \
               if [ "$$c" != unknown ] && [ -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then c=$$c-dirty; fi; echo $$c)
LDFLAGS   := -X main.harnessCommit=$(COMMIT)
# SELFTEST_JOBS: how many selftest children run at once. Three on CI's two
# cores, measured in clean clones: 1585 s against 1645 s at two, though each
# child ran about 45 % longer (the children compete for the CPU, Chromium's
# above all: more children win little).
SELFTEST_JOBS ?= 3
# SELFTEST_FLAGS: extra flags of the selftest stage (e.g. --shard 1/2).
SELFTEST_FLAGS ?=

.PHONY: all build certify test test-quick vet unit unit-quick suites suites-quick suites-webkit selftest selftest-full lint deps chromium webdrivers node tauri-driver clean mutation soak bench-certify example-host coverage

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/conformance

## certify: the main job. Certify the embedded reference host (mockhost) at
## every level this harness judges (conformance levels lists them) and
## write the report to $(REPORT)/.
certify: deps build
	./$(BIN) run --out $(REPORT)

## coverage: write docs/coverage.md, each clause of the standard's five texts
## (levels/clauses.tsv) with the requirements and specs that judge it;
## `go test ./cmd/conformance -run Coverage` fails when it is stale.
coverage:
	$(GO) run ./cmd/conformance coverage --out docs/coverage.md

## test: unit tests (with fuzz seeds and the report page in headless
## Chromium), staticcheck, and selftest (the kill matrix over every mockhost
## fault, and every mockhost variant). Every judged level runs whole over
## stdio as selftest's baseline (and again under its every-reading variant);
## the unit tests run installable and desktop-p1 in-process twice
## (TestTwoRunsGivePredicatesThatDifferOnlyInTimes) and installable and
## desktop-p0 over TCP (TestRunOverTCP); `make suites` runs every level
## in-process and over stdio on its own. Each stage prints how long it took
## (README, "Test budget").
test: deps build example-host unit lint selftest suites-webkit

## test-quick: the edit loop, under 5 minutes on 2 cores: vet, gofmt,
## staticcheck, the unit tests that start no browser and no harness child
## (go test -short), and the browser-free levels over the in-process
## transport. It proves less than `make test`: run that before you push.
test-quick: build unit-quick lint suites-quick

vet:
	$(GO) vet ./...
	$(GO) vet -tags mutation ./mockhost   # make mutation builds mockhost's tests under this tag
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$unformatted" ]; then echo "gofmt: unformatted: $$unformatted"; exit 1; fi

unit: vet build
	@start=$$(date +%s); AGENTAPP_CONFORMANCE_BIN=$(abspath $(BIN)) $(GO) test -count=1 -timeout 20m ./... && echo "unit: $$(( $$(date +%s) - start )) s"

unit-quick: vet
	$(GO) test -short -count=1 -timeout 10m ./...

suites-quick: build
	./$(BIN) run --quiet --out $(TESTOUT)/quick --level catalog --level installable --level desktop-p0
	rm -rf $(TESTOUT)

## suites: every level mockhost claims (every level this harness judges),
## in-process and over stdio: anything but exit 0 fails.
SURFACE_LEVELS := --level catalog --level installable --level capability --level runtime --level product --level executable --level desktop-p0 --level desktop-p1 --level desktop-p2 --level desktop-p3 --level desktop-p4 --level desktop-p5 --level desktop-p6
suites: build
	@start=$$(date +%s); \
	  ./$(BIN) run --quiet --out $(TESTOUT)/in-process $(SURFACE_LEVELS) && \
	  ./$(BIN) run --quiet --out $(TESTOUT)/stdio $(SURFACE_LEVELS) --host-cmd "./$(BIN) mockhost --stdio" && \
	  echo "suites: $$(( $$(date +%s) - start )) s"
	rm -rf $(TESTOUT)

## selftest: the kill matrix and the variants in the breaks scope (README,
## "How we know the suites catch real bugs"); selftest-full: every fault
## and every variant over every spec of the levels it touches (not part of
## `make test`: about 80 minutes here).
selftest: build
	@start=$$(date +%s); ./$(BIN) selftest --scope breaks --jobs $(SELFTEST_JOBS) $(SELFTEST_FLAGS) && echo "selftest: $$(( $$(date +%s) - start )) s"

selftest-full: build
	./$(BIN) selftest

lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

## bench-certify: how long a certification of the embedded mockhost at every
## judged level takes here (BenchmarkCertifyEveryLevel: the wall time of
## `conformance run` as a user runs it, and its spec time); not part of
## `make test`, which asserts no wall-clock figure.
bench-certify: deps
	$(GO) test -run '^$$' -bench '^BenchmarkCertifyEveryLevel$$' -benchtime 3x -count 1 ./cmd/conformance

## soak: the browser specs (launch, app center, Host Bridge) against the
## clean mockhost SOAK_RUNS times in a row, each run in its own process; any
## spec that does not pass in any run fails the target (not part of
## `make test`).
SOAK_RUNS ?= 20
soak: build
	@fails=0; for i in $$(seq $(SOAK_RUNS)); do \
	  ./$(BIN) run --quiet --out $(TESTOUT)/soak $(SURFACE_LEVELS) --label-filter '/^(BRIDGE|CENTER|LAUNCH)-/' >/dev/null 2>&1; \
	  if grep -Eq '"outcome": *"(failed|error|flaky|blocked|skipped|interrupted)"' $(TESTOUT)/soak/report.json; then \
	    fails=$$((fails+1)); echo "soak run $$i: a browser spec did not pass (kept in $(TESTOUT)/soak-$$i)"; cp -r $(TESTOUT)/soak $(TESTOUT)/soak-$$i; \
	  fi; \
	done; echo "soak: $$(($(SOAK_RUNS)-fails)) of $(SOAK_RUNS) runs passed every browser spec"; \
	test $$fails -eq 0 && rm -rf $(TESTOUT)

## mutation: mutation testing over mockhost with the conformance suites as
## the test (gremlins; not part of `make test`), one area of mockhost at a
## time (mockhost/mutation/areas.tsv; MUTATION_AREAS picks some). A mutant
## that lives is a behaviour of the reference host no spec checks: see
## docs/mutation.md for how to read the survivors and the figures per area.
mutation:
	@test -x bin/tools/gremlins || GOBIN=$(abspath bin/tools) $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)
	mockhost/mutation/run.sh $(MUTATION_OUT) $(MUTATION_AREAS)

## example-host: the TypeScript example host a host team starts from
## (examples/minimal-host, Node 20, no Go). Node and npm come from Debian
## when node is missing; npm ci installs the locked yaml and typescript, tsc
## builds dist/, and the harness certifies the host over stdio at installable
## and desktop-p0: anything but exit 0 fails.
EXAMPLE_HOST := examples/minimal-host
example-host: build node
	@start=$$(date +%s); \
	  (cd $(EXAMPLE_HOST) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build) && \
	  out=$$(mktemp -d /tmp/agentapp-example-host-XXXXXX) && \
	  ./$(BIN) run --host-cmd "node $(EXAMPLE_HOST)/dist/main.js" --level installable --level desktop-p0 --out $$out/report --quiet; \
	  rc=$$?; \
	  if [ $$rc -eq 0 ]; then rm -rf "$$out"; else echo "example-host: the report is kept in $$out/report"; fi; \
	  echo "example-host: exit $$rc, $$(( $$(date +%s) - start )) s"; \
	  test $$rc -eq 0

## suites-webkit: every level mockhost claims, judged in WebKitGTK over
## WebDriver (WebKitWebDriver under xvfb-run): the browser specs on the
## second engine; anything but exit 0 fails.
suites-webkit: build
	@start=$$(date +%s); \
	  ./$(BIN) run --quiet --browser-engine webkit --out $(TESTOUT)/webkit $(SURFACE_LEVELS) && \
	  echo "suites-webkit: $$(( $$(date +%s) - start )) s"
	rm -rf $(TESTOUT)

## deps: Debian's chromium for the report page test, and the WebDriver
## remote ends (chromium-driver, webkit2gtk-driver, xvfb) for the browser
## specs on WebKit (never a downloaded browser); tauri-driver (the npm
## package's prebuilt binary, locked in drivers/webdriver/tauri-driver) for
## the test of the Tauri path. npm install, not npm ci: the lock holds only
## the Linux build of its optional per-platform packages, which npm ci
## refuses as out of sync.
deps: chromium webdrivers tauri-driver

## node: Node and npm from Debian when node is missing.
node:
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }
	@node --version

TAURI_DRIVER := drivers/webdriver/tauri-driver
tauri-driver: node
	@test -x $(TAURI_DRIVER)/node_modules/.bin/tauri-driver || \
	  (cd $(TAURI_DRIVER) && npm install --no-save --no-audit --no-fund --loglevel=error)
	@$(TAURI_DRIVER)/node_modules/.bin/tauri-driver --help >/dev/null && echo "tauri-driver: $(TAURI_DRIVER)/node_modules/.bin/tauri-driver"

webdrivers:
	@{ command -v chromedriver && command -v WebKitWebDriver && command -v xvfb-run; } >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium-driver webkit2gtk-driver xvfb >/dev/null; }
	@chromedriver --version && command -v WebKitWebDriver && command -v xvfb-run && test -x /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	@chromium --version

clean:
	rm -rf bin $(REPORT)
