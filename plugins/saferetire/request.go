package saferetire

import (
	"errors"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	sr "github.com/kubeforensics/suite/internal/saferetire"
)

// Result is what one invocation decided (internal/saferetire.Result): json marshals it as is
// and the printers draw it. Confirmation and PlanObject are parts of it.
type (
	Result       = sr.Result
	Confirmation = sr.Confirmation
	PlanObject   = sr.PlanObject
	// ChartsPullResult is what `safe-retire charts pull` reports.
	ChartsPullResult = sr.ChartsPullResult
)

// APIVersion is the apiVersion of the plugin's reports, published with their schemas in
// docs/schema (docs/report.md); ChartsAPIVersion that of `charts pull`.
const (
	APIVersion       = sr.APIVersion
	ChartsAPIVersion = sr.ChartsAPIVersion
)

// ToRequest checks the flags, once, and turns them into the request Plan and Execute run: it
// opens the caches the run reads (Request.OpenCaches), reads where --github-comment posts, and
// connects to the cluster unless --offline. Bad input is a one-line error (exit 3), returned
// before anything is opened.
func (o *SafeRetireOptions) ToRequest() (*sr.Request, error) {
	if err := o.Validate(); err != nil { // before anything is opened or connected for nothing
		return nil, err
	}
	req := o.request()
	req.Runtime = sr.Runtime{Target: cluster.Offline(o.ConfigFlags), PlanDir: o.planDir, Clock: o.Clock, In: o.In, Log: o.ErrOut}
	caches := sr.CacheDirs{Build: o.CacheDir, Charts: o.ChartCacheDir, Renders: o.RenderCacheDir, KeyFile: o.CacheKeyFile}
	if err := req.OpenCaches(caches, o.getenv); err != nil {
		return nil, err
	}
	if err := o.completeComment(); err != nil {
		return nil, err
	}
	if !o.Offline {
		c, err := cluster.Connect(o.ConfigFlags)
		if err != nil {
			return nil, err
		}
		req.Clients, req.Target = c, c.Target
	}
	return req, nil
}

// request is the request the flags make, without its runtime handles.
func (o *SafeRetireOptions) request() *sr.Request {
	return &sr.Request{Repo: o.Repo, Base: o.Base, Candidate: o.Candidate, Path: o.Path, SourceRoot: o.SourceRoot,
		PersistentKinds: o.PersistentKinds, Orphans: o.Orphans, DryRun: o.DryRun, Full: o.Full, AllowNetwork: o.AllowNetwork,
		ChartsDir: o.ChartsDir, KubeVersion: o.KubeVersion, NetworkTimeout: o.NetworkTimeout, Timeout: o.Timeout,
		Confirm: o.Confirm, Yes: o.Yes}
}

// Validate checks flag combinations and the request's values; it makes no request.
func (o *SafeRetireOptions) Validate() error {
	if err := o.PrintFlags.Validate(); err != nil {
		return err
	}
	if err := o.validateSARIF(); err != nil {
		return err
	}
	explicit := o.ConfigFlags.Context != nil && *o.ConfigFlags.Context != ""
	switch {
	case o.Orphans && o.Offline:
		return exitcode.UsageErrorf("--orphans reads the cluster's inventories; it cannot run --offline")
	case o.NetworkTimeout <= 0:
		return exitcode.UsageErrorf("--network-timeout must be positive")
	case o.Timeout <= 0:
		return exitcode.UsageErrorf("--timeout must be positive")
	case o.Orphans && (o.Path != "" || o.SourceRoot != "" || o.AllowNetwork):
		return exitcode.UsageErrorf("--orphans reads only the cluster: --path, --source-root and --allow-network do not apply")
	case !o.DryRun && !o.Orphans && o.Offline:
		return exitcode.UsageErrorf("--offline only reports: add --dry-run")
	case !o.DryRun && !o.Orphans && !explicit:
		return exitcode.UsageErrorf("without --dry-run safe-retire deletes objects on the cluster: give --context explicitly (or add --dry-run)")
	}
	if err := o.validateConfirm(); err != nil {
		return err
	}
	err := o.request().Validate()
	var bad *sr.InputError
	switch {
	case errors.As(err, &bad) && bad.Field == "KubeVersion":
		return exitcode.UsageErrorf("--kube-version %q: %v", bad.Value, bad.Err)
	case errors.As(err, &bad) && bad.Field == "PersistentKinds":
		return exitcode.UsageErrorf("--persistent-kind: %v", bad.Err)
	}
	return err
}

// validateConfirm checks how live steps are to be confirmed: by --confirm, or by a person on a
// terminal. Without either nothing could be carried out, so the run is refused before it reads
// anything.
func (o *SafeRetireOptions) validateConfirm() error {
	live := !o.DryRun && !o.Orphans
	switch {
	case o.Confirm != "" && !live:
		return exitcode.UsageErrorf("--confirm carries out a plan: it does not apply with --dry-run or --orphans")
	case o.Confirm != "" && o.Yes:
		return exitcode.UsageErrorf("--confirm already carries out the plan without asking: drop --yes")
	case o.Confirm != "" && !sr.ValidDigest(o.Confirm):
		return exitcode.UsageErrorf("--confirm=%s: want the digest the dry run printed, sha256:<64 lowercase hex digits>", o.Confirm)
	case live && o.Confirm == "" && !o.terminal && o.Yes:
		return exitcode.UsageErrorf("--yes is for a terminal only: without one, run with --dry-run to review the plan, then pass the digest it prints as --confirm=sha256:<hex>; nothing was carried out")
	case live && o.Confirm == "" && !o.terminal:
		return exitcode.UsageErrorf("no terminal to confirm the steps on: run with --dry-run to review the plan, then pass the digest it prints as --confirm=sha256:<hex>; nothing was carried out")
	}
	return nil
}
