package lint

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
)

// Options controls Load.
type Options struct {
	// Entry is the path built first, relative to the root (e.g. clusters/prod).
	Entry string
	// AllowNetwork lets remote bases be fetched.
	AllowNetwork bool
	// Parallel bounds concurrent builds; 0 means GOMAXPROCS.
	Parallel int
}

// maxUndefined bounds the rebuilds that look for further undefined variables in one tier.
const maxUndefined = 20

// strictVar finds the object and variable in the error of a strict substitution.
var strictVar = regexp.MustCompile(`post build failed for '([^']*)'.*variable not set \(strict mode\): "([^"]+)"`)

// Load builds the entry path, then, level by level, the path of every Kustomization the builds
// yield, until no new one appears. A Kustomization whose source differs from the entry's (a
// tenant's own repository) is listed as not covered, not built. Tiers that use
// postBuild.substituteFrom are built again at the end with every ConfigMap and Secret the whole
// repository declares, since those are often defined in another tier. Only a failure of the
// entry path itself is returned as an error; a tier that does not build is recorded on it.
func Load(ctx context.Context, root string, opts Options) (*Repo, error) {
	entry := gitops.CleanPath(opts.Entry)
	bopts := gitops.BuildOptions{AllowNetwork: opts.AllowNetwork}
	eb := gitops.BuildPath(ctx, root, entry, bopts)
	if eb.Err != nil {
		return nil, fmt.Errorf("building entry path %s: %w", entry, eb.Err)
	}
	kss, err := eb.Kustomizations()
	if err != nil {
		return nil, fmt.Errorf("entry path %s: %w", entry, err)
	}
	r := &Repo{Root: root, Entry: entry, Tiers: map[string]*Tier{},
		EntryBuild: &Tier{Kustomization: gitops.Kustomization{Path: entry}, Objects: eb.Objects, Files: eb.Files}}
	parent := ""
	for _, ks := range kss {
		if ks.Path == entry {
			parent = ks.ID() // the root Kustomization is in the repository
		}
	}
	primary := primarySource(kss, entry)
	l := &loader{root: root, opts: opts, bopts: bopts, primary: primary}
	level := make([]*Tier, 0, len(kss))
	for _, ks := range kss {
		ap := parent
		if ks.ID() == parent {
			ap = ""
		}
		level = append(level, &Tier{Kustomization: ks, AppliedBy: ap})
	}
	all := append([]*unstructured.Unstructured(nil), eb.Objects...)
	for len(level) > 0 {
		var fresh []*Tier
		for _, t := range level {
			if _, seen := r.Tiers[t.ID()]; !seen {
				r.Tiers[t.ID()] = t
				fresh = append(fresh, t)
			}
		}
		l.sources(all)
		l.buildAll(ctx, fresh)
		level = nil
		for _, t := range fresh {
			all = append(all, t.Objects...)
			found, _ := gitops.KustomizationsIn(t.Objects)
			for i, ks := range found {
				ks.File = fileOfKustomization(t, found[i])
				level = append(level, &Tier{Kustomization: ks, AppliedBy: t.ID()})
			}
		}
		sort.Slice(level, func(i, j int) bool { return level[i].ID() < level[j].ID() })
	}
	l.sources(all)
	var again []*Tier
	for _, t := range r.Tiers {
		if hasSubstituteFrom(t.Kustomization.Object) && t.NotCovered == "" {
			again = append(again, t)
		}
	}
	l.buildAll(ctx, again)
	r.chain()
	return r, nil
}

// loader builds tiers with a bounded number of builds at once.
type loader struct {
	root    string
	opts    Options
	bopts   gitops.BuildOptions
	primary string
}

func (l *loader) sources(objs []*unstructured.Unstructured) {
	l.bopts.ConfigMaps, l.bopts.SecretKeys = gitops.SubstitutionSources(objs)
}

func (l *loader) buildAll(ctx context.Context, tiers []*Tier) {
	n := l.opts.Parallel
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, t := range tiers {
		k := t.Kustomization
		if src := k.SourceKind + "/" + k.SourceNamespace + "/" + k.SourceName; l.primary != "" && src != l.primary {
			t.NotCovered = fmt.Sprintf("its source %s is not the repository's (%s)", src, l.primary)
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			buildTier(ctx, l.root, t, l.bopts)
		})
	}
	wg.Wait()
}

// buildTier builds one tier. A variable that strict substitution finds undefined is recorded
// and the build repeated with it standing for itself (the literal ${NAME}: an empty value may
// not even be YAML), so every such variable is found and the other rules still see the objects.
func buildTier(ctx context.Context, root string, t *Tier, opts gitops.BuildOptions) {
	ks := t.Kustomization
	t.Undefined = nil
	for range maxUndefined {
		b := gitops.Build(ctx, root, ks, opts)
		if m := strictVar.FindStringSubmatch(errString(b.Err)); m != nil {
			t.Undefined = append(t.Undefined, Undefined{Var: m[2], Object: m[1]})
			ks.Object = withLiteralVar(ks.Object, m[2])
			continue
		}
		t.Objects, t.Files, t.Err, t.RemoteURLs = b.Objects, b.Files, b.Err, b.RemoteURLs
		return
	}
	t.Err = fmt.Errorf("more than %d undefined post-build variables in %s", maxUndefined, ks.Path)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// withLiteralVar returns a copy of the Kustomization object with postBuild.substitute[v] set
// to "${v}".
func withLiteralVar(obj *unstructured.Unstructured, v string) *unstructured.Unstructured {
	c := obj.DeepCopy()
	sub, _, _ := unstructured.NestedStringMap(c.Object, "spec", "postBuild", "substitute")
	if sub == nil {
		sub = map[string]string{}
	}
	sub[v] = "${" + v + "}"
	_ = unstructured.SetNestedStringMap(c.Object, sub, "spec", "postBuild", "substitute")
	return c
}

func hasSubstituteFrom(obj *unstructured.Unstructured) bool {
	if obj == nil {
		return false
	}
	refs, _, _ := unstructured.NestedSlice(obj.Object, "spec", "postBuild", "substituteFrom")
	return len(refs) > 0
}

// primarySource is the source the repository is: the root Kustomization's when the repository
// has one, else the one most Kustomizations of the entry use.
func primarySource(kss []gitops.Kustomization, entry string) string {
	count := map[string]int{}
	for _, ks := range kss {
		src := ks.SourceKind + "/" + ks.SourceNamespace + "/" + ks.SourceName
		if ks.Path == entry {
			return src
		}
		count[src]++
	}
	best := ""
	for src, n := range count {
		if n > count[best] || (n == count[best] && src < best) {
			best = src
		}
	}
	return best
}

// fileOfKustomization finds the file of a Kustomization among its tier's objects.
func fileOfKustomization(t *Tier, ks gitops.Kustomization) string {
	for i, o := range t.Objects {
		if o == ks.Object {
			return fileAt(t, i)
		}
	}
	return ""
}
