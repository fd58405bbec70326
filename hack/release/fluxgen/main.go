// Command fluxgen writes the Flux CLI plugin catalog for one goreleaser build: a
// cli.fluxcd.io/v1beta1 Plugin manifest per plugin (<flux name>.yaml: chain.yaml,
// why-terminating.yaml, safe-retire.yaml) and the PluginCatalog (catalog.yaml), built with the
// Flux CLI's own types (github.com/fluxcd/flux2/v2/pkg/plugin). `flux plugin install chain`
// fetches $FLUXCD_PLUGIN_CATALOG/chain.yaml, downloads the archive for its platform, checks
// the sha256 and extracts the binary flux-chain into its plugin directory. Beside the archives
// it writes one <bin>_<version>_checksums.txt per plugin (flux-chain_0.3.1_checksums.txt),
// which the Flux plugin catalog's update workflow reads, and it refuses to write anything that
// catalog's CI would reject (package fluxcatalog).
//
//	go run ./hack/release/fluxgen [-dist dist] [-out dist/flux] [-base-url URL] [-previous DIR]
//
// The catalog and krew share the archives: each holds the executable as flux-<name>, which
// started under that name is the Flux form and, linked by krew as kubectl-<name>, the kubectl
// form (internal/cli).
// -base-url is where the archives are downloaded from (default the tag's release page);
// -previous is a directory of earlier manifests whose versions are kept after the new one.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubeforensics/suite/hack/release/fluxcatalog"
)

// Homepage is the project page every manifest names.
const Homepage = "https://github.com/kubeforensics/suite"

func main() {
	dist := flag.String("dist", "dist", "goreleaser's output directory")
	out := flag.String("out", "", "directory to write the catalog to (default <dist>/flux)")
	baseURL := flag.String("base-url", "", "URL the archives are downloaded from (default the tag's release page)")
	previous := flag.String("previous", "", "directory of earlier manifests to keep the versions of")
	krew := flag.String("krew", "krew", "directory of the krew manifest templates, read for each plugin's description")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*dist, "flux")
	}
	written, err := run(options{dist: *dist, out: *out, baseURL: *baseURL, previous: *previous, krew: *krew})
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(written, "\n"))
}

type options struct{ dist, out, baseURL, previous, krew string }

// run writes every plugin's manifest and the catalog, and returns the files it wrote.
func run(o options) ([]string, error) {
	b, err := ReadBuild(o.dist)
	if err != nil {
		return nil, err
	}
	if o.baseURL == "" {
		o.baseURL = Homepage + "/releases/download/" + b.Tag
	}
	descriptions, err := readDescriptions(o.krew)
	if err != nil {
		return nil, err
	}
	manifests, err := b.Manifests(o.baseURL, descriptions)
	if err != nil {
		return nil, err
	}
	if o.previous != "" {
		if err := keepPrevious(manifests, o.previous); err != nil {
			return nil, err
		}
	}
	catalog := Catalog(manifests)
	var errs []error
	for _, m := range manifests {
		errs = append(errs, fluxcatalog.CheckManifest(m)...)
	}
	if errs = append(errs, fluxcatalog.CheckCatalog(catalog, manifests)...); len(errs) > 0 {
		return nil, fmt.Errorf("the Flux plugin catalog would reject this: %w", errors.Join(errs...))
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	written, err := b.WritePluginChecksums(o.dist)
	if err != nil {
		return nil, err
	}
	for _, m := range manifests {
		dst := filepath.Join(o.out, m.Name+".yaml")
		if err := writeYAML(dst, m); err != nil {
			return nil, err
		}
		written = append(written, dst)
	}
	dst := filepath.Join(o.out, "catalog.yaml")
	if err := writeYAML(dst, catalog); err != nil {
		return nil, err
	}
	return append(written, dst), nil
}
