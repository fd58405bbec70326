package helmrender

import (
	"context"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// ErrBound marks a render stopped by one of its bounds (errors.Is); the error is a *BoundError.
var ErrBound = chartrender.ErrBound

// BoundError is a render stopped by a bound: a chart is input, and its templates may loop,
// build huge strings or double through nested includes.
type BoundError = chartrender.BoundError

// The bounds a render can be stopped by (BoundError.Bound).
const (
	BoundTime   = chartrender.BoundTime
	BoundMemory = chartrender.BoundMemory
	BoundOutput = chartrender.BoundOutput
)

// The labels helm-controller's origin-labels post-renderer puts on every object of a release.
const (
	NameLabel      = chartrender.NameLabel
	NamespaceLabel = chartrender.NamespaceLabel
)

// output is what Helm's install yields that a render keeps: the manifest and each hook's.
type output = chartrender.Output

// limits are the time and size bounds of a render, the defaults filled in.
func limits(opts Options) Options {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultMaxMemory
	}
	return opts
}

// spec is the render of hr as helm-controller sets up Helm's install for it, with opts's
// Capabilities and bounds (defaults filled in).
func spec(hr *helmv2.HelmRelease, opts Options) chartrender.Spec {
	opts = limits(opts)
	kv := opts.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion
	}
	s := chartrender.Spec{
		ReleaseName: ReleaseName(hr), Namespace: hr.GetReleaseNamespace(),
		KubeVersion: kv, APIVersions: opts.APIVersions,
		SkipSchemaValidation: hr.GetInstall().DisableSchemaValidation,
		PostRenderStrategy:   string(hr.GetPostRenderStrategy()),
		OriginName:           hr.Name, OriginNamespace: hr.Namespace,
		Timeout: opts.Timeout, MaxBytes: opts.MaxBytes,
	}
	for _, p := range hr.Spec.PostRenderers {
		if p.Kustomize != nil {
			s.PostRenderers = append(s.PostRenderers, p.Kustomize)
		}
	}
	return s
}

// renderHere renders in this process (chartrender.Render), bounded by the timeout and the
// output cap but not in memory: the render worker renders in a process whose memory is
// (isolate.go).
func renderHere(ctx context.Context, hr *helmv2.HelmRelease, c *chart.Chart, vals map[string]any, opts Options) (*output, error) {
	return chartrender.Render(ctx, c, vals, spec(hr, opts))
}
