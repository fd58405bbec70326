package chartrender

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// filenameAnnotation carries a document's template path through the post-render chain, under
// the name Helm's install gives it, so each object comes back to its file.
const filenameAnnotation = "postrenderer.helm.sh/postrender-filename"

// resources renders c's templates with toRender as Helm's install renders its resources for a
// client-only dry run (no cluster to look up, no DNS, no CRDs in the manifest, NOTES dropped),
// post-renders them by s's strategy and splits the hooks from the manifest.
func resources(c *chart.Chart, toRender common.Values, caps *common.Capabilities, s Spec) (*Output, error) {
	if c.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(c.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c.Metadata.KubeVersion, caps.KubeVersion.Version)
	}
	var e engine.Engine
	files, err := e.Render(c, toRender)
	if err != nil {
		return nil, err
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	if files, err = postRender(files, s); err != nil {
		return nil, err
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	out := &Output{Manifest: b.String()}
	for _, h := range hooks {
		out.Hooks = append(out.Hooks, Hook{Path: h.Path, Manifest: h.Manifest})
	}
	return out, nil
}

// postRender runs helm-controller's chain (always there: the origin labels) over the rendered
// files by Helm's strategies: combined (the default) sends hooks and manifests together;
// separate sends them as two streams; nohooks sends the manifests only.
func postRender(files map[string]string, s Spec) (map[string]string, error) {
	pr := postRenderer(s)
	switch helmv2.PostRenderStrategy(s.PostRenderStrategy) {
	case helmv2.PostRenderStrategyNoHooks, helmv2.PostRenderStrategySeparate:
	default:
		merged, err := annotateAndMerge(files)
		if err != nil {
			return nil, fmt.Errorf("error merging manifests: %w", err)
		}
		out, err := pr.Run(bytes.NewBufferString(merged))
		if err != nil {
			return nil, fmt.Errorf("error while running post render on files: %w", err)
		}
		files, err = splitAndDeannotate(out.String(), "")
		if err != nil {
			return nil, fmt.Errorf("error while parsing post rendered output: %w", err)
		}
		return files, nil
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	hookFiles, manifestFiles := map[string]string{}, map[string]string{}
	for _, h := range hooks {
		appendDoc(hookFiles, h.Path, h.Manifest)
	}
	for _, m := range manifests {
		appendDoc(manifestFiles, m.Name, m.Content)
	}
	groups := []struct {
		name       string
		files      map[string]string
		postRender bool
	}{
		{"hooks", hookFiles, s.PostRenderStrategy == string(helmv2.PostRenderStrategySeparate)},
		{"manifests", manifestFiles, true},
	}
	out := map[string]string{}
	for _, g := range groups {
		if len(g.files) == 0 {
			continue
		}
		if !g.postRender {
			for k, v := range g.files {
				appendDoc(out, k, v)
			}
			continue
		}
		merged, err := annotateAndMerge(g.files)
		if err != nil {
			return nil, fmt.Errorf("error merging %s: %w", g.name, err)
		}
		rendered, err := pr.Run(bytes.NewBufferString(merged))
		if err != nil {
			return nil, fmt.Errorf("error while running post render on %s: %w", g.name, err)
		}
		split, err := splitAndDeannotate(rendered.String(), g.name)
		if err != nil {
			return nil, fmt.Errorf("error while parsing post rendered output for %s: %w", g.name, err)
		}
		for k, v := range split {
			appendDoc(out, k, v)
		}
	}
	return out, nil
}

// appendDoc adds doc to files[name], after a document separator when there is one already.
func appendDoc(files map[string]string, name, doc string) {
	if prev, ok := files[name]; ok {
		files[name] = prev + "\n---\n" + doc
		return
	}
	files[name] = doc
}

// annotateAndMerge makes one stream of the documents of files, in file name order and each
// file's documents in Helm's split order, each annotated with its file; partials (_*) and
// empty documents are left out.
func annotateAndMerge(files map[string]string) (string, error) {
	var docs []*kyaml.RNode
	for _, name := range slices.Sorted(maps.Keys(files)) {
		content := files[name]
		if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		split := releaseutil.SplitManifests(content)
		keys := slices.Collect(maps.Keys(split))
		sort.Sort(releaseutil.BySplitManifestsOrder(keys))
		for _, k := range keys {
			if strings.TrimSpace(split[k]) == "" {
				continue
			}
			nodes, err := kio.ParseAll(split[k])
			if err != nil {
				return "", fmt.Errorf("parsing %s: %w", name, err)
			}
			for _, n := range nodes {
				if err := n.PipeE(kyaml.SetAnnotation(filenameAnnotation, name)); err != nil {
					return "", fmt.Errorf("annotating %s: %w", name, err)
				}
				docs = append(docs, n)
			}
		}
	}
	merged, err := kio.StringAll(docs)
	if err != nil {
		return "", fmt.Errorf("writing merged docs: %w", err)
	}
	return merged, nil
}

// splitAndDeannotate groups a post-rendered stream back into files by their annotation, which
// it removes; a document without one (the post-renderer added it) gets a generated name, with
// prefix when several streams are post-rendered apart.
func splitAndDeannotate(stream, prefix string) (map[string]string, error) {
	nodes, err := kio.ParseAll(stream)
	if err != nil {
		return nil, fmt.Errorf("error parsing YAML: %w", err)
	}
	byFile := map[string][]*kyaml.RNode{}
	for i, n := range nodes {
		meta, err := n.GetMeta()
		if err != nil {
			return nil, fmt.Errorf("getting metadata: %w", err)
		}
		name := meta.Annotations[filenameAnnotation]
		switch {
		case name != "":
		case prefix == "":
			name = fmt.Sprintf("generated-by-postrender-%d.yaml", i)
		default:
			name = fmt.Sprintf("generated-by-postrender-%s-%d.yaml", prefix, i)
		}
		if err := n.PipeE(kyaml.ClearAnnotation(filenameAnnotation)); err != nil {
			return nil, fmt.Errorf("clearing filename annotation: %w", err)
		}
		byFile[name] = append(byFile[name], n)
	}
	files := make(map[string]string, len(byFile))
	for name, docs := range byFile {
		s, err := kio.StringAll(docs)
		if err != nil {
			return nil, fmt.Errorf("re-writing %s: %w", name, err)
		}
		files[name] = s
	}
	return files, nil
}
