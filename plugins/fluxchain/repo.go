package fluxchain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// repoOptions are the flags of the --repo mode, which lints a repository instead of reading a
// cluster.
type repoOptions struct {
	Dir, Path, FailOn string
	SourceRoot        string
	AllowNetwork      bool
	NetworkTimeout    time.Duration
	// Live also compares the repository with the cluster the connection flags select.
	Live bool

	failOn lint.Severity
	// root is the repository's top level; layout says where its Flux source starts.
	root   string
	layout gitops.Layout
	getenv func(string) string
}

func (r *repoOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.Dir, "repo", "", "Lint the Flux chain of this GitOps repository (working tree) instead of reading a cluster.")
	cmd.Flags().StringVar(&r.Path, "path", "", "With --repo: the entry path to build first, relative to the source root, e.g. the path of a root Kustomization the bootstrap tool created in the cluster (default: the only directory under clusters/, else the source root).")
	cmd.Flags().StringVar(&r.SourceRoot, "source-root", "", "With --repo: the directory spec.paths are relative to, when Flux's source is an artifact pushed from a subdirectory (default: detected, and reported).")
	cmd.Flags().StringVar(&r.FailOn, "fail-on", string(lint.Error), "With --repo: exit 1 for findings at or above this severity: error, warning or info.")
	cmd.Flags().BoolVar(&r.AllowNetwork, "allow-network", false, "With --repo: fetch remote kustomize bases and resources instead of reporting the tier as not built.")
	cmd.Flags().DurationVar(&r.NetworkTimeout, "network-timeout", gitops.DefaultNetworkTimeout, "With --repo --allow-network: the longest one remote file or git fetch may take to arrive; past it the tier is not built.")
	cmd.Flags().BoolVar(&r.Live, "live", false, "With --repo: also compare the repository with the cluster (Kustomizations on one side only, spec drift, CRDs only the cluster has); all namespaces unless -n is given.")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "info"}, cobra.ShellCompDirectiveNoFileComp))
}

// validate checks the --repo flags without reading anything.
func (r *repoOptions) validate(name string, allNamespaces bool) error {
	sev, err := lint.ParseSeverity(r.FailOn)
	if err != nil {
		return exitcode.UsageErrorf("--fail-on: %w", err)
	}
	r.failOn = sev
	if r.NetworkTimeout <= 0 {
		return exitcode.UsageErrorf("--network-timeout must be positive")
	}
	if r.Dir == "" {
		switch {
		case r.Path != "":
			return exitcode.UsageErrorf("--path needs --repo")
		case r.SourceRoot != "":
			return exitcode.UsageErrorf("--source-root needs --repo")
		case r.Live:
			return exitcode.UsageErrorf("--live needs --repo: it compares a repository with the cluster")
		}
		return nil
	}
	if name != "" || allNamespaces {
		return exitcode.UsageErrorf("--repo lints the whole repository: it takes no NAME and no -A")
	}
	return nil
}

// complete opens the repository and settles the entry path.
func (r *repoOptions) complete() error {
	repo, err := gitops.OpenRepo(r.Dir)
	if err != nil {
		return err
	}
	r.root = repo.Dir
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	layout, err := gitops.DetectLayout(r.root, r.SourceRoot, r.Path, nil)
	if err != nil {
		return exitcode.UsageErrorf("%s: %v", r.Dir, err)
	}
	r.layout, r.Path = layout, layout.Entry
	return nil
}

// RepoResult is what --repo found: the chain the repository declares, drawn as live mode draws
// a cluster's, and the lint findings.
type RepoResult struct {
	// Repo is the repository's top level; Path the entry path built first, relative to the
	// source root Layout names (files in findings are relative to the top level).
	Repo   string         `json:"repo"`
	Path   string         `json:"path"`
	Layout *gitops.Layout `json:"layout,omitempty"`
	flux.Chain
	Lint []lint.Finding `json:"lint"`
	// BuildFailures are the tiers whose path did not build: their objects were not judged.
	BuildFailures []BuildFailure `json:"buildFailures"`
	// NotCovered are the tiers built from another source than this repository.
	NotCovered []string `json:"notCovered,omitempty"`
	// FailOn is the severity at which a finding fails the run.
	FailOn lint.Severity `json:"failOn"`
	// Live is the comparison with a cluster, with --live only (repo_live.go).
	Live *LiveComparison `json:"live,omitempty"`
}

// BuildFailure is a tier whose path did not build.
type BuildFailure struct {
	Kustomization string   `json:"kustomization"`
	Path          string   `json:"path"`
	Error         string   `json:"error"`
	RemoteURLs    []string `json:"remoteURLs,omitempty"`
}

// ComputeRepo builds and lints the repository at root from entry.
func ComputeRepo(ctx context.Context, root, entry string, allowNetwork bool) (*RepoResult, error) {
	res, _, err := computeRepo(ctx, root, entry, allowNetwork)
	return res, err
}

// computeRepo is ComputeRepo that also returns the built repository, which --live compares.
func computeRepo(ctx context.Context, root, entry string, allowNetwork bool) (*RepoResult, *lint.Repo, error) {
	r, err := lint.Load(ctx, root, lint.Options{Entry: entry, AllowNetwork: allowNetwork})
	switch {
	case errors.Is(err, gitops.ErrPathNotFound):
		return nil, nil, exitcode.UsageErrorf("--path %s: %w", entry, err)
	case err != nil:
		return nil, nil, exitcode.WithCode(exitcode.Unknown, err)
	}
	res := &RepoResult{Repo: root, Path: r.Entry, Chain: *r.Chain, Lint: lint.Run(r), BuildFailures: []BuildFailure{}}
	for _, t := range r.BuildFailures() {
		res.BuildFailures = append(res.BuildFailures, BuildFailure{Kustomization: t.ID(), Path: t.Kustomization.Path, Error: t.Err.Error(), RemoteURLs: t.RemoteURLs})
	}
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.NotCovered != "" {
			res.NotCovered = append(res.NotCovered, id+": "+t.NotCovered)
		}
	}
	sort.Strings(res.NotCovered)
	return res, r, nil
}

// runRepo lints the repository (and with --live compares it with the cluster), prints the
// result and returns the exit code: 1 for findings at or above --fail-on, else 2 when a path
// did not build or a live read failed, else 0.
func (o *FluxChainOptions) runRepo(ctx context.Context) error {
	o.liveBanner()
	l := o.repo.layout
	fmt.Fprintf(o.ErrOut, "# repository %s, source root %s (%s), entry path %s (%s)\n", o.repo.root, l.SourceRoot, l.SourceRootHow, l.Entry, l.EntryHow)
	ctx = gitops.WithNetworkTimeout(ctx, o.repo.NetworkTimeout)
	res, repo, err := computeRepo(ctx, l.Dir(o.repo.root), o.repo.Path, o.repo.AllowNetwork)
	if err != nil {
		return err
	}
	res.Repo, res.Layout = o.repo.root, &l
	if o.repo.Live {
		if err := o.addLive(ctx, res, repo); err != nil {
			return err
		}
	}
	for i := range res.Lint {
		res.Lint[i].File = l.FromTop(res.Lint[i].File)
	}
	res.FailOn = o.repo.failOn
	if err := o.printRepo(res); err != nil {
		return err
	}
	if err := o.repoGitHub(res); err != nil {
		return err
	}
	switch {
	case lint.AtLeast(res.Lint, res.FailOn) > 0:
		return exitcode.WithCode(exitcode.Finding, nil)
	case len(res.BuildFailures) > 0, res.Live.incomplete():
		return exitcode.WithCode(exitcode.Unknown, nil)
	}
	return nil
}

// printRepo hands the result to the printer -o chose; the graphs are live mode's.
func (o *FluxChainOptions) printRepo(res *RepoResult) error {
	chain := &Result{Chain: res.Chain, Warnings: []string{}}
	switch output.Format(o.PrintFlags.Format) {
	case output.JSON:
		return output.PrintJSON(o.Out, res)
	case output.YAML:
		return output.PrintYAML(o.Out, res)
	case output.Dot:
		return PrintDot(o.Out, chain)
	case output.Mermaid:
		return PrintMermaid(o.Out, chain)
	}
	return PrintRepoText(o.Out, res, output.Palette{On: o.PrintFlags.UseColor(o.Out)})
}
