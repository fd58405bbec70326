package fluxchain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// liveNS is the namespace of the --live test's Kustomizations, in the repository and the
// cluster alike.
const liveNS = "fc-live"

// liveRepo writes a repository whose entry path declares flux-system, infra (with the Gadget
// CRD), apps (a Gadget and two Widgets, whose CRD is in no tier) and monitoring.
func liveRepo(t *testing.T) string {
	t.Helper()
	ks := func(name, path, extra string) string {
		return fmt.Sprintf("---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  interval: 10m\n  path: %s\n  prune: true\n  wait: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n%s", name, liveNS, path, extra)
	}
	cr := func(kind, name string) string {
		return fmt.Sprintf("---\napiVersion: example.com/v1\nkind: %s\nmetadata:\n  name: %s\n  namespace: fc-live-apps\n", kind, name)
	}
	build := func(res ...string) string {
		return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - " + strings.Join(res, "\n  - ") + "\n"
	}
	dir := t.TempDir()
	err := incident.WriteFiles(dir, map[string]string{
		"clusters/prod/kustomization.yaml": build("sync.yaml", "tiers.yaml"),
		"clusters/prod/sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: " + liveNS +
			"\nspec:\n  interval: 1m\n  url: https://example.com/fleet.git\n  ref:\n    branch: main\n" + ks("flux-system", "./clusters/prod", ""),
		"clusters/prod/tiers.yaml": ks("infra", "./infra", "") + ks("apps", "./apps", "  dependsOn:\n    - name: infra\n") +
			ks("monitoring", "./monitoring", "  dependsOn:\n    - name: infra\n"),
		"infra/kustomization.yaml":      build("crd.yaml"),
		"infra/crd.yaml":                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    plural: gadgets\n    singular: gadget\n    kind: Gadget\n    listKind: GadgetList\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n",
		"apps/kustomization.yaml":       build("gadget.yaml", "widgets.yaml"),
		"apps/gadget.yaml":              cr("Gadget", "g1"),
		"apps/widgets.yaml":             cr("Widget", "w1") + cr("Widget", "w2"),
		"monitoring/kustomization.yaml": build("cm.yaml"),
		"monitoring/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: monitoring\n  namespace: fc-live-apps\ndata:\n  k: v\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	return gittest.In(t, dir, nil).Dir
}

// exampleCRD is a namespaced example.com CRD that accepts any object.
func exampleCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	yes := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes}}}},
		},
	}
}

// seedLive creates the cluster side: flux-system and infra as in the repository, apps with
// another path and no dependsOn, legacy (from the repository's source, in no path of it),
// tenant (from another source) and no monitoring; the Gadget CRD, the Widget CRD (in no tier)
// and an unused Sprocket CRD.
func seedLive(t *testing.T) {
	t.Helper()
	f := newFixture(t, liveNS)
	ks := func(name, path, source string, deps ...string) {
		spec := map[string]any{"interval": "10m", "prune": true, "path": path,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": source}}
		var ds []any
		for _, d := range deps {
			ds = append(ds, map[string]any{"name": d})
		}
		if ds != nil {
			spec["dependsOn"] = ds
		}
		f.create(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
			"metadata": map[string]any{"name": name, "namespace": liveNS}, "spec": spec}}, nil)
	}
	ks("flux-system", "./clusters/prod", "flux-system")
	ks("infra", "./infra", "flux-system")
	ks("apps", "./apps-old", "flux-system")
	ks("legacy", "./legacy", "flux-system")
	ks("tenant", "./", "tenant")
	crds := []*apiextensionsv1.CustomResourceDefinition{exampleCRD("gadgets", "Gadget"), exampleCRD("widgets", "Widget"), exampleCRD("sprockets", "Sprocket")}
	if err := env.ApplyCRDs(context.Background(), crds...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client, err := apiextensionsclient.NewForConfig(env.RESTConfig)
		if err != nil {
			return
		}
		for _, crd := range crds {
			_ = client.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
		}
	})
}

func TestRepoLive(t *testing.T) {
	needEnv(t)
	t.Setenv("GITHUB_ACTIONS", "")
	dir := liveRepo(t)
	if _, _, code := runRepo(t, "--repo", dir); code != 0 {
		t.Fatalf("the fixture repository alone: exit %d, want 0", code)
	}
	seedLive(t)

	t.Run("text", func(t *testing.T) {
		out, stderr, code := run(t, "--repo", dir, "--live", "-n", liveNS)
		if code != 0 {
			t.Errorf("exit %d, want 0 (every live finding is a warning)\n%s\n%s", code, stderr, out)
		}
		if !strings.Contains(stderr, "# context "+env.Context+" (") {
			t.Errorf("no banner naming the context on stderr:\n%s", stderr)
		}
		for _, want := range []string{
			"WARNING live-not-in-cluster kustomizations.kustomize.toolkit.fluxcd.io/monitoring -n fc-live is declared in the repository but absent from the cluster",
			"at clusters/prod/tiers.yaml:",
			"WARNING live-spec-drift kustomizations.kustomize.toolkit.fluxcd.io/apps -n fc-live has path ./apps in the repository but ./apps-old in the cluster",
			"has dependsOn fc-live/infra in the repository but (none) in the cluster",
			"WARNING live-not-in-repo kustomizations.kustomize.toolkit.fluxcd.io/legacy -n fc-live is in the cluster, built from the repository's source GitRepository/fc-live/flux-system",
			"WARNING live-crd-outside-git Widget fc-live-apps/w1 (example.com/v1) and 1 more object(s) use customresourcedefinitions.apiextensions.k8s.io/widgets.example.com",
			"at apps/widgets.yaml:3",
			"LIVE: compared with context " + env.Context,
			"3 Kustomization(s) in both, 1 only in the repository (live-not-in-cluster), 1 only in the cluster (live-not-in-repo), 2 spec difference(s) (live-spec-drift), 1 CRD(s) only in the cluster (live-crd-outside-git)",
			"kustomizations.kustomize.toolkit.fluxcd.io/tenant -n fc-live (source GitRepository/fc-live/tenant)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
		for _, absent := range []string{"gadgets.example.com", "sprockets.example.com"} {
			if strings.Contains(out, absent) {
				t.Errorf("%s is reported, but the repository applies it or nothing uses it:\n%s", absent, out)
			}
		}
	})

	t.Run("json", func(t *testing.T) {
		out, _, code := run(t, "--repo", dir, "--live", "-n", liveNS, "-o", "json", "--fail-on", "warning")
		if code != 1 {
			t.Errorf("exit %d, want 1 with --fail-on warning", code)
		}
		var res fluxchain.RepoResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		l := res.Live
		if l == nil || l.Namespace != liveNS || len(res.Incomplete) > 0 || l.InBoth != 3 {
			t.Fatalf("live section %+v, incomplete %v", l, res.Incomplete)
		}
		checks := []struct {
			name      string
			got, want []string
		}{
			{"notInCluster", l.NotInCluster, []string{"kustomizations.kustomize.toolkit.fluxcd.io/monitoring -n fc-live"}},
			{"notInRepo", l.NotInRepo, []string{"kustomizations.kustomize.toolkit.fluxcd.io/legacy -n fc-live"}},
			{"specDrift", driftFields(l.SpecDrift), []string{"apps path ./apps ./apps-old", "apps dependsOn fc-live/infra (none)"}},
			{"crdsOnlyLive", crdNames(l.CRDsOnlyLive), []string{"widgets.example.com Widget [Widget fc-live-apps/w1 Widget fc-live-apps/w2]"}},
			// crd-order's note: the repository declares widgets.example.com nowhere the lint reads
			// (the live comparison then says where the cluster's CRD came from)
			{"rules", ruleIDs(res.Lint), []string{"crd-order", "live-crd-outside-git", "live-not-in-cluster", "live-not-in-repo", "live-spec-drift", "live-spec-drift"}},
		}
		for _, c := range checks {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
			}
		}
	})

	t.Run("all namespaces", func(t *testing.T) {
		out, _, code := run(t, "--repo", dir, "--live", "-o", "json")
		var res fluxchain.RepoResult
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("exit %d, %v\n%s", code, err, out)
		}
		if res.Live.Namespace != "" || !slices.Equal(res.Live.NotInRepo, []string{"kustomizations.kustomize.toolkit.fluxcd.io/legacy -n fc-live"}) {
			t.Errorf("live section %+v", res.Live)
		}
	})

	t.Run("forbidden CRD list is incomplete", func(t *testing.T) {
		allowFluxOnly(t, "live-viewer")
		out, stderr, code := run(t, "--repo", dir, "--live", "-n", liveNS, "--as=live-viewer")
		if code != 2 {
			t.Errorf("exit %d, want 2\n%s\n%s", code, stderr, out)
		}
		for _, want := range []string{"(INCOMPLETE)", "listing customresourcedefinitions.apiextensions.k8s.io: forbidden", "0 CRD(s) only in the cluster"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
}

// allowFluxOnly lets user get and list Flux's kinds and nothing else.
func allowFluxOnly(t *testing.T, user string) {
	t.Helper()
	_, kube := clients(t)
	ctx := context.Background()
	_, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io"},
			Resources: []string{"*"}, Verbs: []string{"get", "list"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, kube, user, authorizationv1.ResourceAttributes{Namespace: "", Verb: "list", Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"})
}

func TestRepoLiveUsage(t *testing.T) {
	needEnv(t)
	t.Setenv("GITHUB_ACTIONS", "")
	clean := copyRepo(t, "clean")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"--live without --repo", []string{"--live"}, "--live needs --repo"},
		{"--live with -A", []string{"--repo", clean, "--live", "-A"}, "takes no NAME and no -A"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, tt.args...)
			if code != 3 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 3 and %q\n%s", code, stderr, tt.want, out)
			}
		})
	}
}

// TestRepoLiveUnreachable points --live at a closed port: UNKNOWN (2), naming the target,
// never a clean comparison.
func TestRepoLiveUnreachable(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	clean := copyRepo(t, "clean")
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: dead, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: dead, context: {cluster: dead, user: u}}]
current-context: dead
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runRepo(t, "--kubeconfig", kubeconfig, "--repo", clean, "--live")
	if code != 2 || !strings.Contains(stderr, "context dead (https://127.0.0.1:1)") || !strings.Contains(stderr, "unreachable") {
		t.Errorf("exit %d, stderr %q; want 2 naming context dead as unreachable\n%s", code, stderr, out)
	}
	if out != "" {
		t.Errorf("printed a result without the cluster:\n%s", out)
	}
}

func driftFields(ds []lint.SpecDrift) []string {
	var out []string
	for _, d := range ds {
		name := strings.TrimPrefix(strings.Fields(d.Kustomization)[0], "kustomizations.kustomize.toolkit.fluxcd.io/")
		out = append(out, strings.Join([]string{name, d.Field, d.Repo, d.Cluster}, " "))
	}
	return out
}

func crdNames(cs []lint.LiveCRD) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s %s %v", c.Name, c.Kind, c.UsedBy))
	}
	return out
}

func ruleIDs(fs []lint.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	slices.Sort(out)
	return out
}
