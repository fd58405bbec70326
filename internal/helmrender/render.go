// Package helmrender renders a Flux HelmRelease as helm-controller installs it, without a
// cluster: the chart (from internal/charts) with the values helm-controller composes, the
// release name and namespace it chooses, its kustomize post-renderers and origin labels, and
// Capabilities from a Kubernetes version plus the API versions the repository declares. The
// render is Helm's install in client-only dry-run mode as internal/chartrender does it with
// Helm's own chart, values, engine and manifest-sorting packages (held to Helm's install action
// by TestInstallDifferential), so `lookup` finds nothing and no object is sent anywhere. Helm
// plugins and post-render executables never run. What it yields
// is what an uninstall deletes (the manifest), the hooks, and the crds/ a release installs but
// Helm never deletes.
package helmrender

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	"strings"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultKubeVersion is the Kubernetes version charts see in .Capabilities when no other is
// given: the minor release of the client libraries this program is built with.
const DefaultKubeVersion = "v1.36.0"

// Defaults bounding one release's render.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxBytes  = 16 << 20
	DefaultMaxMemory = 256 << 20
)

// Options are the settings of every render of a run.
type Options struct {
	// KubeVersion is .Capabilities.KubeVersion ("" is DefaultKubeVersion).
	KubeVersion string
	// APIVersions are added to Helm's default set: "group/version" and "group/version/Kind"
	// of the CRDs the repository declares.
	APIVersions []string
	// Timeout bounds one render, MaxBytes its manifest, MaxMemory the memory of the process
	// it runs in (0: the defaults). Past any of them the render is stopped and fails with a
	// *BoundError, naming the release.
	Timeout   time.Duration
	MaxBytes  int
	MaxMemory int64
	// InProcess renders in this process, where neither memory nor, past the deadline, the
	// work of a chart's templates is bounded: only to measure what the isolation costs. By
	// default every render runs in a render worker process (isolate.go).
	InProcess bool
	// AllowNetwork lets Helm fetch the remote schemas a chart's values.schema.json refers to,
	// as helm-controller does; without it they are skipped and the render says so (schema.go).
	AllowNetwork bool
	// ClusterScoped reports kinds ("Kind.group") that have no namespace, beyond the built-in
	// ones: the CRDs of the repository with scope Cluster.
	ClusterScoped map[string]bool
	// Cache, when set, answers renders an earlier run made with the same inputs, and keeps
	// the renders this run makes (cache.go). It never reaches a render process.
	Cache *Cache `json:"-"`
	// Worker is the run's render worker, chosen once (worker.go); nil chooses one for each
	// render, which starts a found worker once more each time to ask its build.
	Worker *Worker `json:"-"`
}

// Render is what one HelmRelease installs.
type Render struct {
	// Release is namespace/name of the Helm release; StorageNamespace where Helm keeps it.
	Release          string `json:"release"`
	StorageNamespace string `json:"storageNamespace"`
	Chart            string `json:"chart"`
	Version          string `json:"version"`
	Digest           string `json:"digest,omitempty"`
	// Manifest are the objects of the release's manifest: what an upgrade compares and an
	// uninstall deletes (unless helm.sh/resource-policy: keep).
	Manifest []*unstructured.Unstructured `json:"-"`
	// Hooks are the chart's hooks, which an uninstall does not delete as manifest objects.
	Hooks []*unstructured.Unstructured `json:"-"`
	// CRDs are the chart's crds/ files: installed per spec.install.crds (default Create),
	// updated per spec.upgrade.crds (default Skip), never deleted by Helm.
	CRDs []*unstructured.Unstructured `json:"-"`
	// InstallCRDs and UpgradeCRDs are the CRD policies in force.
	InstallCRDs string `json:"installCRDs"`
	UpgradeCRDs string `json:"upgradeCRDs"`
	// SecretValues is set when values came from a Secret: the render is used, never stored,
	// and no value is ever printed.
	SecretValues bool `json:"secretValues,omitempty"`
	// Notes say what the render did otherwise than helm-controller would: the remote schemas
	// it did not fetch.
	Notes []string `json:"notes,omitempty"`
}

// Decode reads a HelmRelease object into helm-controller's own type.
func Decode(u *unstructured.Unstructured) (*helmv2.HelmRelease, error) {
	hr := &helmv2.HelmRelease{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, hr); err != nil {
		return nil, fmt.Errorf("HelmRelease %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return hr, nil
}

// ReleaseName is helm-controller's name for the release: spec.releaseName, else
// `[<targetNamespace>-]<name>`, shortened past 53 characters with a hash of the whole.
func ReleaseName(hr *helmv2.HelmRelease) string {
	return shorten(hr.GetReleaseName())
}

func shorten(name string) string {
	const maxLength, hashLength = 53, 12
	if len(name) <= maxLength {
		return name
	}
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(name)))
	return name[:maxLength-hashLength-1] + "-" + sum[:hashLength]
}

// Do renders the HelmRelease u with chart c (resolved to version, archive digest) and the
// ConfigMaps and Secrets objs for its valuesFrom: Prepare, then Render.
func Do(ctx context.Context, u *unstructured.Unstructured, c *chart.Chart, digest string, objs []*unstructured.Unstructured, opts Options) (*Render, error) {
	p, err := Prepare(ctx, u, c, digest, objs, opts)
	if err != nil {
		return nil, err
	}
	return p.Render(ctx)
}

// Prepared is a HelmRelease's render with everything read that decides it (values, schemas,
// its cache key) and the cache asked: a run that prepares its renders first knows which will
// start a render process (not Cached) and can start them ahead (StartAhead) before it
// renders.
type Prepared struct {
	hr      *helmv2.HelmRelease
	c       *chart.Chart
	r       *Render
	vals    map[string]any
	skipped []string
	opts    Options
	// key is the render's cache key (keyed: it may be stored), keyErr why it has none;
	// cached the cache's answer.
	key    string
	keyed  bool
	keyErr error
	cached *output
}

// Prepare reads what rendering the HelmRelease u with chart c reads (Do) and asks the cache,
// without rendering.
func Prepare(ctx context.Context, u *unstructured.Unstructured, c *chart.Chart, digest string, objs []*unstructured.Unstructured, opts Options) (*Prepared, error) {
	hr, err := Decode(u)
	if err != nil {
		return nil, err
	}
	vals, secret, err := ComposeValues(ctx, hr, objs)
	if err != nil {
		return nil, err
	}
	if !hr.GetInstall().DisableSchemaValidation {
		if err := refuseLocalSchemaRefs(c); err != nil {
			return nil, err
		}
	}
	return prepare(hr, c, digest, vals, secret, opts)
}

// prepare is Prepare of the decoded hr with its composed values vals (secret: some are a
// Secret's), the chart's schema references already checked. A render whose values include a
// Secret's is neither read from the cache nor stored in it.
func prepare(hr *helmv2.HelmRelease, c *chart.Chart, digest string, vals map[string]any, secret bool, opts Options) (*Prepared, error) {
	p := &Prepared{hr: hr, c: c, vals: vals, opts: opts, r: &Render{
		Release:          hr.GetReleaseNamespace() + "/" + ReleaseName(hr),
		StorageNamespace: hr.GetStorageNamespace(),
		Chart:            c.Name(), Version: c.Metadata.Version, Digest: digest,
		InstallCRDs:  crdPolicy(string(hr.GetInstall().CRDs), "Create"),
		UpgradeCRDs:  crdPolicy(string(hr.GetUpgrade().CRDs), "Skip"),
		SecretValues: secret,
	}}
	if !opts.AllowNetwork && !hr.GetInstall().DisableSchemaValidation {
		var err error
		if p.c, p.skipped, err = offlineSchemas(c); err != nil {
			return nil, err
		}
		if len(p.skipped) > 0 {
			p.r.Notes = append(p.r.Notes, schemaNote(p.r.Chart, p.r.Version, p.skipped))
		}
	}
	if opts.Cache != nil && !secret {
		p.key, p.keyed, p.keyErr = cacheKey(opts.Cache.salt, hr, p.c, digest, vals, p.skipped, opts)
		if p.keyErr == nil && p.keyed {
			p.cached, _ = opts.Cache.get(p.key)
		}
	}
	return p, nil
}

// Cached tells that the render comes from the cache: Render starts no process.
func (p *Prepared) Cached() bool { return p.cached != nil }

// Render renders the prepared release (or takes it from the cache) and reads what it
// installs.
func (p *Prepared) Render(ctx context.Context) (*Render, error) {
	r := p.r
	rel, err := p.output(ctx)
	if err != nil && r.SecretValues && !errors.Is(err, ErrBound) {
		// Helm's messages quote templates and values: with a Secret's among them, none is shown.
		return nil, fmt.Errorf("rendering release %s (chart %s %s) failed; its values include a Secret's, so Helm's message is not shown", r.Release, r.Chart, r.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("rendering release %s (chart %s %s): %w", r.Release, r.Chart, r.Version, err)
	}
	scope := scoper{extra: p.opts.ClusterScoped}
	ns := p.hr.GetReleaseNamespace()
	if r.Manifest, err = decode(rel.Manifest, ns, scope); err != nil {
		return nil, fmt.Errorf("release %s: its manifest: %w", r.Release, err)
	}
	for _, h := range rel.Hooks {
		objs, err := decode(h.Manifest, ns, scope)
		if err != nil {
			return nil, fmt.Errorf("release %s: hook %s: %w", r.Release, h.Path, err)
		}
		r.Hooks = append(r.Hooks, objs...)
	}
	for _, crd := range p.c.CRDObjects() {
		objs, err := decode(string(crd.File.Data), "", scope)
		if err != nil {
			return nil, fmt.Errorf("release %s: %s: %w", r.Release, crd.Filename, err)
		}
		r.CRDs = append(r.CRDs, objs...)
	}
	return r, nil
}

// output is the cache's answer when it had one, else the render (in a render process, or
// here with InProcess), stored in the cache when it may be.
func (p *Prepared) output(ctx context.Context) (*output, error) {
	switch {
	case p.keyErr != nil:
		return nil, p.keyErr
	case p.cached != nil:
		return p.cached, nil
	}
	opts := p.opts
	if opts.Cache != nil {
		opts.Cache.rendered.Add(1)
	}
	var out *output
	var err error
	if opts.InProcess {
		out, err = renderHere(ctx, p.hr, p.c, p.vals, opts)
	} else {
		out, err = renderIsolated(ctx, p.hr, p.c, p.vals, opts)
	}
	if err == nil && p.keyed {
		opts.Cache.put(p.key, out)
	}
	return out, err
}

func crdPolicy(p, def string) string {
	if p == "" {
		return def
	}
	return p
}

// decode reads a multi-document manifest; namespaced objects without a namespace get ns, as
// Helm's client creates them in the release namespace.
func decode(manifest, ns string, scope scoper) ([]*unstructured.Unstructured, error) {
	objs, err := ssautil.ReadObjects(strings.NewReader(manifest))
	if err != nil {
		return nil, err
	}
	for i, u := range objs {
		objs[i] = scope.place(u, ns)
	}
	return objs, nil
}

// CheckKubeVersion reports whether v is a Kubernetes version Helm accepts for .Capabilities.
func CheckKubeVersion(v string) error {
	_, err := common.ParseKubeVersion(v)
	return err
}

// schemaNote says, once per chart version (the gate prints each distinct note once, however
// many releases use the chart), that its values schema's remote references were not fetched:
// how many, and the first few, so a chart with dozens of them is one line, not a page.
func schemaNote(chart, version string, skipped []string) string {
	const shown = 3
	refs := strings.Join(skipped, ", ")
	if len(skipped) > shown {
		refs = fmt.Sprintf("%s and %d more", strings.Join(skipped[:shown], ", "), len(skipped)-shown)
	}
	return fmt.Sprintf("chart %s %s: values.schema.json refers to %d remote schema(s), not fetched without --allow-network, so values were validated without them (helm-controller fetches them): %s", chart, version, len(skipped), refs)
}
