package kbuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// fixtureRoot commits the fixture and returns a snapshot of it at HEAD.
func fixtureRoot(t *testing.T) (*gittest.Repo, *gitrev.Snapshot) {
	t.Helper()
	r := gittest.New(t, fixture)
	repo, err := gitrev.OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := repo.Snapshot(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return r, s
}

func ids(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, ObjectID(o))
	}
	sort.Strings(out)
	return out
}

// find returns the built object with the given inventory id.
func find(t *testing.T, res *Result, id string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range res.Objects {
		if ObjectID(o) == id {
			return o
		}
	}
	t.Fatalf("%s not built; got %v", id, ids(res.Objects))
	return nil
}

func TestBuild(t *testing.T) {
	r, snap := fixtureRoot(t)
	cms := map[string]map[string]string{"flux-system/cluster-vars": {"CLUSTER": "prod", "GREETING": "hello\n"}}
	cases := []struct {
		name       string
		ks         string // a Flux Kustomization; empty means BuildPath(path)
		path       string
		opts       Options
		want       []string
		wantErr    error  // matched with errors.Is
		errText    string // contained in the error
		remote     []string
		unresolved []string
		check      func(t *testing.T, res *Result)
	}{
		{name: "plain directory gets a generated kustomization", path: "apps/plain",
			want: []string{"apps_settings__ConfigMap", "apps_web_apps_Deployment"},
			check: func(t *testing.T, res *Result) {
				if got := strings.Join(res.Files, ","); got != "apps/plain/deploy.yaml,apps/plain/sub/cm.yaml" {
					t.Errorf("Files = %s", got)
				}
				for _, o := range res.Objects {
					if _, ok := o.GetAnnotations()[originAnnotation]; ok {
						t.Errorf("%s keeps the origin annotation only this package asked for", ObjectID(o))
					}
				}
			}},
		{name: "component adds the prune opt-out", path: "apps/protected",
			want: []string{"apps_data__PersistentVolumeClaim"},
			check: func(t *testing.T, res *Result) {
				if got := res.Objects[0].GetAnnotations()["kustomize.toolkit.fluxcd.io/prune"]; got != "disabled" {
					t.Errorf("prune annotation = %q, want disabled", got)
				}
			}},
		{name: "spec patches, targetNamespace, namePrefix and commonMetadata", path: "apps/plain",
			ks: ksYAML("./apps/plain", `  targetNamespace: tenant-a
  namePrefix: a-
  commonMetadata:
    labels:
      team: a
  images:
  - name: nginx
    newTag: "1.28"
  patches:
  - patch: |
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: any
        labels:
          patched: "yes"
    target:
      kind: Deployment
`),
			want: []string{"tenant-a_a-settings__ConfigMap", "tenant-a_a-web_apps_Deployment"},
			check: func(t *testing.T, res *Result) {
				d := find(t, res, "tenant-a_a-web_apps_Deployment")
				if d.GetLabels()["patched"] != "yes" || d.GetLabels()["team"] != "a" {
					t.Errorf("deployment labels = %v, want patched and team", d.GetLabels())
				}
				img, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
				if got := img[0].(map[string]any)["image"]; got != "nginx:1.28" {
					t.Errorf("image = %v, want nginx:1.28", got)
				}
				if c := find(t, res, "tenant-a_a-settings__ConfigMap"); c.GetLabels()["team"] != "a" {
					t.Errorf("commonMetadata missing on the ConfigMap: %v", c.GetLabels())
				}
			}},
		{name: "substitute and substituteFrom a known ConfigMap", path: "apps/subst", opts: Options{ConfigMaps: cms},
			ks: ksYAML("apps/subst", `  postBuild:
    substitute:
      GREETING: hi
    substituteFrom:
    - kind: ConfigMap
      name: cluster-vars
`),
			want: []string{"apps_data-prod__PersistentVolumeClaim", "apps_greeting__ConfigMap", "apps_literal-${NOT_A_VAR}__ConfigMap"},
			check: func(t *testing.T, res *Result) {
				if got, _, _ := unstructured.NestedString(find(t, res, "apps_greeting__ConfigMap").Object, "data", "text"); got != "hi" {
					t.Errorf("inline substitute must override substituteFrom: text = %q", got)
				}
			}},
		{name: "strict on an undefined variable when every source is known", path: "apps/subst", opts: Options{ConfigMaps: cms},
			ks: ksYAML("apps/subst", `  postBuild:
    substitute:
      CLUSTER: prod
`),
			errText: "GREETING"},
		{name: "a Secret source leaves identity variables unresolved", path: "apps/subst",
			ks: ksYAML("apps/subst", `  postBuild:
    substitute:
      GREETING: hi
    substituteFrom:
    - kind: Secret
      name: cluster-secrets
`),
			// ${APP_NS:=apps} takes its default: no source read defines it (issue 30).
			want:       []string{"apps_data-${CLUSTER}__PersistentVolumeClaim", "apps_greeting__ConfigMap", "apps_literal-${NOT_A_VAR}__ConfigMap"},
			unresolved: []string{"CLUSTER"}},
		{name: "a Secret's known keys stay unresolved, defaults apply", path: "apps/subst",
			opts: Options{SecretKeys: map[string][]string{"flux-system/cluster-secrets": {"CLUSTER", "GREETING"}}},
			ks: ksYAML("apps/subst", `  postBuild:
    substituteFrom:
    - kind: Secret
      name: cluster-secrets
`),
			want:       []string{"apps_data-${CLUSTER}__PersistentVolumeClaim", "apps_greeting__ConfigMap", "apps_literal-${NOT_A_VAR}__ConfigMap"},
			unresolved: []string{"CLUSTER"}},
		{name: "strict with every source known, a Secret among them", path: "apps/subst",
			opts: Options{SecretKeys: map[string][]string{"flux-system/cluster-secrets": {"CLUSTER"}}},
			ks: ksYAML("apps/subst", `  postBuild:
    substituteFrom:
    - kind: Secret
      name: cluster-secrets
`),
			errText: "GREETING"},
		{name: "a Secret key that is no variable name fails like the controller", path: "apps/subst",
			opts: Options{SecretKeys: map[string][]string{"flux-system/tls": {"tls.crt"}}},
			ks: ksYAML("apps/subst", `  postBuild:
    substituteFrom:
    - kind: Secret
      name: tls
`),
			errText: "'tls.crt' var name is invalid"},
		{name: "a ConfigMap not given leaves variables unresolved", path: "apps/subst",
			ks: ksYAML("apps/subst", `  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: cluster-vars
      optional: true
`),
			// ${APP_NS:=apps} takes its default: no source read defines it (issue 30).
			want:       []string{"apps_data-${CLUSTER}__PersistentVolumeClaim", "apps_greeting__ConfigMap", "apps_literal-${NOT_A_VAR}__ConfigMap"},
			unresolved: []string{"CLUSTER"}},
		{name: "remote resource fails offline with its URL", path: "apps/remote",
			wantErr: ErrNeedsNetwork,
			remote: []string{"github.com/example/platform//base?ref=v1",
				"https://raw.githubusercontent.com/example/operator/v1.0.0/deploy/crds.yaml"}},
		{name: "SOPS Secret builds and stays encrypted", path: "apps/sops",
			want: []string{"apps_db__Secret"},
			check: func(t *testing.T, res *Result) {
				s := res.Objects[0]
				pw, _, _ := unstructured.NestedString(s.Object, "stringData", "password")
				if !strings.HasPrefix(pw, "ENC[AES256_GCM,data:8Jq1Yw==") {
					t.Errorf("password = %q, want the ENC[] value untouched", pw)
				}
				if _, ok := s.Object["sops"]; !ok {
					t.Error("the sops metadata was dropped")
				}
			}},
		{name: "missing path", path: "apps/gone", wantErr: ErrPathNotFound},
		// The error names the missing file from the source, not from the revision's temporary
		// root (tamasveiland/gitops-flux2-kustomize-helm-mt 5c0b9ea deleted a file its
		// kustomization.yaml still lists; the gate said /dev/shm/gitops-snapshot-…/infrastructure/…).
		{name: "path that does not build", path: "apps/broken", errText: "kustomize build failed for apps/broken",
			check: func(t *testing.T, res *Result) {
				if msg := res.Err.Error(); !strings.Contains(msg, "apps/broken/missing.yaml") || strings.Contains(msg, "/apps/broken/missing.yaml") {
					t.Errorf("Err = %q, want apps/broken/missing.yaml named from the source, not from the revision's root", msg)
				}
			}},
		{name: "rendered Kustomizations with a patch file", path: "clusters/prod",
			want: []string{"flux-system_db_helm.toolkit.fluxcd.io_HelmRelease", "flux-system_infra_kustomize.toolkit.fluxcd.io_Kustomization"},
			check: func(t *testing.T, res *Result) {
				kss, err := res.Kustomizations()
				if err != nil {
					t.Fatal(err)
				}
				want := []Kustomization{{Namespace: "flux-system", Name: "infra", Path: "clusters/prod/infra", Prune: true,
					Timeout: 5 * time.Minute, DependsOn: []string{"flux-system/crds"}, SourceKind: "GitRepository",
					SourceNamespace: "flux-system", SourceName: "flux-system", File: "infra/base/ks.yaml"}}
				for i := range kss {
					kss[i].Object = nil
				}
				if !reflect.DeepEqual(kss, want) {
					t.Errorf("Kustomizations() =\n%+v\nwant\n%+v", kss, want)
				}
			}},
	}
	// Every case builds alike from the revision written out and from git's objects (the gate's
	// way, which writes nothing under the revision's root).
	tree := fixtureTree(t, r)
	sides := []struct {
		name string
		root string
		scan *Root
	}{{"on disk", snap.Dir, nil}, {"from git objects", tree.Root(), ScanFiles(t.Context(), tree)}}
	for _, side := range sides {
		for _, tc := range cases {
			t.Run(side.name+"/"+tc.name, func(t *testing.T) {
				opts := tc.opts
				if side.scan != nil {
					opts.Root = side.scan
				}
				var res *Result
				if tc.ks == "" {
					res = BuildPath(context.Background(), side.root, tc.path, opts)
				} else {
					res = Build(context.Background(), side.root, fluxKS(t, tc.ks), opts)
				}
				switch {
				case tc.wantErr != nil || tc.errText != "":
					if res.Err == nil || (tc.wantErr != nil && !errors.Is(res.Err, tc.wantErr)) || !strings.Contains(res.Err.Error(), tc.errText) {
						t.Fatalf("Err = %v, want %v %q", res.Err, tc.wantErr, tc.errText)
					}
					if len(res.Objects) != 0 {
						t.Errorf("a failed build returned %d objects", len(res.Objects))
					}
				case res.Err != nil:
					t.Fatal(res.Err)
				}
				if got := ids(res.Objects); len(tc.want) > 0 && !reflect.DeepEqual(got, tc.want) {
					t.Errorf("objects = %v, want %v", got, tc.want)
				}
				if !reflect.DeepEqual(res.RemoteURLs, tc.remote) {
					t.Errorf("RemoteURLs = %v, want %v", res.RemoteURLs, tc.remote)
				}
				if !reflect.DeepEqual(res.Unresolved, tc.unresolved) {
					t.Errorf("Unresolved = %v, want %v", res.Unresolved, tc.unresolved)
				}
				if tc.check != nil {
					tc.check(t, res)
				}
			})
		}
	}
	if left, _ := os.ReadDir(tree.Root()); len(left) > 0 {
		t.Errorf("building from git's objects wrote %s under the revision's root", left[0].Name())
	}
}

// fixtureTree is r's HEAD read from git's objects.
func fixtureTree(t *testing.T, r *gittest.Repo) *gitrev.Tree {
	t.Helper()
	repo, err := gitrev.OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := repo.OpenTree(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// TestBuildLeavesTreeAlone builds different Kustomizations of the same paths at once, in the
// working tree itself: each must see only its own spec, and git must see no change after.
func TestBuildLeavesTreeAlone(t *testing.T) {
	r := gittest.New(t, fixture)
	repo, err := gitrev.OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Snapshot(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := fmt.Sprintf("tenant-%d", i)
			p := []string{"apps/plain", "apps/protected"}[i%2]
			ks := fluxKS(t, ksYAML(p, "  targetNamespace: "+ns+"\n"))
			res := Build(context.Background(), wt.Dir, ks, Options{})
			if res.Err != nil {
				errs <- res.Err
				return
			}
			for _, o := range res.Objects {
				if o.GetNamespace() != ns {
					errs <- fmt.Errorf("build for %s produced %s", ns, ObjectID(o))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := r.Git("status", "--porcelain", "--ignored"); st != "" {
		t.Fatalf("building changed the working tree:\n%s", st)
	}
}

func TestBuildCancelled(t *testing.T) {
	_, snap := fixtureRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := BuildPath(ctx, snap.Dir, "apps/plain", Options{}); !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("Err = %v, want context.Canceled", res.Err)
	}
}
