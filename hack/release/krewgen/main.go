// Command krewgen renders the krew manifest templates in krew/ for one goreleaser build: the
// version from dist/metadata.json and, for each platform, the uri and sha256 of the plugin's
// archive listed in dist/artifacts.json. It runs after `goreleaser release` (goreleaser's own
// krew publisher writes manifests from its config, not from templates kept in the repo).
//
//	go run ./hack/release/krewgen [-dist dist] [-templates krew] [-out dist/krew] [-base-url URL]
//
// -base-url is where the archives will be downloaded from; it defaults to the release page of
// the build's tag. The krew e2e test points it at a local HTTP server.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Homepage is the project page every manifest names.
const Homepage = "https://github.com/kubeforensics/suite"

func main() {
	dist := flag.String("dist", "dist", "goreleaser's output directory")
	templates := flag.String("templates", "krew", "directory of manifest templates, one <plugin>.yaml each")
	out := flag.String("out", "", "directory to write the manifests to (default <dist>/krew)")
	baseURL := flag.String("base-url", "", "URL the archives are downloaded from (default the tag's release page)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*dist, "krew")
	}
	written, err := run(*dist, *templates, *out, *baseURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(written, "\n"))
}

// run renders every template for the build in dist and returns the manifests it wrote.
func run(dist, templates, out, baseURL string) ([]string, error) {
	b, err := ReadBuild(dist)
	if err != nil {
		return nil, err
	}
	if baseURL == "" {
		baseURL = Homepage + "/releases/download/" + b.Tag
	}
	names, err := filepath.Glob(filepath.Join(templates, "*.yaml"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no templates in %s", templates)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, t := range names {
		plugin := strings.TrimSuffix(filepath.Base(t), ".yaml")
		src, err := os.ReadFile(t)
		if err != nil {
			return nil, err
		}
		data, err := b.Data(plugin, baseURL)
		if err != nil {
			return nil, err
		}
		manifest, err := Render(plugin, string(src), data)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(out, plugin+".yaml")
		if err := os.WriteFile(dst, manifest, 0o644); err != nil {
			return nil, err
		}
		written = append(written, dst)
	}
	return written, nil
}
