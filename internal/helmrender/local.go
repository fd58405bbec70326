package helmrender

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
)

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

// output is what Helm's install yields that a render keeps: the manifest and each hook's.
type output struct {
	Manifest string
	Hooks    []hookManifest
}

// hookManifest is one hook of the chart: its template path and its rendered manifest.
type hookManifest struct {
	Path     string
	Manifest string
}

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

// install is Helm's install action in client-only dry-run mode, set up as helm-controller
// sets it up for hr.
func install(hr *helmv2.HelmRelease, opts Options) (*action.Install, error) {
	kv := opts.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion
	}
	kube, err := common.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("--kube-version %q: %w", kv, err)
	}
	cfg := action.NewConfiguration()
	cfg.SetLogger(slog.DiscardHandler)
	inst := action.NewInstall(cfg)
	inst.DryRunStrategy = action.DryRunClient
	inst.ReleaseName = ReleaseName(hr)
	inst.Namespace = hr.GetReleaseNamespace()
	inst.KubeVersion = kube
	inst.APIVersions = slices.Clone(opts.APIVersions)
	inst.DisableOpenAPIValidation = true
	inst.SkipSchemaValidation = hr.GetInstall().DisableSchemaValidation
	inst.PostRenderer = postRenderer(hr)
	switch hr.GetPostRenderStrategy() {
	case helmv2.PostRenderStrategyNoHooks:
		inst.PostRenderStrategy = action.PostRenderStrategyNoHooks
	case helmv2.PostRenderStrategySeparate:
		inst.PostRenderStrategy = action.PostRenderStrategySeparate
	}
	return inst, nil
}

// renderHere runs Helm's install in this process, bounded by the timeout and the output cap.
// The template engine cannot be stopped: past the deadline the render is abandoned (its
// goroutine runs on) and reported. Memory is not bounded here: the render worker calls this
// in a process whose memory is (isolate.go).
func renderHere(ctx context.Context, hr *helmv2.HelmRelease, c *chart.Chart, vals map[string]any, opts Options) (*output, error) {
	opts = limits(opts)
	inst, err := install(hr, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	type result struct {
		rel *releasev1.Release
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("the chart's templates panicked: %v", p)}
			}
		}()
		r, err := inst.RunWithContext(ctx, c, vals)
		rel, _ := r.(*releasev1.Release)
		done <- result{rel, err}
	}()
	select {
	case <-ctx.Done():
		return nil, &BoundError{Bound: BoundTime, Detail: fmt.Sprintf("not rendered within %s", opts.Timeout)}
	case res := <-done:
		if res.err != nil {
			return nil, res.err
		}
		if res.rel == nil {
			return nil, errors.New("Helm returned no release")
		}
		out := &output{Manifest: res.rel.Manifest}
		size := len(out.Manifest)
		for _, h := range res.rel.Hooks {
			out.Hooks = append(out.Hooks, hookManifest{Path: h.Path, Manifest: h.Manifest})
			size += len(h.Manifest)
		}
		if size > opts.MaxBytes {
			return nil, &BoundError{Bound: BoundOutput, Detail: fmt.Sprintf("the rendered manifest has %d bytes, more than the %d a release may render", size, opts.MaxBytes)}
		}
		return out, nil
	}
}
