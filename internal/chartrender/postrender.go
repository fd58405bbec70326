package chartrender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/kustomize"
	"sigs.k8s.io/kustomize/api/builtins"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The labels helm-controller's origin-labels post-renderer puts on every object of a release.
const (
	NameLabel      = "helm.toolkit.fluxcd.io/name"
	NamespaceLabel = "helm.toolkit.fluxcd.io/namespace"
)

// kustomizeMu serialises kustomize runs: its builds share maps that are not safe for
// concurrent use (kubernetes-sigs/kustomize#3659, which helm-controller guards the same way).
var kustomizeMu sync.Mutex

// chain is helm-controller's post-render chain for a HelmRelease, in Go: each
// spec.postRenderers[].kustomize (patches and images, in memory, plugins disabled), then the
// origin labels. Nothing is executed.
type chain struct {
	kustomize []*helmv2.Kustomize
	name, ns  string
}

// PostRender runs helm-controller's post-render chain of s over a stream of documents: what
// Helm's install calls its post-renderer with.
func PostRender(s Spec, in *bytes.Buffer) (*bytes.Buffer, error) {
	return postRenderer(s).Run(in)
}

func postRenderer(s Spec) *chain {
	return &chain{kustomize: s.PostRenderers, name: s.OriginName, ns: s.OriginNamespace}
}

// Run applies the chain.
func (c *chain) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	out := in
	for i, k := range c.kustomize {
		var err error
		if out, err = runKustomize(k, out); err != nil {
			return nil, fmt.Errorf("spec.postRenderers[%d].kustomize: %w", i, err)
		}
	}
	return originLabels(out, c.ns, c.name)
}

func runKustomize(k *helmv2.Kustomize, in *bytes.Buffer) (*bytes.Buffer, error) {
	fs := filesys.MakeFsInMemory()
	cfg := kustypes.Kustomization{Resources: []string{"helm-output.yaml"}}
	cfg.APIVersion, cfg.Kind = kustypes.KustomizationVersion, kustypes.KustomizationKind
	for _, img := range k.Images {
		cfg.Images = append(cfg.Images, kustypes.Image{Name: img.Name, NewName: img.NewName, NewTag: img.NewTag, Digest: img.Digest})
	}
	for _, p := range k.Patches {
		cfg.Patches = append(cfg.Patches, kustypes.Patch{Patch: p.Patch, Target: selector(p.Target)})
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if err := fs.WriteFile("helm-output.yaml", in.Bytes()); err != nil {
		return nil, err
	}
	if err := fs.WriteFile("kustomization.yaml", data); err != nil {
		return nil, err
	}
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	m, err := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsRootOnly,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	}).Run(fs, ".")
	if err != nil {
		return nil, err
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	return bytes.NewBuffer(out), nil
}

func selector(s *kustomize.Selector) *kustypes.Selector {
	if s == nil {
		return nil
	}
	out := &kustypes.Selector{LabelSelector: s.LabelSelector, AnnotationSelector: s.AnnotationSelector}
	out.Name, out.Namespace = s.Name, s.Namespace
	out.Gvk.Group, out.Gvk.Version, out.Gvk.Kind = s.Group, s.Version, s.Kind
	return out
}

// originLabels adds helm-controller's two labels to metadata.labels of every object.
func originLabels(in *bytes.Buffer, ns, name string) (*bytes.Buffer, error) {
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	m, err := resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory()).NewResMapFromBytes(in.Bytes())
	if err != nil {
		return nil, err
	}
	t := builtins.LabelTransformerPlugin{
		Labels:     map[string]string{NameLabel: name, NamespaceLabel: ns},
		FieldSpecs: []kustypes.FieldSpec{{Path: "metadata/labels", CreateIfNotPresent: true}},
	}
	if err := t.Transform(m); err != nil {
		return nil, err
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	return bytes.NewBuffer(out), nil
}
