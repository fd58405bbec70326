package saferetire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/retire"
)

// sides are the two snapshots a gate compares.
type sides struct {
	base, cand *gitops.Snapshot
}

func (s sides) Close() {
	if s.base != nil {
		_ = s.base.Close()
	}
	if s.cand != nil {
		_ = s.cand.Close()
	}
}

// snapshots opens the base and candidate revisions; the base defaults to the repo's.
func snapshots(repo *gitops.Repo, base, cand string, res *Result) (sides, error) {
	var s sides
	if base == "" {
		rev, how, err := repo.DefaultBase()
		if err != nil {
			return s, err
		}
		base, res.BaseHow = rev, how
	} else {
		res.BaseHow = "given with --base"
	}
	var err error
	if s.base, err = repo.Snapshot(base); err != nil {
		return s, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("base revision %q: %w", base, err))
	}
	if s.cand, err = repo.Snapshot(cand); err != nil {
		s.Close()
		return s, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("candidate revision %q: %w", cand, err))
	}
	res.Base = Revision{Rev: base, Commit: s.base.Commit}
	res.Candidate = Revision{Rev: cand, Commit: s.cand.Commit}
	return s, nil
}

// discover finds the Flux Kustomizations a snapshot declares: those the entry path builds to
// when one is given, else every Kustomization manifest in the repo's YAML files (read as
// written, without kustomize or substitution).
func discover(ctx context.Context, root, entry string) ([]gitops.Kustomization, error) {
	if entry != "" {
		b := gitops.BuildPath(ctx, root, entry, gitops.BuildOptions{})
		if b.Err != nil {
			return nil, fmt.Errorf("building entry path %s: %w", entry, b.Err)
		}
		return b.Kustomizations()
	}
	var objs []*unstructured.Unstructured
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte("kustomize.toolkit.fluxcd.io/")) {
			return err
		}
		found := fluxKustomizations(data)
		rel, _ := filepath.Rel(root, path)
		for range found {
			files = append(files, filepath.ToSlash(rel))
		}
		objs = append(objs, found...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	kss, err := gitops.KustomizationsIn(objs)
	for i := range kss {
		kss[i].File = files[i]
	}
	return kss, err
}

// fluxKustomizations decodes the Flux Kustomization documents of one YAML file; a document that
// does not decode is not one (kustomize's own kustomization.yaml, a template).
func fluxKustomizations(data []byte) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return out
		}
		u := &unstructured.Unstructured{Object: m}
		if m != nil && gitops.IsFluxKustomization(u) {
			out = append(out, u)
		}
	}
}

// buildUnits builds every Kustomization at base and candidate, two builds at a time per
// Kustomization and all in parallel. A Kustomization known on one side only is built on that
// side: one that the candidate deletes takes its objects with it when it prunes. A build that
// fails is recorded as incomplete and leaves the unit out.
func buildUnits(ctx context.Context, s sides, base, cand []gitops.Kustomization, res *Result) ([]retire.Unit, error) {
	type pair struct{ base, cand *gitops.Kustomization }
	pairs := map[string]*pair{}
	for i := range base {
		pairs[base[i].ID()] = &pair{base: &base[i]}
	}
	for i := range cand {
		p := pairs[cand[i].ID()]
		if p == nil {
			p = &pair{}
			pairs[cand[i].ID()] = p
		}
		p.cand = &cand[i]
	}
	ids := make([]string, 0, len(pairs))
	for id := range pairs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	units := make([]*retire.Unit, len(ids))
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for i, id := range ids {
		p := pairs[id]
		wg.Go(func() {
			u, gaps, err := buildPair(ctx, s, p.base, p.cand)
			mu.Lock()
			defer mu.Unlock()
			res.Incomplete = append(res.Incomplete, gaps...)
			if err != nil {
				errs = append(errs, err)
			}
			units[i] = u
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	sort.Strings(res.Incomplete)
	var out []retire.Unit
	for _, u := range units {
		if u != nil {
			out = append(out, *u)
		}
	}
	return out, nil
}

// buildPair builds one Kustomization at both revisions.
func buildPair(ctx context.Context, s sides, base, cand *gitops.Kustomization) (*retire.Unit, []string, error) {
	ks := cand
	if ks == nil {
		ks = base
	}
	u := &retire.Unit{Kustomization: toRetire(*ks)}
	var gaps []string
	missing := 0
	if base != nil {
		objs, gap, miss := build(ctx, s.base, *base, "base")
		u.Base = objs
		gaps = append(gaps, gap...)
		missing += miss
	}
	if cand != nil {
		objs, gap, miss := build(ctx, s.cand, *cand, "candidate")
		u.Candidate = objs
		gaps = append(gaps, gap...)
		missing += miss
	}
	if missing == 2 || (missing == 1 && (base == nil || cand == nil)) {
		return nil, nil, exitcode.UsageErrorf("Kustomization %s: path %s is not in the repository at base or candidate (is --repo the repository its source builds?)", ks.ID(), ks.Path)
	}
	if len(gaps) > 0 {
		return nil, gaps, nil
	}
	return u, nil, nil
}

// build builds one side and keeps each object's file on it for the report.
func build(ctx context.Context, snap *gitops.Snapshot, ks gitops.Kustomization, side string) ([]*unstructured.Unstructured, []string, int) {
	b := gitops.Build(ctx, snap.Dir, ks, gitops.BuildOptions{})
	if b.Err != nil {
		miss := 0
		if errors.Is(b.Err, gitops.ErrPathNotFound) {
			miss = 1
		}
		return nil, []string{fmt.Sprintf("Kustomization %s: %s build of %s failed: %v", ks.ID(), side, ks.Path, b.Err)}, miss
	}
	var gaps []string
	if len(b.Unresolved) > 0 {
		gaps = append(gaps, fmt.Sprintf("Kustomization %s: %s build leaves %s unresolved in object names", ks.ID(), side, strings.Join(b.Unresolved, ", ")))
	}
	for i, o := range b.Objects {
		if i < len(b.Files) && b.Files[i] != "" {
			ann := o.GetAnnotations()
			if ann == nil {
				ann = map[string]string{}
			}
			ann[fileAnnotation] = b.Files[i]
			o.SetAnnotations(ann)
		}
	}
	return b.Objects, gaps, 0
}

// fileAnnotation carries an object's source file from the build to the report; it never
// reaches a cluster.
const fileAnnotation = "saferetire.kubeforensics.dev/file"

func toRetire(ks gitops.Kustomization) retire.Kustomization {
	k := retire.Kustomization{Namespace: ks.Namespace, Name: ks.Name, Path: ks.Path, Prune: ks.Prune, Wait: ks.Wait}
	if ks.Timeout > 0 {
		k.Timeout = ks.Timeout.String()
	}
	if ks.Object != nil {
		hc, _, _ := unstructured.NestedSlice(ks.Object.Object, "spec", "healthChecks")
		k.HealthChecks = len(hc) > 0
	}
	return k
}
