package helmstorage

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Release is the deployed revision of a Helm release as Helm stored it: never its values.
type Release struct {
	Location
	// Namespace is the release's namespace, where its namespaced objects without one go.
	Namespace string `json:"namespace"`
	// Version is the revision; Record names the storage object it was read from
	// ("Secret flux-system/sh.helm.release.v1.podinfo.v3").
	Version int    `json:"version"`
	Record  string `json:"record"`
	// Chart and ChartVersion are the chart's metadata name and version.
	Chart        string `json:"chart"`
	ChartVersion string `json:"chartVersion"`
	// Objects are the objects of the release's manifest (its templates, not its hooks and not
	// the chart's crds/), in manifest order, as Helm rendered them: a namespaced object may have
	// no namespace (Helm installs it in Namespace).
	Objects []*unstructured.Unstructured `json:"-"`
	// Hooks are the release's hooks, each with the object it creates (hooks.go).
	Hooks []Hook `json:"-"`
	// InstalledChart is the chart the release was installed from as Helm stored it, read by
	// DeployedChart only (chart.go); nil otherwise. StoredChartIncomplete says why it is not
	// all of the chart that rendered the release ("" when nothing shows that).
	InstalledChart        *chart.Chart `json:"-"`
	StoredChartIncomplete string       `json:"-"`
}

// Reason is why a release could not be read.
type Reason string

// The reasons a release could not be read.
const (
	Forbidden   Reason = "forbidden"
	Missing     Reason = "missing"
	TooLarge    Reason = "too-large"
	Undecodable Reason = "undecodable"
	Unreadable  Reason = "unreadable"
)

// Error says why the release at Location could not be read. Its text names the storage and
// the reason, never the stored data.
type Error struct {
	Location
	Reason Reason
	// Record is the storage object that failed to decode, "" for a listing.
	Record string
	Detail string
}

func (e *Error) Error() string {
	what := fmt.Sprintf("reading the deployed revision of Helm release %s in storage namespace %s", e.Name, e.StorageNamespace)
	if e.Record != "" {
		what += " (" + e.Record + ")"
	}
	return fmt.Sprintf("%s: %s: %s", what, e.Reason, e.Detail)
}

// MaxRecordBytes bounds one storage record (Kubernetes bounds a Secret or ConfigMap to 1 MiB);
// MaxReleaseBytes bounds the JSON it decompresses to.
const (
	MaxRecordBytes  = 4 << 20
	MaxReleaseBytes = 64 << 20
)

// Deployed reads the latest deployed revision of the release at loc: the Secrets of Helm's
// default driver labelled owner=helm, name=<name>, status=deployed, or, when no Secret holds
// the release, the ConfigMaps of Helm's configmap driver labelled alike; the one with the
// highest version label is decoded. Every failure is an *Error.
func Deployed(ctx context.Context, kube kubernetes.Interface, loc Location) (*Release, error) {
	return deployed(ctx, kube, loc, false)
}

// deployed is Deployed; withChart decodes the stored chart too (DeployedChart).
func deployed(ctx context.Context, kube kubernetes.Interface, loc Location, withChart bool) (*Release, error) {
	fail := func(r Reason, record, detail string) error {
		return &Error{Location: loc, Reason: r, Record: record, Detail: detail}
	}
	sel := labels.SelectorFromSet(labels.Set{"owner": "helm", "name": loc.Name, "status": "deployed"}).String()
	opts := metav1.ListOptions{LabelSelector: sel}
	var recs []stored
	secrets, err := kube.CoreV1().Secrets(loc.StorageNamespace).List(ctx, opts)
	if err != nil {
		return nil, fail(listReason(err), "", "listing Secrets "+sel+": "+apiMessage(err))
	}
	for i := range secrets.Items {
		s := &secrets.Items[i]
		recs = append(recs, stored{what: "Secret " + s.Namespace + "/" + s.Name, labels: s.Labels, data: s.Data["release"], size: len(s.Data["release"])})
	}
	if len(recs) == 0 {
		cms, err := kube.CoreV1().ConfigMaps(loc.StorageNamespace).List(ctx, opts)
		if err != nil {
			return nil, fail(listReason(err), "", "no Secret holds it, and listing ConfigMaps "+sel+": "+apiMessage(err))
		}
		for i := range cms.Items {
			c := &cms.Items[i]
			recs = append(recs, stored{what: "ConfigMap " + c.Namespace + "/" + c.Name, labels: c.Labels, data: []byte(c.Data["release"]), size: len(c.Data["release"])})
		}
	}
	latest := -1
	for i, r := range recs {
		if v, err := strconv.Atoi(r.labels["version"]); err == nil && (latest < 0 || v > recs[latest].version) {
			recs[i].version, latest = v, i
		}
	}
	if latest < 0 {
		return nil, fail(Missing, "", fmt.Sprintf("no Secret or ConfigMap labelled %s with a version label (Helm's storage records)", sel))
	}
	r := recs[latest]
	if r.size > MaxRecordBytes {
		return nil, fail(TooLarge, r.what, fmt.Sprintf("its release data is %d bytes, over the bound of %d", r.size, MaxRecordBytes))
	}
	rel, raw, err := decode(r.data)
	if err != nil {
		var tl *tooLarge
		if errors.As(err, &tl) {
			return nil, fail(TooLarge, r.what, err.Error())
		}
		return nil, fail(Undecodable, r.what, err.Error())
	}
	if rel.Name != loc.Name || rel.Version != r.version || rel.Info == nil || rel.Info.Status != "deployed" {
		return nil, fail(Undecodable, r.what, "its labels (name, version, status) do not match the release it holds")
	}
	out := &Release{Location: loc, Namespace: rel.Namespace, Version: rel.Version, Record: r.what}
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		out.Chart, out.ChartVersion = rel.Chart.Metadata.Name, rel.Chart.Metadata.Version
	}
	if out.Objects, err = manifestObjects(rel.Manifest); err != nil {
		return nil, fail(Undecodable, r.what, err.Error())
	}
	if out.Hooks, err = hooks(rel.Hooks); err != nil {
		return nil, fail(Undecodable, r.what, err.Error())
	}
	if withChart {
		if out.InstalledChart, err = decodeChart(raw); err != nil {
			return nil, fail(Undecodable, r.what, err.Error())
		}
		out.StoredChartIncomplete = storedChartIncomplete(out.InstalledChart, rel.Manifest, rel.Hooks)
	}
	return out, nil
}

// stored is one storage record, its data still encoded.
type stored struct {
	what    string
	labels  map[string]string
	data    []byte
	size    int
	version int
}

// listReason classifies a failed listing.
func listReason(err error) Reason {
	if apierrors.IsForbidden(err) {
		return Forbidden
	}
	return Unreadable
}

// apiMessage is the API server's message for err: it names the request, never an object's data.
func apiMessage(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Message
	}
	return err.Error()
}
