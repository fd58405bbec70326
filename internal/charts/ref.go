package charts

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// The kinds of chart source a Ref can name.
const (
	// TypeHTTP is a HelmRepository serving an index.yaml over HTTP(S).
	TypeHTTP = "http"
	// TypeOCI is an OCI registry: a HelmRepository of type oci, or an OCIRepository.
	TypeOCI = "oci"
	// TypeDir is a chart directory inside this repository's snapshot.
	TypeDir = "dir"
)

// Ref names the chart a HelmRelease installs, resolved through the sources its repository
// declares.
type Ref struct {
	// Chart is the chart's name; Version the version or semver constraint as written ("" is
	// the latest stable version).
	Chart   string `json:"chart"`
	Version string `json:"version,omitempty"`
	// Source is the Flux source, Kind/namespace/name; URL its spec.url.
	Source string `json:"source"`
	URL    string `json:"url,omitempty"`
	Type   string `json:"type"`
	// Insecure is the source's spec.insecure: the OCI registry speaks plain HTTP.
	Insecure bool `json:"insecure,omitempty"`
	// Digest pins an OCIRepository's artifact (spec.ref.digest).
	Digest string `json:"digest,omitempty"`
	// Dir is the chart's directory in the snapshot (TypeDir).
	Dir string `json:"-"`
	// Root is the snapshot directory of the source the chart directory is in (TypeDir): local
	// dependencies are found inside it and never outside.
	Root string `json:"-"`
	// Files are the revision's files Dir and Root are read from (TypeDir); nil reads the disk.
	Files gitrev.Files `json:"-"`
}

// String names the chart, its version and where it comes from, for a reader.
func (r Ref) String() string {
	v := r.Version
	if v == "" {
		v = "(latest)"
	}
	where := r.Source
	if r.URL != "" {
		where += " <" + r.URL + ">"
	}
	return fmt.Sprintf("chart %s %s from %s", r.Chart, v, where)
}

// ociReference is the registry path of an OCI chart without the scheme: a HelmRepository's URL
// with the chart's name appended, or an OCIRepository's URL.
func (r Ref) ociReference() string {
	ref := strings.TrimSuffix(strings.TrimPrefix(r.URL, "oci://"), "/")
	if strings.HasPrefix(r.Source, "HelmRepository/") {
		ref += "/" + r.Chart
	}
	return ref
}

// Sources indexes the Flux source objects a build declares by Kind/namespace/name.
type Sources map[string]*unstructured.Unstructured

// IndexSources collects the source-controller objects among objs.
func IndexSources(objs []*unstructured.Unstructured) Sources {
	s := Sources{}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Group == "source.toolkit.fluxcd.io" || (gvk.Group == "source.extensions.fluxcd.io" && gvk.Kind == "ExternalArtifact") {
			s[gvk.Kind+"/"+o.GetNamespace()+"/"+o.GetName()] = o
		}
	}
	return s
}

// Repository is the repository the build comes from: the Flux source it is known as
// (Kind/namespace/name), the snapshot directory its artifact's root is at, and the files of
// the revision there (nil: the disk), which a chart directory of it is read from.
type Repository struct {
	Source string
	Root   string
	Files  gitrev.Files
}

// RefFor resolves the chart HelmRelease hr installs: spec.chart.spec through its sourceRef, or
// spec.chartRef (an OCIRepository, or a HelmChart and its source). It fails naming what the
// build does not show.
func RefFor(hr *unstructured.Unstructured, srcs Sources, own Repository) (Ref, error) {
	if kind, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "kind"); kind != "" {
		name, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "name")
		ns := nsOr(hr, "spec", "chartRef", "namespace")
		src, key, err := lookup(srcs, kind, ns, name)
		if err != nil {
			return Ref{}, err
		}
		switch kind {
		case "OCIRepository":
			return ociRepositoryRef(src, key)
		case "HelmChart":
			spec, _, _ := unstructured.NestedMap(src.Object, "spec")
			return templateRef(spec, src.GetNamespace(), srcs, own)
		default:
			return Ref{}, fmt.Errorf("spec.chartRef names %s, whose chart is not read (only OCIRepository and HelmChart)", key)
		}
	}
	spec, ok, _ := unstructured.NestedMap(hr.Object, "spec", "chart", "spec")
	if !ok {
		return Ref{}, fmt.Errorf("neither spec.chart.spec nor spec.chartRef is set")
	}
	return templateRef(spec, hr.GetNamespace(), srcs, own)
}

// templateRef resolves a HelmChart spec (spec.chart.spec of a HelmRelease, or a HelmChart's
// spec), whose sourceRef's namespace is always the object's own.
func templateRef(spec map[string]any, ns string, srcs Sources, own Repository) (Ref, error) {
	chart, _, _ := unstructured.NestedString(spec, "chart")
	version, _, _ := unstructured.NestedString(spec, "version")
	kind, _, _ := unstructured.NestedString(spec, "sourceRef", "kind")
	name, _, _ := unstructured.NestedString(spec, "sourceRef", "name")
	if v, _, _ := unstructured.NestedString(spec, "sourceRef", "namespace"); v != "" {
		ns = v
	}
	if version == "*" {
		version = ""
	}
	key := kind + "/" + ns + "/" + name
	if kind == "GitRepository" || kind == "Bucket" || kind == "ExternalArtifact" {
		// The chart is a path in the source's artifact; its version is its Chart.yaml's.
		if key != own.Source || own.Root == "" {
			return Ref{}, fmt.Errorf("chart %s comes from %s, which is not this repository (%s): its files are not read", chart, key, own.Source)
		}
		dir := filepath.Join(own.Root, filepath.FromSlash(path.Clean("/"+chart)))
		return Ref{Chart: path.Base(chart), Source: key, Type: TypeDir, Dir: dir, Root: own.Root, Files: own.Files}, nil
	}
	src, key, err := lookup(srcs, kind, ns, name)
	if err != nil {
		return Ref{}, err
	}
	url, _, _ := unstructured.NestedString(src.Object, "spec", "url")
	typ, _, _ := unstructured.NestedString(src.Object, "spec", "type")
	insecure, _, _ := unstructured.NestedBool(src.Object, "spec", "insecure")
	r := Ref{Chart: chart, Version: version, Source: key, URL: url, Type: TypeHTTP, Insecure: insecure}
	if typ == "oci" || strings.HasPrefix(url, "oci://") {
		r.Type = TypeOCI
	}
	return r, nil
}

// ociRepositoryRef resolves an OCIRepository: spec.ref.digest, else .semver, else .tag
// (default latest), as source-controller reads them.
func ociRepositoryRef(src *unstructured.Unstructured, key string) (Ref, error) {
	url, _, _ := unstructured.NestedString(src.Object, "spec", "url")
	insecure, _, _ := unstructured.NestedBool(src.Object, "spec", "insecure")
	r := Ref{Chart: path.Base(strings.TrimSuffix(url, "/")), Source: key, URL: url, Type: TypeOCI, Insecure: insecure}
	digest, _, _ := unstructured.NestedString(src.Object, "spec", "ref", "digest")
	semver, _, _ := unstructured.NestedString(src.Object, "spec", "ref", "semver")
	tag, _, _ := unstructured.NestedString(src.Object, "spec", "ref", "tag")
	switch {
	case digest != "":
		r.Digest, r.Version = digest, digest
	case semver != "":
		r.Version = semver
	case tag != "":
		r.Version = tag
	default:
		r.Version = "latest"
	}
	return r, nil
}

func lookup(srcs Sources, kind, ns, name string) (*unstructured.Unstructured, string, error) {
	key := kind + "/" + ns + "/" + name
	if src, ok := srcs[key]; ok {
		return src, key, nil
	}
	return nil, key, fmt.Errorf("its chart source %s is not declared by any tier that built", key)
}

func nsOr(u *unstructured.Unstructured, fields ...string) string {
	if v, _, _ := unstructured.NestedString(u.Object, fields...); v != "" {
		return v
	}
	return u.GetNamespace()
}
