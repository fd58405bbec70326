package fluxchain

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// LiveComparison is what --live found comparing the repository with a cluster. Every
// difference it lists is also a finding of a live-* rule in RepoResult.Lint, so --fail-on
// judges it like any other.
type LiveComparison struct {
	Target cluster.Target `json:"target"`
	// Namespace is the namespace compared; "" means all namespaces.
	Namespace string `json:"namespace"`
	// InBoth counts the Kustomizations both the repository and the cluster have.
	InBoth int `json:"inBoth"`
	// NotInCluster and NotInRepo are Kustomizations (fully qualified) only one side has.
	// NotInRepo holds only those built from the repository's own source.
	NotInCluster []string `json:"notInCluster"`
	NotInRepo    []string `json:"notInRepo"`
	// SpecDrift are the Kustomizations whose effective spec.path or dependsOn differ.
	SpecDrift []SpecDrift `json:"specDrift"`
	// CRDsOnlyLive are CRDs whose kinds the repository's objects use and that only the
	// cluster has.
	CRDsOnlyLive []LiveCRD `json:"crdsOnlyLive"`
	// NotCompared are the cluster's Kustomizations built from another source than the
	// repository's (another repository declares them).
	NotCompared []string `json:"notCompared,omitempty"`
	// Warnings name reads that failed; Incomplete is set when any did (exit 2).
	Warnings   []string `json:"warnings"`
	Incomplete bool     `json:"incomplete"`
}

// SpecDrift is one field of a Kustomization that differs between repository and cluster.
type SpecDrift struct {
	Kustomization string `json:"kustomization"`
	Field         string `json:"field"`
	Repo          string `json:"repo"`
	Cluster       string `json:"cluster"`
}

// LiveCRD is a CRD only the cluster has, with the repository's objects that use its kind.
type LiveCRD struct {
	// Name is the CRD's name (plural.group), e.g. backups.velero.io.
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	UsedBy []string `json:"usedBy"`
	// Installer is what the CRD's labels say about who installed it.
	Installer string `json:"installer"`
}

// incomplete reports whether the comparison missed a read; false without --live.
func (l *LiveComparison) incomplete() bool { return l != nil && l.Incomplete }

// crdGVR is the resource --live lists CRDs from.
var crdGVR = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// completeLive connects to the cluster for --live: all namespaces unless -n names one.
func (o *FluxChainOptions) completeLive() error {
	c, err := cluster.Connect(o.ConfigFlags)
	if err != nil {
		return err
	}
	o.clients, o.namespace = c, ""
	if c.NamespaceExplicit {
		o.namespace = c.Namespace
	}
	return nil
}

// addLive reads the cluster and adds the comparison and its findings to res. It only reads.
func (o *FluxChainOptions) addLive(ctx context.Context, res *RepoResult, repo *lint.Repo) error {
	c := o.clients
	objs, err := flux.Read(ctx, c.Dynamic, o.namespace)
	if errors.Is(err, flux.ErrNotInstalled) {
		return exitcode.UsageErrorf("Flux is not installed on %s: %v", c.Target, err)
	}
	if err != nil {
		return cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	lc := &LiveComparison{Target: c.Target, Namespace: o.namespace, NotInCluster: []string{}, NotInRepo: []string{},
		SpecDrift: []SpecDrift{}, CRDsOnlyLive: []LiveCRD{}, Warnings: append([]string{}, objs.Warnings...), Incomplete: objs.Incomplete}
	live := &liveObjects{Kustomizations: objs.Kustomizations}
	if live.CRDs, err = listCRDs(ctx, c.Dynamic); err != nil {
		lc.Warnings = append(lc.Warnings, fmt.Sprintf("listing %s: %s", crdGVR.GroupResource(), cluster.Reason(err)))
		lc.Incomplete = true
	}
	res.Live = lc
	res.Lint = append(res.Lint, compareLive(repo, live, o.namespace, lc)...)
	sortFindings(res.Lint)
	return nil
}

// sortFindings orders findings as lint.Run does: severity, file, line, rule, message.
func sortFindings(fs []lint.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Severity.Rank() != b.Severity.Rank():
			return a.Severity.Rank() > b.Severity.Rank()
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.Rule != b.Rule:
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// listCRDs reads every CRD, a page at a time; a nil slice only with an error.
func listCRDs(ctx context.Context, dyn dynamic.Interface) ([]apiextensionsv1.CustomResourceDefinition, error) {
	out := []apiextensionsv1.CustomResourceDefinition{}
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := dyn.Resource(crdGVR).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &crd); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", list.Items[i].GetName(), err)
			}
			out = append(out, crd)
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

// liveBanner names the cluster --live compares with, on stderr like every run's banner.
func (o *FluxChainOptions) liveBanner() {
	if o.repo.Live {
		cli.Banner(o.ErrOut, o.clients.Target)
	}
}

// liveText adds the LIVE section to the repository's text output: what was compared and
// the counts (each difference is a live-* finding above it), what was not compared, and the
// reads that failed.
func liveText(root *output.Node, l *LiveComparison, p output.Palette) {
	if l == nil {
		return
	}
	scope := "all namespaces"
	if l.Namespace != "" {
		scope = "namespace " + l.Namespace
	}
	head := fmt.Sprintf("LIVE: compared with %s in %s", l.Target, scope)
	if l.Incomplete {
		head = p.Warn(head + " (INCOMPLETE)")
	}
	sec := root.Add(p.Bold(head))
	counts := fmt.Sprintf("%d Kustomization(s) in both, %d only in the repository (live-not-in-cluster), %d only in the cluster (live-not-in-repo), %d spec difference(s) (live-spec-drift), %d CRD(s) only in the cluster (live-crd-outside-git)",
		l.InBoth, len(l.NotInCluster), len(l.NotInRepo), len(l.SpecDrift), len(l.CRDsOnlyLive))
	sec.Add(counts)
	if len(l.NotCompared) > 0 {
		n := sec.Add(fmt.Sprintf("not compared, built from another source (%d)", len(l.NotCompared)))
		for _, s := range l.NotCompared {
			n.Add(s)
		}
	}
	if len(l.Warnings) > 0 {
		n := sec.Add(p.Warn("WARNINGS: these reads failed, so the comparison is incomplete"))
		for _, w := range l.Warnings {
			n.Add(w)
		}
	}
}

// liveSummary is the step summary's line about --live, "" without it.
func liveSummary(l *LiveComparison) string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Compared with %s: %d Kustomizations in both, %d only in the repository, %d only in the cluster, %d spec difference(s), %d CRD(s) only in the cluster.\n\n",
		ghactions.Cell(l.Target.String()), l.InBoth, len(l.NotInCluster), len(l.NotInRepo), len(l.SpecDrift), len(l.CRDsOnlyLive))
	for _, w := range l.Warnings {
		fmt.Fprintf(&b, "- ⚠️ live read failed: %s\n", ghactions.Cell(w))
	}
	return b.String()
}
