# kubeforensics: kubectl why-terminating, flux-chain and safe-retire.
#
#   make demo   build everything, start a local control plane seeded with the incident,
#               run the plugins against it, tear it down
#   make test   every test: unit, fuzz seeds, and integration tests on a real control plane
#   make build  the plugin executables, the MCP server and the render worker in bin/

GO        ?= go
BIN       := bin
PLUGINS   := kubectl-why_terminating kubectl-flux_chain kubectl-safe_retire
# The MCP server serving the plugins' analyses as tools (docs/mcp.md), and the render worker
# the plugins start beside themselves for each chart render (internal/chartrender).
SERVERS   := kubeforensics-mcp kubeforensics-helmrender
# The Flux CLI plugin names of the same binaries (internal/cli picks the form from argv[0]):
# FLUXCD_PLUGINS=$PWD/bin makes `flux chain` run bin/flux-chain.
FLUX_LINKS := flux-why-terminating:kubectl-why_terminating flux-chain:kubectl-flux_chain flux-safe-retire:kubectl-safe_retire
CP_BUILD  := hack/controlplane/build.sh

.PHONY: all build test test-short vet fmt controlplane demo bench clean corpus-renamed

all: build

build:
	@mkdir -p $(BIN)
	@for p in $(PLUGINS) $(SERVERS); do \
		if [ -d cmd/$$p ]; then $(GO) build -trimpath -o $(BIN)/$$p ./cmd/$$p || exit 1; fi; \
	done
	@for l in $(FLUX_LINKS); do ln -sf $${l#*:} $(BIN)/$${l%%:*}; done
	@ls $(BIN)

# The control-plane binaries are built once from the module proxy and cached outside the
# repository (about 10-25 minutes on 2 cores the first time).
controlplane:
	@bash $(CP_BUILD) >/dev/null

vet:
	$(GO) vet ./...

fmt:
	@out=$$(gofmt -l cmd internal plugins hack test); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Integration tests share one control plane per package; -p 1 keeps two of them from
# competing for the machine's cores. test/e2e builds a goreleaser snapshot and installs it with
# krew: tens of minutes with cold caches (the tools are cached in ~/.cache/kubeforensics/tools).
test: controlplane fmt vet
	TZ=UTC $(GO) test -p 1 -count=1 -timeout 75m ./...

test-short:
	TZ=UTC $(GO) test -short -count=1 ./...

# The why-terminating corpus with every product renamed (issue #38's metamorphic check,
# docs/why-terminating.md "Renamed products"): opt-in, not part of `make test`. About 20 minutes.
CORPUS_RENAME_SEED ?= 1
corpus-renamed: controlplane
	KF_CORPUS_RENAME=$(CORPUS_RENAME_SEED) TZ=UTC $(GO) test -p 1 -count=1 -timeout 60m -v ./test/corpus/whyterminating/

# Graphviz renders the chain picture; on Debian it is installed when missing (root only).
demo: build controlplane
	@command -v dot >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		echo "installing graphviz from Debian for the chain picture" && \
		apt-get update -qq >/dev/null && apt-get install -y -qq graphviz >/dev/null; } || true
	@$(GO) run ./hack/demo

# Benchmarks on the real apiserver, each printing its ratios against the alternatives the issues
# name (the kubectl idiom, a bare LIST floor). A few minutes each.
bench: controlplane
	bash hack/bench-why-terminating.sh
	TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkFluxChain$$' -benchtime 1x -timeout 45m -v ./plugins/fluxchain/
	KF_SKIP_INTEGRATION=1 TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkRepoLint$$' -benchtime 1x -timeout 30m -v ./plugins/fluxchain/
	KF_SKIP_INTEGRATION=1 TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkOfflineGate$$' -benchtime 1x -timeout 30m -v ./plugins/saferetire/
	KF_SKIP_INTEGRATION=1 TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkRenderIsolation$$' -benchtime 1x -timeout 10m -v ./plugins/saferetire/
	KF_SKIP_INTEGRATION=1 TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkHelmGate$$' -benchtime 1x -timeout 30m -v ./plugins/saferetire/
	KF_SKIP_INTEGRATION=1 TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkFlate$$' -benchtime 1x -timeout 60m -v ./plugins/saferetire/
	KF_SKIP_INTEGRATION=1 TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkIncrementalLoad$$' -benchtime 1x -timeout 60m ./internal/gitops/
	TZ=UTC $(GO) test -run '^$$' -bench '^BenchmarkFleet$$' -benchtime 1x -timeout 20m -v ./test/fleet/

# Release: a snapshot of every plugin for every platform in dist/ (goreleaser, one build at a
# time), krew manifests rendered into dist/krew/, and the archive size per platform.
.PHONY: release-snapshot krew-validate docs
release-snapshot:
	@bash hack/release/snapshot.sh

# krew's validate-krew-manifest on the krew/ templates rendered for a stand-in build.
krew-validate:
	TZ=UTC $(GO) test -count=1 -run 'TestValidateKrewManifest|TestManifestsFollowKrewRules' ./hack/release/krewgen

# Regenerate docs/reference/ from the plugins' cobra commands and docs/schema/ from their
# Result types (a test fails when either is stale).
docs:
	$(GO) run ./hack/release/docgen
	$(GO) run ./hack/release/schemagen

clean:
	rm -rf $(BIN) dist
