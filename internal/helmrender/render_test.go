package helmrender_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

func load(t *testing.T, c charttest.Chart) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(charttest.Package(t, t.TempDir(), c))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// release is an app-template HelmRelease as home-ops repositories write one
// (https://github.com/onedr0p/home-ops, kubernetes/apps/*/*/app/helmrelease.yaml).
func release(t *testing.T, spec string) *unstructured.Unstructured {
	return obj(t, `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: paperless
  namespace: media
spec:
  chart:
    spec:
      chart: app-template
      version: 4.4.0
      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}
`+spec)
}

func ids(objs []*unstructured.Unstructured) string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
	}
	return strings.Join(out, "\n")
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// app-template's persistence: a claim item without type is a claim (the default), an
// existingClaim item renders none, retain puts helm.sh/resource-policy: keep on its claim;
// every object gets helm-controller's origin labels and the release namespace.
func TestRenderAppTemplate(t *testing.T) {
	hr := release(t, `  values:
    controllers:
      main:
        containers:
          app: {image: {repository: ghcr.io/paperless-ngx/paperless-ngx, tag: 2.15.0}}
    persistence:
      data: {size: 15Gi}
      cache: {type: persistentVolumeClaim, size: 10Gi}
      media: {existingClaim: media}
      export: {retain: true}
      tmp: {type: emptyDir}
`)
	r, err := helmrender.Do(context.Background(), hr, load(t, charttest.AppTemplate("4.4.0")), "", nil, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(r.Manifest)
	for _, want := range []string{"PersistentVolumeClaim media/paperless-data", "PersistentVolumeClaim media/paperless-cache", "PersistentVolumeClaim media/paperless-export", "Deployment media/paperless"} {
		if !strings.Contains(got, want) {
			t.Errorf("manifest lacks %s:\n%s", want, got)
		}
	}
	for _, absent := range []string{"PersistentVolumeClaim media/media", "PersistentVolumeClaim media/paperless-tmp", "PersistentVolumeClaim media/paperless-media"} {
		if strings.Contains(got, absent) {
			t.Errorf("manifest has %s:\n%s", absent, got)
		}
	}
	export := find(r.Manifest, "PersistentVolumeClaim", "paperless-export")
	if export.GetAnnotations()["helm.sh/resource-policy"] != "keep" {
		t.Errorf("retain: true did not keep: %v", export.GetAnnotations())
	}
	if l := find(r.Manifest, "Deployment", "paperless").GetLabels(); l[helmrender.NameLabel] != "paperless" || l[helmrender.NamespaceLabel] != "media" {
		t.Errorf("origin labels: %v", l)
	}
	if r.Release != "media/paperless" || r.Chart != "app-template" || r.Version != "4.4.0" || r.InstallCRDs != "Create" || r.UpgradeCRDs != "Skip" {
		t.Errorf("render: %+v", r)
	}
}

// targetNamespace names the release `<targetNamespace>-<name>` in that namespace, and a long
// name is shortened with a hash, as helm-controller does.
func TestReleaseNaming(t *testing.T) {
	hr := release(t, "  targetNamespace: documents\n  values: {controllers: {main: {containers: {app: {image: {repository: x, tag: y}}}}}}\n")
	r, err := helmrender.Do(context.Background(), hr, load(t, charttest.AppTemplate("4.4.0")), "", nil, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Release != "documents/documents-paperless" || find(r.Manifest, "Deployment", "documents-paperless").GetNamespace() != "documents" {
		t.Fatalf("release %s, manifest:\n%s", r.Release, ids(r.Manifest))
	}
	long := release(t, "  releaseName: "+strings.Repeat("a", 60)+"\n")
	hrv, err := helmrender.Decode(long)
	if err != nil {
		t.Fatal(err)
	}
	if name := helmrender.ReleaseName(hrv); len(name) != 53 || !strings.HasPrefix(name, strings.Repeat("a", 40)+"-") {
		t.Fatalf("shortened name %q", name)
	}
}

// valuesFrom: a ConfigMap's document merged, a Secret's value set at targetPath, spec.values on
// top; an optional reference to nothing is skipped; a missing required one and a SOPS-encrypted
// Secret fail, naming the reference and never the Secret's text.
func TestValuesFrom(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: paperless-values, namespace: media}\ndata:\n  values.yaml: |\n    persistence:\n      data: {size: 1Gi}\n      cache: {size: 2Gi}\n"),
		obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: paperless-secret, namespace: media}\nstringData:\n  size: 3Gi\n"),
		obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: sealed, namespace: media}\ndata:\n  values.yaml: RU5DW0FFUzI1Nl9HQ00=\nsops:\n  version: 3.9.0\n"),
	}
	hr := release(t, `  valuesFrom:
  - {kind: ConfigMap, name: paperless-values}
  - {kind: Secret, name: paperless-secret, valuesKey: size, targetPath: persistence.export.size}
  - {kind: ConfigMap, name: absent, optional: true}
  values:
    controllers: {main: {containers: {app: {image: {repository: x, tag: y}}}}}
    persistence:
      cache: {size: 20Gi}
`)
	r, err := helmrender.Do(context.Background(), hr, load(t, charttest.AppTemplate("4.4.0")), "", objs, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	size := func(name string) string {
		o := find(r.Manifest, "PersistentVolumeClaim", name)
		if o == nil {
			return "(none)"
		}
		s, _, _ := unstructured.NestedString(o.Object, "spec", "resources", "requests", "storage")
		return s
	}
	if size("paperless-data") != "1Gi" || size("paperless-cache") != "20Gi" || size("paperless-export") != "3Gi" || !r.SecretValues {
		t.Fatalf("sizes data %s cache %s export %s, secret %v", size("paperless-data"), size("paperless-cache"), size("paperless-export"), r.SecretValues)
	}
	for _, tc := range []struct{ name, ref, want string }{
		{"missing", "  - {kind: ConfigMap, name: absent}\n", "valuesFrom ConfigMap media/absent: no tier that built declares it"},
		{"sops", "  - {kind: Secret, name: sealed}\n", "valuesFrom Secret media/sealed: encrypted with SOPS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helmrender.Do(context.Background(), release(t, "  valuesFrom:\n"+tc.ref), load(t, charttest.AppTemplate("4.4.0")), "", objs, helmrender.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "RU5D") {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// A render that fails with a Secret among its values does not show Helm's message, which can
// quote the values.
func TestSecretValuesNotInErrors(t *testing.T) {
	objs := []*unstructured.Unstructured{obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: media}\nstringData:\n  tag: \"hunter2\"\n")}
	c := charttest.Chart{Name: "leaky", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "{{ fail (printf \"bad tag %s\" .Values.tag) }}\n",
	}}
	hr := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: leaky, namespace: media}\nspec:\n  chart: {spec: {chart: leaky, sourceRef: {kind: HelmRepository, name: r}}}\n  valuesFrom: [{kind: Secret, name: s, valuesKey: tag, targetPath: tag}]\n")
	_, err := helmrender.Do(context.Background(), hr, load(t, c), "", objs, helmrender.Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "Helm's message is not shown") {
		t.Fatalf("got %v", err)
	}
	hr = obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: leaky, namespace: media}\nspec:\n  chart: {spec: {chart: leaky, sourceRef: {kind: HelmRepository, name: r}}}\n  values: {tag: public}\n")
	if _, err := helmrender.Do(context.Background(), hr, load(t, c), "", objs, helmrender.Options{}); err == nil || !strings.Contains(err.Error(), "bad tag public") {
		t.Fatalf("inline values: %v", err)
	}
}

// spec.postRenderers' kustomize patches apply after the chart, before the origin labels.
func TestPostRenderer(t *testing.T) {
	hr := release(t, `  values:
    controllers: {main: {containers: {app: {image: {repository: x, tag: y}}}}}
    persistence:
      data: {size: 1Gi}
  postRenderers:
  - kustomize:
      patches:
      - target: {kind: PersistentVolumeClaim, name: paperless-data}
        patch: |
          - op: add
            path: /metadata/annotations
            value: {helm.sh/resource-policy: keep}
`)
	r, err := helmrender.Do(context.Background(), hr, load(t, charttest.AppTemplate("4.4.0")), "", nil, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pvc := find(r.Manifest, "PersistentVolumeClaim", "paperless-data")
	if pvc.GetAnnotations()["helm.sh/resource-policy"] != "keep" || pvc.GetLabels()[helmrender.NameLabel] != "paperless" {
		t.Fatalf("post-rendered claim: %v %v", pvc.GetAnnotations(), pvc.GetLabels())
	}
}

// A chart's crds/ are apart from its manifest (Helm never deletes them); a templated CRD is in
// the manifest; install.crds is read.
func TestCRDs(t *testing.T) {
	hr := obj(t, `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: widgets, namespace: operators}
spec:
  install: {crds: CreateReplace}
  chart: {spec: {chart: widgets, sourceRef: {kind: HelmRepository, name: example}}}
`)
	r, err := helmrender.Do(context.Background(), hr, load(t, charttest.Widgets("1.0.0")), "", nil, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ids(r.CRDs) != "CustomResourceDefinition /gizmos.example.com" || find(r.Manifest, "CustomResourceDefinition", "widgets.example.com") == nil || r.InstallCRDs != "CreateReplace" {
		t.Fatalf("crds/: %s\nmanifest: %s\npolicy %s", ids(r.CRDs), ids(r.Manifest), r.InstallCRDs)
	}
	if ns := find(r.Manifest, "CustomResourceDefinition", "widgets.example.com").GetNamespace(); ns != "" {
		t.Fatalf("a CRD got namespace %q", ns)
	}
}

// .Capabilities: the --kube-version given, and API versions the repository's CRDs declare.
func TestCapabilities(t *testing.T) {
	c := charttest.Chart{Name: "caps", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caps}\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  monitors: {{ .Capabilities.APIVersions.Has \"monitoring.coreos.com/v1/ServiceMonitor\" | quote }}\n",
	}}
	hr := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: caps, namespace: x}\nspec: {chart: {spec: {chart: caps, sourceRef: {kind: HelmRepository, name: r}}}}\n")
	crd := obj(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: servicemonitors.monitoring.coreos.com}\nspec:\n  group: monitoring.coreos.com\n  names: {kind: ServiceMonitor, plural: servicemonitors}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true}]\n")
	r, err := helmrender.Do(context.Background(), hr, load(t, c), "", nil, helmrender.Options{KubeVersion: "v1.33.2", APIVersions: helmrender.APIVersions([]*unstructured.Unstructured{crd})})
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(r.Manifest[0].Object, "data")
	if data["kube"] != "v1.33.2" || data["monitors"] != "true" {
		t.Fatalf("capabilities seen: %v", data)
	}
}

// A hostile chart is bounded: output past the byte cap, and templates past the deadline, fail
// naming the release.
func TestBounds(t *testing.T) {
	big := charttest.Chart{Name: "big", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  x: {{ repeat 200000 \"x\" | quote }}\n",
	}}
	slow := charttest.Chart{Name: "slow", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "{{- range $i := until 5000 }}{{- range $j := until 5000 }}{{- end }}{{- end }}\n",
	}}
	hr := func(name string) *unstructured.Unstructured {
		return obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: "+name+", namespace: x}\nspec: {chart: {spec: {chart: "+name+", sourceRef: {kind: HelmRepository, name: r}}}}\n")
	}
	_, err := helmrender.Do(context.Background(), hr("big"), load(t, big), "", nil, helmrender.Options{MaxBytes: 100000})
	if err == nil || !strings.Contains(err.Error(), "rendering release x/big") || !strings.Contains(err.Error(), "more than the 100000") {
		t.Fatalf("byte cap: %v", err)
	}
	if testing.Short() {
		return
	}
	_, err = helmrender.Do(context.Background(), hr("slow"), load(t, slow), "", nil, helmrender.Options{Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "not rendered within 50ms") {
		t.Fatalf("deadline: %v", err)
	}
}

// A chart whose templates would take gigabytes is stopped by the memory bound of the process
// it renders in: the release fails with a *BoundError naming the bound, the release and the
// chart, and this process never holds what the template asked for.
func TestMemoryBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory is bounded on Linux")
	}
	huge := charttest.Chart{Name: "huge", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: huge}\ndata:\n  x: {{ repeat 400000000 \"x\" | quote }}\n",
	}}
	hr := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: huge, namespace: x}\nspec: {chart: {spec: {chart: huge, sourceRef: {kind: HelmRepository, name: r}}}}\n")
	_, err := helmrender.Do(context.Background(), hr, load(t, huge), "", nil, helmrender.Options{})
	var b *helmrender.BoundError
	if !errors.As(err, &b) || b.Bound != helmrender.BoundMemory || !strings.Contains(err.Error(), "rendering release x/huge (chart huge 1.0.0): stopped by its memory bound") {
		t.Fatalf("got %v", err)
	}
	// The bound is the caller's to set: 50 MB quoted fits in neither 64 MiB nor 16 MiB of
	// output, and memory stops it first.
	big := charttest.Chart{Name: "big", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  x: {{ repeat 50000000 \"x\" | quote }}\n",
	}}
	hr = obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: big, namespace: x}\nspec: {chart: {spec: {chart: big, sourceRef: {kind: HelmRepository, name: r}}}}\n")
	_, err = helmrender.Do(context.Background(), hr, load(t, big), "", nil, helmrender.Options{MaxMemory: 64 << 20})
	if !errors.As(err, &b) || b.Bound != helmrender.BoundMemory || !strings.Contains(err.Error(), "more than the 64 MiB") {
		t.Fatalf("64 MiB: %v", err)
	}
}

// The render process renders what this process renders: app-template's manifest, hooks and
// CRDs are the same rendered apart or in process.
func TestIsolatedSameAsInProcess(t *testing.T) {
	hr := release(t, `  values:
    controllers:
      main:
        containers:
          app: {image: {repository: ghcr.io/paperless-ngx/paperless-ngx, tag: 2.15.0}}
    persistence:
      data: {size: 15Gi, retain: true}
`)
	c := load(t, charttest.AppTemplate("4.4.0"))
	apart, err := helmrender.Do(context.Background(), hr, c, "sha256:x", nil, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	here, err := helmrender.Do(context.Background(), hr, c, "sha256:x", nil, helmrender.Options{InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(here, apart); d != "" || len(here.Manifest) == 0 {
		t.Fatalf("isolated render differs (-in process +isolated):\n%s", d)
	}
}
