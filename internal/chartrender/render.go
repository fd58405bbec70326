// Package chartrender renders a loaded chart as Helm's install action does in client-only
// dry-run mode (what helm-controller's render of a release yields), without Helm's action
// package: release name check, dependency conditions and import values, Capabilities,
// values coalescing and values.schema.json validation, the template engine, NOTES taken out,
// helm-controller's post-render chain by Helm's post-render strategies, and hooks split from
// the manifest in Helm's install order. It is the render core of the render worker
// (worker.go): a process that imports only this package starts in half the time of one that
// imports Helm's action package and its Kubernetes clients. Composing values, choosing the
// chart and reading the result are internal/helmrender's; TestInstallDifferential holds this
// package to Helm's install, release by release, manifest and hooks byte for byte.
package chartrender

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

// Spec is one release's render, set up as helm-controller sets up Helm's install for a
// HelmRelease.
type Spec struct {
	// ReleaseName and Namespace are the Helm release's name and namespace.
	ReleaseName string `json:"releaseName"`
	Namespace   string `json:"namespace"`
	// KubeVersion is .Capabilities.KubeVersion (parsed by Helm); APIVersions are added to
	// Helm's default set.
	KubeVersion string   `json:"kubeVersion"`
	APIVersions []string `json:"apiVersions,omitempty"`
	// SkipSchemaValidation is the HelmRelease's spec.install.disableSchemaValidation.
	SkipSchemaValidation bool `json:"skipSchemaValidation,omitempty"`
	// PostRenderers are spec.postRenderers[].kustomize, in order; PostRenderStrategy is
	// spec.postRenderStrategy (helm-controller's names; "" is Helm's default, combined).
	PostRenderers      []*helmv2.Kustomize `json:"postRenderers,omitempty"`
	PostRenderStrategy string              `json:"postRenderStrategy,omitempty"`
	// OriginName and OriginNamespace are the HelmRelease's own, for the origin labels.
	OriginName      string `json:"originName"`
	OriginNamespace string `json:"originNamespace"`
	// Timeout bounds the render; MaxBytes its manifest and hooks together.
	Timeout  time.Duration `json:"timeout"`
	MaxBytes int           `json:"maxBytes"`
}

// Output is what Helm's install yields that a render keeps: the manifest and each hook's.
type Output struct {
	Manifest string
	Hooks    []Hook
}

// Hook is one hook of the chart: its template path and its rendered manifest.
type Hook struct {
	Path     string
	Manifest string
}

// ErrBound marks a render stopped by one of its bounds (errors.Is); the error is a *BoundError.
var ErrBound = errors.New("bounded")

// The bounds a render can be stopped by (BoundError.Bound).
const (
	BoundTime   = "time"
	BoundMemory = "memory"
	BoundOutput = "output"
)

// BoundError is a render stopped by a bound: a chart is input, and its templates may loop,
// build huge strings or double through nested includes.
type BoundError struct {
	// Bound is BoundTime, BoundMemory or BoundOutput; Detail says what was exceeded.
	Bound  string
	Detail string
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("stopped by its %s bound: %s (a chart is input: its render is bounded)", e.Bound, e.Detail)
}

// Is makes errors.Is(err, ErrBound) true.
func (e *BoundError) Is(target error) bool { return target == ErrBound }

// Render renders c with the composed values vals in this process, bounded by s.Timeout and
// s.MaxBytes. The template engine cannot be stopped: past the deadline the render is
// abandoned (its goroutine runs on) and reported. Memory is not bounded here: the render
// worker calls this in a process whose memory is. c is changed as Helm's install changes it
// (disabled dependencies dropped, import values merged): pass a chart no one else renders.
func Render(ctx context.Context, c *chart.Chart, vals map[string]any, s Spec) (*Output, error) {
	if s.Timeout <= 0 || s.MaxBytes <= 0 {
		return nil, errors.New("a render needs a timeout and an output bound")
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	type result struct {
		out *Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("the chart's templates panicked: %v", p)}
			}
		}()
		out, err := install(c, vals, s)
		done <- result{out, err}
	}()
	select {
	case <-ctx.Done():
		return nil, &BoundError{Bound: BoundTime, Detail: fmt.Sprintf("not rendered within %s", s.Timeout)}
	case res := <-done:
		if res.err != nil {
			return nil, res.err
		}
		size := len(res.out.Manifest)
		for _, h := range res.out.Hooks {
			size += len(h.Manifest)
		}
		if size > s.MaxBytes {
			return nil, &BoundError{Bound: BoundOutput, Detail: fmt.Sprintf("the rendered manifest has %d bytes, more than the %d a release may render", size, s.MaxBytes)}
		}
		return res.out, nil
	}
}

// install is the part of Helm's Install.RunWithContext a client-only dry run goes through,
// in its order and with its error wording: the release name, the dependencies, Capabilities,
// the values to render (schema validated), then the resources (resources.go).
func install(c *chart.Chart, vals map[string]any, s Spec) (*Output, error) {
	caps, err := capabilities(s) // helm-controller parses the version before it installs
	if err != nil {
		return nil, err
	}
	if err := chartutil.ValidateReleaseName(s.ReleaseName); err != nil {
		return nil, fmt.Errorf("release name check failed: release name %q: %w", s.ReleaseName, err)
	}
	if err := chartutil.ProcessDependencies(c, vals); err != nil {
		return nil, fmt.Errorf("chart dependencies processing failed: %w", err)
	}
	opts := common.ReleaseOptions{Name: s.ReleaseName, Namespace: s.Namespace, Revision: 1, IsInstall: true}
	toRender, err := util.ToRenderValuesWithSchemaValidation(c, vals, opts, caps, s.SkipSchemaValidation)
	if err != nil {
		return nil, err
	}
	return resources(c, toRender, caps, s)
}

// capabilities are Helm's defaults for a client-only render with s's Kubernetes version and
// its API versions added.
func capabilities(s Spec) (*common.Capabilities, error) {
	kube, err := common.ParseKubeVersion(s.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("--kube-version %q: %w", s.KubeVersion, err)
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kube
	caps.APIVersions = append(caps.APIVersions, slices.Clone(s.APIVersions)...)
	return caps, nil
}
