package gitops

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"sync"

	"github.com/kubeforensics/suite/internal/artifactgen"
	"github.com/kubeforensics/suite/internal/kbuild"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxUndefined bounds the rebuilds that look for further undefined variables in one tier.
const maxUndefined = 20

// strictVar finds the object and variable in the error of a strict substitution.
var strictVar = regexp.MustCompile(`post build failed for '([^']*)'.*variable not set \(strict mode\): "([^"]+)"`)

// substituteAgain rebuilds the tiers that use postBuild.substituteFrom with the ConfigMaps and
// Secrets among all, and returns them.
func (l *loader) substituteAgain(ctx context.Context, r *Tree, all []*unstructured.Unstructured) []*Tier {
	var again []*Tier
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; hasSubstituteFrom(t.Kustomization.Object) && t.NotCovered == "" && t.Owner == "" {
			again = append(again, t)
		}
	}
	if len(again) == 0 {
		return nil
	}
	l.sources(ctx, all)
	l.buildAll(ctx, again)
	return again
}

// loader builds tiers with a bounded number of builds at once.
type loader struct {
	root     string
	parallel int
	bopts    kbuild.Options
	primary  string
	// same are the sources that are this repository as primary is (sameRepository), read
	// from what the builds so far declare.
	same     map[string]gitIdentity
	idents   identities
	extra    map[string]map[string]string
	ext      *artifactgen.Set
	rendered map[string]bool // ResourceSets already rendered, by tier id
	// reuse decides which builds are not run; cache answers builds from earlier runs (nil
	// without one).
	reuse Reuse
	cache *tierCache
	// diskErr is why the root could not be written out for its ArtifactGenerators.
	diskErr error
}

func (l *loader) sources(ctx context.Context, objs []*unstructured.Unstructured) {
	l.bopts.ConfigMaps, l.bopts.SecretKeys = kbuild.SubstitutionSources(objs)
	if err := onDiskFor(ctx, l.bopts.FilesOf(l.root), objs); err != nil && l.diskErr == nil {
		l.diskErr = err
	}
	l.ext.Add(objs)
	l.idents = sourceIdentities(objs)
	l.same = l.idents.same(l.primary)
	for k, v := range l.extra {
		l.bopts.ConfigMaps[k] = v
	}
}

// buildAll builds a level of tiers, at most parallel at once. A tier is built from the
// repository (buildTier), unless reuse copies it from elsewhere or the cache holds its
// build; a tier whose inputs reach beyond the repository's files (reusable) is always built.
func (l *loader) buildAll(ctx context.Context, tiers []*Tier) {
	n := l.parallel
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	l.reuse.Level(tiers)
	for _, t := range tiers {
		if t.NotCovered = l.notCovered(t); t.NotCovered != "" {
			continue
		}
		opts, reusable := l.bopts, reusable(t)
		if reusable {
			if l.reuse.Skip(t, l.bopts) {
				continue
			}
			opts = l.reuse.Before(t, l.bopts)
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			covered, hit := throughCache(l.cache, t, opts, func(o kbuild.Options) { l.build(ctx, t, o) })
			if reusable {
				l.reuse.After(t, opts, covered, hit)
			}
		})
	}
	wg.Wait()
}

// BuildTier builds one tier into t. A variable that strict substitution finds undefined is
// recorded and the build repeated with it standing for itself (the literal ${NAME}: an empty
// value may not even be YAML), so every such variable is found and the objects are still seen.
func BuildTier(ctx context.Context, root string, t *Tier, opts kbuild.Options) {
	ks := t.Kustomization
	t.Undefined = nil
	for range maxUndefined {
		b := kbuild.Build(ctx, root, ks, opts)
		if m := strictVar.FindStringSubmatch(errString(b.Err)); m != nil {
			t.Undefined = append(t.Undefined, Undefined{Var: m[2], Object: m[1]})
			ks.Object = withLiteralVar(ks, m[2])
			continue
		}
		t.Objects, t.Files, t.Err, t.RemoteURLs, t.Unresolved, t.Defaulted = b.Objects, b.Files, b.Err, b.RemoteURLs, b.Unresolved, b.Defaulted
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
func withLiteralVar(ks kbuild.Kustomization, v string) *unstructured.Unstructured {
	c := kbuild.Object(ks).DeepCopy()
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
