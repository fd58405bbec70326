package lint

import (
	"bytes"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Bounds on reading a repository's bootstrap files: they come from the repository.
const (
	maxBootstrapEntries = 20000
	maxBootstrapFile    = 1 << 20
	maxBootstrapBytes   = 128 << 20
)

// Bootstrap is what a repository installs outside Flux, before it starts, as far as its files
// show without running anything: CRDs in the manifests its bootstrap steps apply (kubectl apply
// of a file in a script, Taskfile, Makefile or justfile, or in a helmfile hook; a Talos
// machine config's inline manifests; a manifest outside every path Flux builds, as a Talos or
// k3s manifests directory holds; a `flux bootstrap` gotk-components.yaml), CRDs a bootstrap step
// names (crd/NAME.GROUP), and the helmfile releases, whose charts' CRDs are known when a
// HelmRelease of the same chart is rendered. What a step applies that cannot be read offline
// (a URL) is listed as unread.
type Bootstrap struct {
	// kinds are group/Kind -> where; groups are group -> where.
	kinds, groups map[string]string
	// Releases are the helmfile releases, which install their charts.
	Releases []HelmfileRelease
	// Unread are what bootstrap steps apply that was not read ("URL (file)").
	Unread []string
}

// HelmfileRelease is one release of a helmfile: it installs its chart (and the chart's CRDs)
// before Flux starts.
type HelmfileRelease struct {
	Name, Namespace, Chart, File string
}

// Where says where the CRD serving group/kind is installed outside Flux, "" when nowhere known.
func (b *Bootstrap) Where(group, kind string) string {
	if b == nil {
		return ""
	}
	if w := b.kinds[group+"/"+kind]; w != "" {
		return w
	}
	return b.groups[group]
}

func (b *Bootstrap) addKind(gk, where string) {
	if _, ok := b.kinds[gk]; !ok {
		b.kinds[gk] = where
	}
}

// releaseFor is the helmfile release that installs the chart of HelmRelease hr, nil when none:
// the same chart name, or (a helmfile that templates its charts from the HelmReleases) the same
// release name and namespace.
func (b *Bootstrap) releaseFor(hr *unstructured.Unstructured) *HelmfileRelease {
	if b == nil {
		return nil
	}
	chart := chartBase(chartOf(hr))
	for i, rel := range b.Releases {
		if (rel.Chart != "" && chartBase(rel.Chart) == chart && chart != "") ||
			(rel.Name == hr.GetName() && rel.Namespace == hr.GetNamespace() && (rel.Chart == "" || strings.Contains(rel.Chart, "{{"))) {
			return &b.Releases[i]
		}
	}
	return nil
}

// chartBase is a chart reference's name: "oci://ghcr.io/x/charts/app" and "repo/app" are "app".
func chartBase(ref string) string {
	ref = strings.TrimSuffix(ref, "/")
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		ref = ref[i+1:]
	}
	name, _, _ := strings.Cut(ref, ":")
	return name
}

// ReadBootstrap reads the bootstrap files of the repository whose top level is top; fluxDirs
// (relative to top) are the paths Flux builds and fluxFiles the files its builds read, whose
// CRDs are the tiers' and not bootstrap's. Files that cannot be read are skipped: what they
// would declare stays undeclared, and crd-order says so.
func ReadBootstrap(top string, fluxDirs []string, fluxFiles map[string]bool) *Bootstrap {
	b := &Bootstrap{kinds: map[string]string{}, groups: map[string]string{}}
	entries, total := 0, 0
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entries++; entries > maxBootstrapEntries || total > maxBootstrapBytes {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(top, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != top && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".taskfiles" || d.Name() == "node_modules" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		kind := bootstrapKind(rel)
		if kind == "" || !d.Type().IsRegular() {
			return nil
		}
		data, ok := readBounded(p)
		if !ok {
			return nil
		}
		total += len(data)
		b.read(top, rel, kind, data, fluxDirs, fluxFiles)
		return nil
	})
	slices.Sort(b.Unread)
	b.Unread = slices.Compact(b.Unread)
	return b
}

// bootstrapKind classifies a file by its name: "script" (shell, make, task, just files),
// "yaml", or "" for files not read.
func bootstrapKind(rel string) string {
	base := path.Base(rel)
	switch {
	case strings.HasSuffix(base, ".sh"), strings.HasSuffix(base, ".bash"), base == "Makefile", base == "GNUmakefile",
		strings.HasSuffix(base, ".mk"), strings.EqualFold(base, "justfile"), base == ".justfile", strings.HasSuffix(base, ".just"):
		return "script"
	case strings.HasSuffix(base, ".yaml"), strings.HasSuffix(base, ".yml"), strings.HasSuffix(base, ".yaml.gotmpl"):
		return "yaml"
	}
	return ""
}

func readBounded(p string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCRDFileBytes+1))
	return data, err == nil && len(data) <= maxCRDFileBytes
}

// read takes what one file says about bootstrap.
func (b *Bootstrap) read(top, rel, kind string, data []byte, fluxDirs []string, fluxFiles map[string]bool) {
	// A file Flux builds is applied in the cluster: a kubectl command in it (a Job's) is not
	// a bootstrap step.
	inFlux := fluxFiles[rel] || slices.ContainsFunc(fluxDirs, func(d string) bool { return d == "." || rel == d || strings.HasPrefix(rel, d+"/") })
	if kind == "script" || !inFlux && len(data) <= maxBootstrapFile && bytes.Contains(data, []byte("kubectl")) {
		b.scanCommands(top, rel, data)
	}
	if kind != "yaml" {
		return
	}
	switch {
	case path.Base(rel) == "gotk-components.yaml":
		b.addCRDs(data, rel+" (flux bootstrap's components)")
	case !inFlux && bytes.Contains(data, []byte("CustomResourceDefinition")):
		b.addCRDs(data, rel+" (a manifest outside every path Flux builds)")
	}
	if len(data) > maxBootstrapFile || inFlux {
		return
	}
	for _, doc := range yamlDocs(data) {
		b.readHelmfile(top, rel, doc)
		b.readTalos(rel, doc)
	}
}

// template matches a Go template action, which helmfiles and Talos patches may hold.
var template = regexp.MustCompile(`\{\{.*?\}\}`)

// yamlDocs decodes the YAML documents of data, with template actions replaced by a word so a
// templated file still decodes; documents that do not decode are skipped.
func yamlDocs(data []byte) []map[string]any {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		t := template.ReplaceAllString(l, "TEMPLATE")
		if s := strings.TrimSpace(t); s == "TEMPLATE" || s == "- TEMPLATE" {
			continue
		}
		lines = append(lines, t)
	}
	var out []map[string]any
	for _, doc := range regexp.MustCompile(`(?m)^---.*$`).Split(strings.Join(lines, "\n"), -1) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err == nil && m != nil {
			out = append(out, m)
		}
	}
	return out
}

// readHelmfile records a helmfile's releases and the kubectl commands of their hooks.
func (b *Bootstrap) readHelmfile(top, rel string, doc map[string]any) {
	releases, ok := doc["releases"].([]any)
	if !ok || !strings.Contains(strings.ToLower(rel), "helmfile") {
		return
	}
	for _, r := range releases {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		if str("name") == "" {
			continue
		}
		b.Releases = append(b.Releases, HelmfileRelease{Name: str("name"), Namespace: str("namespace"), Chart: str("chart"), File: rel})
		hooks, _ := m["hooks"].([]any)
		for _, h := range hooks {
			hm, _ := h.(map[string]any)
			if cmd, _ := hm["command"].(string); path.Base(cmd) != "kubectl" {
				continue
			}
			args, _ := hm["args"].([]any)
			line := "kubectl"
			for _, a := range args {
				if s, ok := a.(string); ok {
					line += " " + s
				}
			}
			b.scanCommands(top, rel, []byte(line))
		}
	}
}

// readTalos records the CRDs of a Talos machine config's inline manifests and its extra
// manifests' URLs as unread.
func (b *Bootstrap) readTalos(rel string, doc map[string]any) {
	cluster, ok := doc["cluster"].(map[string]any)
	if !ok {
		return
	}
	inline, _ := cluster["inlineManifests"].([]any)
	for _, im := range inline {
		m, _ := im.(map[string]any)
		if contents, ok := m["contents"].(string); ok {
			name, _ := m["name"].(string)
			b.addCRDs([]byte(contents), rel+" (Talos inline manifest "+name+")")
		}
	}
	extra, _ := cluster["extraManifests"].([]any)
	for _, u := range extra {
		if s, ok := u.(string); ok {
			b.Unread = append(b.Unread, s+" (Talos extra manifest in "+rel+")")
		}
	}
}

var (
	// crdMention is a CRD named as crd/NAME.GROUP (kubectl wait, get, annotate).
	crdMention = regexp.MustCompile(`\b(?:crd|crds|customresourcedefinitions?)(?:\.apiextensions\.k8s\.io)?/([a-z0-9-]+)\.([a-z0-9-]+(?:\.[a-z0-9-]+)+)`)
	// kubectlApply is a kubectl apply, create or replace command.
	kubectlApply = regexp.MustCompile(`\bkubectl\b.*\b(apply|create|replace)\b`)
)

// scanCommands records what kubectl commands in text apply: files read for their CRDs, URLs
// listed as unread, CRDs named as crd/NAME.GROUP.
func (b *Bootstrap) scanCommands(top, rel string, text []byte) {
	for _, line := range strings.Split(string(text), "\n") {
		for _, m := range crdMention.FindAllStringSubmatch(line, -1) {
			if _, ok := b.groups[m[2]]; !ok {
				b.groups[m[2]] = rel + " (names crd/" + m[1] + "." + m[2] + ")"
			}
		}
		if !kubectlApply.MatchString(line) {
			continue
		}
		for _, target := range fileArgs(line) {
			switch {
			case strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://"):
				b.Unread = append(b.Unread, target+" (kubectl in "+rel+")")
			case target == "-" || strings.ContainsAny(target, "$`{}*"):
			default:
				b.applyFile(top, rel, target)
			}
		}
	}
}

// fileArgs are the -f/--filename values of a command line.
func fileArgs(line string) []string {
	fields := strings.Fields(line)
	var out []string
	for i, f := range fields {
		f = strings.Trim(f, `"'`)
		switch {
		case (f == "-f" || f == "--filename") && i+1 < len(fields):
			out = append(out, strings.Trim(fields[i+1], `"';`))
		case strings.HasPrefix(f, "--filename="):
			out = append(out, strings.Trim(strings.TrimPrefix(f, "--filename="), `"';`))
		}
	}
	return out
}

// applyFile reads the CRDs of a file or directory a command applies: relative to the file
// holding the command, else to the top level; never outside the repository.
func (b *Bootstrap) applyFile(top, rel, target string) {
	for _, base := range []string{path.Dir(rel), "."} {
		full, err := insideRepo(top, path.Join(base, target))
		if err != nil {
			continue
		}
		var set CRDSet
		if _, err := set.AddManifests(full); err != nil {
			continue
		}
		for gk := range set.kinds {
			b.addKind(gk, path.Join(base, target)+" (kubectl in "+rel+")")
		}
		return
	}
}

// addCRDs records the CRDs among the YAML documents of data.
func (b *Bootstrap) addCRDs(data []byte, where string) {
	objs, _ := ssautil.ReadObjects(bytes.NewReader(data)) // what decoded before an error is kept
	for _, u := range objs {
		if g, k := crdKind(u); g != "" && k != "" {
			b.addKind(g+"/"+k, where)
		}
	}
}
