package helmrender

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/chartrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// helmInstall is Helm's install action in client-only dry-run mode, set up as helm-controller
// sets it up for hr: what renders ran through before internal/chartrender, kept here as the
// reference TestInstallDifferential holds chartrender to.
func helmInstall(hr *helmv2.HelmRelease, opts Options) (*action.Install, error) {
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
	s := spec(hr, opts)
	inst.PostRenderer = postRenderChain{s}
	switch hr.GetPostRenderStrategy() {
	case helmv2.PostRenderStrategyNoHooks:
		inst.PostRenderStrategy = action.PostRenderStrategyNoHooks
	case helmv2.PostRenderStrategySeparate:
		inst.PostRenderStrategy = action.PostRenderStrategySeparate
	}
	return inst, nil
}

// postRenderChain is chartrender's post-render chain as a Helm post-renderer: the differential
// test holds where and how Helm applies it, not the chain itself (TestPostRenderer does).
type postRenderChain struct{ s chartrender.Spec }

func (p postRenderChain) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	return chartrender.PostRender(p.s, in)
}

// viaHelm renders with Helm's install action.
func viaHelm(hr *helmv2.HelmRelease, c *chart.Chart, vals map[string]any, opts Options) (*chartrender.Output, error) {
	inst, err := helmInstall(hr, opts)
	if err != nil {
		return nil, err
	}
	r, err := inst.RunWithContext(context.Background(), c, vals)
	if err != nil {
		return nil, err
	}
	rel := r.(*releasev1.Release)
	out := &chartrender.Output{Manifest: rel.Manifest}
	for _, h := range rel.Hooks {
		out.Hooks = append(out.Hooks, chartrender.Hook{Path: h.Path, Manifest: h.Manifest})
	}
	return out, nil
}

// viaWorkerRequest renders with chartrender as the render worker does: the request through
// JSON, the chart rebuilt from the wire.
func viaWorkerRequest(t *testing.T, hr *helmv2.HelmRelease, c *chart.Chart, vals map[string]any, opts Options) (*chartrender.Output, error) {
	data, err := json.Marshal(chartrender.Request{Spec: spec(hr, opts), Chart: chartrender.ToWire(c), Values: vals})
	if err != nil {
		t.Fatal(err)
	}
	var req chartrender.Request
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	wc, err := chartrender.FromWire(req.Chart)
	if err != nil {
		t.Fatal(err)
	}
	return chartrender.Render(context.Background(), wc, req.Values, req.Spec)
}

// diffChart is a chart written here to reach what Helm's install does besides templates: a
// library subchart, an application subchart behind a condition with import-values, hooks
// (several kinds, weights, in a file of their own and beside a manifest), NOTES.txt in the
// chart and the subchart, partials, empty and multi-document files, a schema, .Capabilities
// and .Release.
func diffChart(kubeVersion string) charttest.Chart {
	return charttest.Chart{Name: "diff", Version: "1.2.3", Files: map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: diff\nversion: 1.2.3\nkubeVersion: \"" + kubeVersion + "\"\ndependencies:\n" +
			"- name: lib\n  version: 0.1.0\n" +
			"- name: child\n  version: 0.2.0\n  condition: child.enabled\n  import-values:\n  - child: exported\n    parent: imported\n",
		"values.yaml":            "replicas: 1\nimage: {repository: nginx, tag: \"1.27\"}\nchild: {enabled: true}\nimported: {}\n",
		"values.schema.json":     `{"$schema": "https://json-schema.org/draft-07/schema#", "type": "object", "required": ["replicas"], "properties": {"replicas": {"type": "integer", "minimum": 0}}}`,
		"templates/_helpers.tpl": "{{- define \"diff.labels\" -}}\napp: {{ include \"lib.name\" . }}\n{{- end -}}\n",
		"templates/NOTES.txt":    "Installed {{ .Release.Name }}.\n",
		"templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{- include \"diff.labels\" . | nindent 4 }}\nspec:\n  replicas: {{ .Values.replicas }}\n" +
			"  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n    spec:\n      containers:\n      - name: app\n        image: {{ .Values.image.repository }}:{{ .Values.image.tag }}\n",
		"templates/info.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: info}\ndata:\n" +
			"  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  minor: {{ .Capabilities.KubeVersion.Minor | quote }}\n" +
			"  monitors: {{ .Capabilities.APIVersions.Has \"monitoring.coreos.com/v1/ServiceMonitor\" | quote }}\n" +
			"  hpa: {{ .Capabilities.APIVersions.Has \"autoscaling/v2\" | quote }}\n" +
			"  install: {{ .Release.IsInstall | quote }}\n  upgrade: {{ .Release.IsUpgrade | quote }}\n  revision: {{ .Release.Revision | quote }}\n" +
			"  namespace: {{ .Release.Namespace }}\n  service: {{ .Release.Service }}\n  chart: {{ .Chart.Name }}-{{ .Chart.Version }}\n" +
			"  imported: {{ .Values.imported | toJson | quote }}\n  child: {{ .Values.child.enabled | quote }}\n" +
			"---\n# only a comment\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {a: b}\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-install\n  annotations: {helm.sh/hook: post-install, helm.sh/hook-weight: \"5\"}\ndata: {a: b}\n",
		"templates/empty.yaml": "{{- if .Values.never }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: never}\n{{- end }}\n",
		"templates/hooks.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\n    helm.sh/hook-weight: \"-5\"\n    helm.sh/hook-delete-policy: before-hook-creation\n" +
			"spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"}]\n" +
			"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: smoke\n  annotations: {helm.sh/hook: test}\nspec:\n  containers: [{name: t, image: busybox}]\n",
		"templates/sa.yaml":                "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: {{ .Release.Name }}}\n",
		"templates/rbac.yaml":              "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: {{ .Release.Name }}-read}\nrules: []\n",
		"charts/lib/Chart.yaml":            "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
		"charts/lib/templates/_lib.tpl":    "{{- define \"lib.name\" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}\n",
		"charts/child/Chart.yaml":          "apiVersion: v2\nname: child\nversion: 0.2.0\n",
		"charts/child/values.yaml":         "exported: {fromChild: yes}\nport: 8080\n",
		"charts/child/templates/NOTES.txt": "child notes\n",
		"charts/child/templates/svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata: {name: child}\nspec:\n  ports: [{port: {{ .Values.port }}}]\n",
	}}
}

// realChart is an archive vendored for the real-commit tests (plugins/saferetire/testdata):
// app-template 3.x (bjw-s' common library chart inside, a schema referring to remote
// schemas), coredns and headlamp as published.
func realChart(name string) string {
	return filepath.Join("..", "..", "plugins", "saferetire", "testdata", "realcommits", "charts", name)
}

// diffRelease is a HelmRelease of chart name; spec is added under spec.
func diffRelease(t *testing.T, name, spec string) *helmv2.HelmRelease {
	t.Helper()
	u := &unstructured.Unstructured{}
	doc := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: " + name + ", namespace: apps}\nspec:\n  chart: {spec: {chart: " + name + ", sourceRef: {kind: HelmRepository, name: r}}}\n" + spec
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	hr, err := Decode(u)
	if err != nil {
		t.Fatal(err)
	}
	return hr
}

// The post-renderers of the differential cases: a patch on a manifest object and on a hook,
// an image rename, under each of Helm's post-render strategies.
const diffPostRenderers = `  postRenderers:
  - kustomize:
      images: [{name: nginx, newName: mirror.example/nginx, newTag: "1.28"}]
      patches:
      - target: {kind: ConfigMap}
        patch: |
          - op: add
            path: /metadata/annotations/patched
            value: "yes"
  - kustomize:
      patches:
      - target: {kind: Job, name: migrate}
        patch: |
          - op: add
            path: /metadata/labels
            value: {second: pass}
`

// diffCase is one render of TestInstallDifferential: a chart archive, the HelmRelease's spec
// beyond its chart, the values, the options, and whether Helm's install fails on it.
type diffCase struct {
	name, chart, spec string
	values            map[string]any
	opts              Options
	fails             bool
}

func deepCopyValues(t *testing.T, vals map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(vals)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInstallDifferential holds chartrender (what the render worker runs) to Helm's install
// action in client-only dry-run mode, set up as helm-controller sets it up: the same manifest
// and the same hooks (path and manifest, in order), byte for byte, or the same error, on the
// charts the tests use (the fixtures, the vendored real charts with their library chart and
// remote schema references skipped as a render offline skips them) under release names and
// namespaces, post-renderers and strategies, schema validation on and off, Kubernetes
// versions and API versions.
func TestInstallDifferential(t *testing.T) {
	appValues := map[string]any{
		"controllers": map[string]any{"main": map[string]any{"containers": map[string]any{"app": map[string]any{"image": map[string]any{"repository": "nginx", "tag": "1.27"}}}}},
		"service":     map[string]any{"app": map[string]any{"controller": "main", "ports": map[string]any{"http": map[string]any{"port": 80}}}},
		"persistence": map[string]any{"data": map[string]any{"size": "1Gi", "accessMode": "ReadWriteOnce"}, "media": map[string]any{"existingClaim": "media"}},
	}
	dir := t.TempDir()
	pkg := func(c charttest.Chart) string { return charttest.Package(t, dir, c) }
	diff := pkg(diffChart(">=1.25.0-0"))
	hookless := pkg(charttest.Chart{Name: "hookless", Version: "0.0.1", Files: map[string]string{
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: only}\n"}})
	cases := []diffCase{
		{name: "diff chart", chart: diff},
		{name: "diff chart, values", chart: diff, values: map[string]any{"replicas": 3, "child": map[string]any{"enabled": false}, "image": map[string]any{"tag": "1.28"}}},
		{name: "diff chart, target namespace and release name", chart: diff, spec: "  targetNamespace: prod\n  releaseName: diff-release\n"},
		{name: "diff chart, invalid release name", chart: diff, spec: "  releaseName: not_a_name\n", fails: true},
		{name: "diff chart, storage namespace, long name", chart: diff, spec: "  targetNamespace: a-rather-long-target-namespace-name\n  storageNamespace: s\n"},
		{name: "diff chart, post-renderers combined", chart: diff, spec: diffPostRenderers},
		{name: "diff chart, post-renderers combined (named)", chart: diff, spec: diffPostRenderers + "  postRenderStrategy: combined\n"},
		{name: "diff chart, post-renderers separate", chart: diff, spec: diffPostRenderers + "  postRenderStrategy: separate\n"},
		{name: "diff chart, post-renderers nohooks", chart: diff, spec: diffPostRenderers + "  postRenderStrategy: nohooks\n"},
		{name: "diff chart, no post-renderers, separate", chart: diff, spec: "  postRenderStrategy: separate\n"},
		{name: "diff chart, no post-renderers, nohooks", chart: diff, spec: "  postRenderStrategy: nohooks\n"},
		{name: "hookless chart, separate", chart: hookless, spec: diffPostRenderers + "  postRenderStrategy: separate\n"},
		{name: "diff chart, values against the schema", chart: diff, values: map[string]any{"replicas": "three"}, fails: true},
		{name: "diff chart, values against the schema, validation disabled", chart: diff, values: map[string]any{"replicas": -1}, spec: "  install: {disableSchemaValidation: true}\n"},
		{name: "diff chart, capabilities", chart: diff, opts: Options{KubeVersion: "v1.31.4", APIVersions: []string{"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"}}},
		{name: "diff chart, incompatible Kubernetes", chart: diff, opts: Options{KubeVersion: "v1.24.0"}, fails: true},
		{name: "diff chart, bad Kubernetes version", chart: diff, opts: Options{KubeVersion: "one"}, fails: true},
		{name: "app-template fixture", chart: pkg(charttest.AppTemplate("4.4.0")), values: appValues},
		{name: "stateful-db fixture", chart: pkg(charttest.StatefulDB("2.0.0"))},
		{name: "widgets fixture (crds/)", chart: pkg(charttest.Widgets("1.0.0")), spec: "  install: {crds: CreateReplace}\n"},
		{name: "web-app fixture", chart: pkg(charttest.WebApp("1.0.0"))},
		{name: "template error", chart: pkg(charttest.Chart{Name: "broken", Version: "0.0.1", Files: map[string]string{
			"templates/cm.yaml": "{{ fail \"no\" }}\n"}}), fails: true},
		{name: "unparseable manifest", chart: pkg(charttest.Chart{Name: "bad", Version: "0.0.1", Files: map[string]string{
			"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"}}), fails: true},
		{name: "disabled dependency missing", chart: pkg(charttest.Chart{Name: "missing", Version: "0.0.1", Files: map[string]string{
			"Chart.yaml":        "apiVersion: v2\nname: missing\nversion: 0.0.1\ndependencies:\n- name: gone\n  version: 1.0.0\n",
			"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"}})},
	}
	for _, v := range []string{"3.6.1", "3.7.1", "3.7.2", "3.7.3"} {
		cases = append(cases, diffCase{name: "app-template " + v, chart: realChart("app-template-" + v + ".tgz"), values: appValues, spec: diffPostRenderers})
	}
	for _, c := range []string{"coredns-1.39.2.tgz", "coredns-1.40.0.tgz", "headlamp-0.30.1.tgz"} {
		for _, opts := range []Options{{}, {KubeVersion: "v1.22.0", APIVersions: []string{"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"}}} {
			cases = append(cases, diffCase{name: c + " " + opts.KubeVersion, chart: realChart(c), opts: opts, spec: "  postRenderStrategy: separate\n" + diffPostRenderers})
		}
	}
	rendered := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hr := diffRelease(t, "diff", tc.spec)
			load := func() *chart.Chart {
				c, err := loader.Load(tc.chart)
				if err != nil {
					t.Fatal(err)
				}
				if hr.GetInstall().DisableSchemaValidation {
					return c
				}
				oc, skipped, err := offlineSchemas(c)
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(tc.name, "app-template 3.") && len(skipped) == 0 {
					t.Fatal("app-template 3.x's remote schema references were not skipped")
				}
				return oc
			}
			want, wantErr := viaHelm(hr, load(), deepCopyValues(t, tc.values), tc.opts)
			got, gotErr := viaWorkerRequest(t, hr, load(), deepCopyValues(t, tc.values), tc.opts)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error:\n got  %v\n want %v (Helm's install)", gotErr, wantErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("chartrender differs from Helm's install (-helm +chartrender):\n%s", d)
			}
			if (wantErr != nil) != tc.fails {
				t.Fatalf("Helm's install: error %v, want failing %v", wantErr, tc.fails)
			}
			if wantErr == nil {
				rendered++
			}
		})
	}
	t.Logf("%d of %d cases rendered alike, the others failed alike", rendered, len(cases))
}
