package helmjudge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// releaseTarget are the parts of a HelmRelease's spec besides its values that decide which
// chart it installs, as which release, and what its post-renderers make of it.
var releaseTarget = []string{"chart", "chartRef", "postRenderers", "releaseName", "targetNamespace", "storageNamespace"}

// onInstalled renders, live, each HelmRelease both revisions declare whose chart could not be
// had (charts.ErrUnavailable) and whose values alone the candidate changes (spec.values, or
// the ConfigMaps and Secrets of spec.valuesFrom): the chart it installs is the one its
// deployed release runs, which Helm stored in the release record, so the candidate is rendered
// with that chart (helmrender.DoInstalled), with the cluster's Capabilities, the same release
// name and namespace and its post-renderers, as helm-controller would upgrade it. The base
// side becomes the installed manifest itself, so helmDrops judges what the upgrade deletes
// against what is installed. It applies only when the HelmRelease declares one exact chart
// version and the installed release runs that chart at that version, stored whole; otherwise
// the render's error says why not and the values rules judge it as before. A release that
// cannot be read, or that fails to render, is UNKNOWN (an error that is not ErrUnavailable).
// notes are the evidence of each one rendered so.
func (h *Renderer) onInstalled(ctx context.Context, sides *helmSides, base, cand *gitops.Tree, units []Unit, installed *Releases) (notes []report.Note) {
	if installed == nil || base == nil || cand == nil {
		return nil
	}
	bobjs, cobjs := sideObjects(base), sideObjects(cand)
	srcs := [2]map[string]*unstructured.Unstructured{ChartSources(bobjs), ChartSources(cobjs)}
	var cside *side
	var caps *capabilities
	for _, u := range units {
		bases := map[string]*unstructured.Unstructured{}
		for _, o := range u.Base {
			bases[inventory.RefOf(o).ID()] = o
		}
		for _, c := range u.Candidate {
			id := inventory.RefOf(c).ID()
			rb, rc := sides.base[id], sides.cand[id]
			if rb == nil || rc == nil || bases[id] == nil || !errors.Is(errors.Join(rb.err, rc.err), charts.ErrUnavailable) {
				continue
			}
			if cside == nil {
				cside = newSide(cand, cobjs, h.Options)
			}
			rel, why, err := installedHere(bases[id], c, u, srcs, cside, installed)
			if err == nil && why == "" && caps == nil {
				caps = readCapabilities(installed)
			}
			if err == nil && why == "" {
				err = caps.err
			}
			switch {
			case err != nil:
				sides.base[id], sides.cand[id] = &rendered{err: err, inputs: rb.inputs}, &rendered{inputs: rc.inputs}
				continue
			case why != "":
				if rc.err != nil {
					rc.err = fmt.Errorf("%w; the installed release's chart is not rendered in its place: %s", rc.err, why)
				} else {
					rb.err = fmt.Errorf("%w; the installed release's chart is not rendered in its place: %s", rb.err, why)
				}
				continue
			}
			opts := cside.opts
			opts.KubeVersion, opts.APIVersions = caps.kubeVersion, caps.apiVersions
			rd, err := helmrender.DoInstalled(ctx, c, rel.InstalledChart, cobjs, opts)
			if err != nil {
				sides.base[id], sides.cand[id] = &rendered{err: err, inputs: rb.inputs}, &rendered{inputs: rc.inputs}
				continue
			}
			sides.base[id] = &rendered{inputs: rb.inputs, render: &helmrender.Render{Release: rel.Namespace + "/" + rel.Name, StorageNamespace: rel.StorageNamespace,
				Chart: rel.Chart, Version: rel.ChartVersion, Manifest: rel.Objects}}
			sides.cand[id] = &rendered{inputs: rc.inputs, render: rd}
			notes = append(notes, report.Note{Code: report.NoteHelmRenderedInstalled, Subject: inventory.RefOf(c).GapID(), Message: installedEvidence(c, u, rel, rd, caps.kubeVersion)})
		}
	}
	return notes
}

// installedHere is installedFor for a release on the cluster the run reads; one installed on
// another cluster (Remote) is not read here, and its render is UNKNOWN (ErrRemote).
func installedHere(b, c *unstructured.Unstructured, u Unit, srcs [2]map[string]*unstructured.Unstructured, cside *side, installed *Releases) (*helmstorage.Release, string, error) {
	if where, own := Remote(c, u.Cluster); where != "" {
		return nil, "", fmt.Errorf("reading the installed release to render its chart: %w: its release is on %s, which this run does not read", ErrRemote, remoteText(c, u.Kustomization, where, own))
	}
	return installedFor(b, c, srcs, cside, installed)
}

// installedFor reads the deployed release of the candidate HelmRelease c with its chart when
// that chart is the one c installs; why says otherwise why it does not apply, err that the
// release could not be read.
func installedFor(b, c *unstructured.Unstructured, srcs [2]map[string]*unstructured.Unstructured, cside *side, installed *Releases) (rel *helmstorage.Release, why string, err error) {
	var changed []string
	for _, f := range releaseTarget {
		if !reflect.DeepEqual(helm.Spec(b)[f], helm.Spec(c)[f]) {
			changed = append(changed, "spec."+f)
		}
	}
	if from, to := helm.ChartSource(b, srcs[0]), helm.ChartSource(c, srcs[1]); (from == nil) != (to == nil) || (from != nil && !reflect.DeepEqual(helm.Spec(from), helm.Spec(to))) {
		changed = append(changed, "its chart source's spec")
	}
	if len(changed) > 0 {
		return nil, "the candidate changes " + strings.Join(changed, ", ") + ", not only its values", nil
	}
	ref, err := charts.RefFor(c, cside.srcs, cside.own)
	if err != nil {
		return nil, "the chart it declares is not known: " + err.Error(), nil
	}
	version := ref.Version
	if ref.Type == charts.TypeOCI {
		version = strings.ReplaceAll(version, "_", "+") // Helm pushes + as _ in OCI tags
	}
	switch {
	case ref.Type == charts.TypeDir:
		return nil, "its chart is a directory of a source, whose version is its own Chart.yaml's", nil
	case ref.Digest != "":
		return nil, "its chart is pinned by digest, not by a version", nil
	}
	if _, err := semver.StrictNewVersion(version); err != nil {
		return nil, fmt.Sprintf("it declares chart version %q, not one exact version, so the version it installs is not known to be the installed one", ref.Version), nil
	}
	rel, err = installed.withChart(c.GetNamespace(), c.GetName())
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("reading the installed release to render its chart: %w", err)
	case rel == nil:
		return nil, "the HelmRelease is not installed on the cluster", nil
	case rel.Chart != ref.Chart || rel.ChartVersion != version:
		return nil, fmt.Sprintf("the installed release runs chart %s %s and the HelmRelease declares %s %s", rel.Chart, rel.ChartVersion, ref.Chart, version), nil
	case rel.StoredChartIncomplete != "":
		return nil, fmt.Sprintf("the installed chart %s %s is not stored whole: %s", rel.Chart, rel.ChartVersion, rel.StoredChartIncomplete), nil
	}
	return rel, "", nil
}

// capabilities are the cluster's, read once per gate.
type capabilities struct {
	kubeVersion string
	apiVersions []string
	err         error
}

func readCapabilities(installed *Releases) *capabilities {
	kv, apis, err := installed.capabilities()
	if err != nil {
		err = fmt.Errorf("reading the cluster's Capabilities to render the installed chart: %w", err)
	}
	return &capabilities{kubeVersion: kv, apiVersions: apis, err: err}
}

// installedEvidence says how the upgrade of c was judged: the candidate rendered against the
// installed chart and compared with the installed manifest.
func installedEvidence(c *unstructured.Unstructured, u Unit, rel *helmstorage.Release, rd *helmrender.Render, kubeVersion string) string {
	kept := inventory.IDs(rd.Manifest)
	var dropped []string
	for _, o := range rel.Objects {
		if !kept[inventory.RefOf(o).ID()] {
			dropped = append(dropped, inventory.RefOf(o).String())
		}
	}
	what := fmt.Sprintf("it keeps every one of the installed manifest's %d objects, so the upgrade deletes none of them", len(rel.Objects))
	if len(dropped) > 0 {
		what = fmt.Sprintf("the upgrade deletes %d of the installed manifest's %d objects, judged as removals: %s", len(dropped), len(rel.Objects), strings.Join(dropped, ", "))
	}
	return fmt.Sprintf("HelmRelease %s/%s (Kustomization %s): its chart is not available here and the candidate changes only its values, so they were rendered against the installed chart %s %s (stored with revision %d, %s; with Kubernetes %s and the API versions the cluster serves, as release %s, with its post-renderers) and compared with the installed manifest: %s",
		c.GetNamespace(), c.GetName(), u.Kustomization, rel.Chart, rel.ChartVersion, rel.Version, rel.Record, kubeVersion, rd.Release, what)
}
