package gitops

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// incrCase is one change on top of homeOps: files written ("" deletes) and the tiers the
// incremental load must build (every other one is copied from the base).
type incrCase struct {
	name    string
	files   map[string]string
	rebuilt []string
}

func incrCases() []incrCase {
	web := "kubernetes/apps/default/web/"
	plain := "kubernetes/apps/default/plain/"
	defaultList := "kubernetes/apps/default/kustomization.yaml"
	return []incrCase{
		{"nothing changed", nil, nil},
		{"one image bump", map[string]string{web + "app/helmrelease.yaml": helmRelease("web", "1.1.0")},
			[]string{"cluster-apps", "web"}},
		{"tier added", map[string]string{
			defaultList:                                   "resources:\n- namespace.yaml\n- ./web/ks.yaml\n- ./db/ks.yaml\n- ./plain/ks.yaml\n- ./new/ks.yaml\n",
			"kubernetes/apps/default/new/ks.yaml":         appKS("new", "default", "new", []string{"common"}, ""),
			"kubernetes/apps/default/new/app/deploy.yaml": deployment("new", "busybox:1"),
		}, []string{"cluster-apps", "new"}},
		{"tier removed", map[string]string{
			defaultList:                          "resources:\n- namespace.yaml\n- ./web/ks.yaml\n- ./plain/ks.yaml\n",
			"kubernetes/apps/default/db/ks.yaml": "",
			"kubernetes/apps/default/db/app/kustomization.yaml": "",
			"kubernetes/apps/default/db/app/deployment.yaml":    "",
		}, []string{"cluster-apps"}},
		{"tier moved to another path", map[string]string{
			plain + "ks.yaml":          movedPlain(),
			plain + "app/deploy.yaml":  "",
			plain + "app/sub/cm.yaml":  "",
			plain + "app2/deploy.yaml": deployment("plain", "nginx:1.27"),
			plain + "app2/sub/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain-settings\ndata:\n  mode: fast\n",
		}, []string{"cluster-apps", "plain"}},
		{"file renamed in a generated kustomization", map[string]string{
			plain + "app/deploy.yaml":     "",
			plain + "app/deployment.yaml": deployment("plain", "nginx:1.27"),
		}, []string{"cluster-apps", "plain"}},
		{"Kustomization renamed", map[string]string{web + "ks.yaml": appKS("website", "default", "web", []string{"common"}, "      CLUSTER_LABEL: ${CLUSTER}\n")},
			[]string{"cluster-apps", "website"}},
		{"substituteFrom ConfigMap changed in another tier", map[string]string{"kubernetes/vars/cluster-settings.yaml": settings("prod", "5Gi")},
			[]string{"cluster-vars", "cluster-apps", "web", "db", "plain", "remote", "jelly"}},
		{"substituteFrom Secret gains a key in the entry", map[string]string{"clusters/main/secrets.yaml": secretWithKeys("SECRET_DOMAIN", "SECRET_TOKEN")},
			[]string{"flux-system", "web", "db", "plain", "remote", "jelly"}},
		{"component used by two tiers", map[string]string{"kubernetes/components/volsync/claim.yaml": pvc("${APP}", "default")},
			[]string{"db", "jelly"}},
		{"shared component every tier uses", map[string]string{"kubernetes/components/common/alerts.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${APP}-alerts\ndata:\n  cluster: ${CLUSTER}\n  severity: page\n"},
			[]string{"web", "db", "plain", "remote", "jelly"}},
		{"shared component's kustomization", map[string]string{"kubernetes/components/common/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- alerts.yaml\n"},
			[]string{"web", "db", "plain", "remote", "jelly"}},
		{"Kustomization spec changed", map[string]string{"kubernetes/apps/default/db/ks.yaml": appKS("db", "default", "db", []string{"common", "volsync"}, "      VOLSYNC_CAPACITY: 3Gi\n")},
			[]string{"cluster-apps", "db"}},
		// A tier that cannot build offline is never built, so its reads are what its
		// kustomizations name: a change to one of its files is a change of the tier (it was
		// once taken as unchanged, and a claim changed there was judged SAFE).
		{"file of a tier that cannot build offline", map[string]string{"kubernetes/apps/media/remote/app/local.yaml": pvc("local2", "media")},
			[]string{"cluster-apps", "remote"}},
	}
}

// movedPlain is plain's ks.yaml with its path moved to app2.
func movedPlain() string {
	return strings.Replace(appKS("plain", "default", "plain", []string{"common"}, ""), "plain/app\n", "plain/app2\n", 1)
}

func secretWithKeys(keys ...string) string {
	s := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\nstringData:\n"
	for _, k := range keys {
		s += "  " + k + ": ENC[AES256_GCM,data:abc=,type:str]\n"
	}
	return s
}

// TestLoadIncrementalEqualsLoad runs the full and the incremental load of each candidate
// and compares every tier object by object, and checks that only the tiers whose inputs
// changed were built.
func TestLoadIncrementalEqualsLoad(t *testing.T) {
	ctx := context.Background()
	g := gittest.New(t, homeOps())
	repo, err := gitrev.OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	baseCommit := g.Git("rev-parse", "HEAD")
	opts := LoadOptions{Entry: "clusters/main", NoFiles: true}
	base := loadAt(t, repo, baseCommit, opts, true)
	for i, c := range incrCases() {
		t.Run(c.name, func(t *testing.T) {
			g.Git("checkout", "--quiet", "-B", "case", baseCommit)
			cand := g.Commit(c.name, c.files)
			if i == 0 {
				cand = baseCommit
			}
			snap := snapshot(t, repo, cand)
			changes, err := repo.Changes(t.Context(), baseCommit, cand)
			if err != nil {
				t.Fatal(err)
			}
			checkIncremental(t, ctx, snap.Dir, opts, Against{Base: base, Changes: changes}, c.rebuilt)
		})
	}
	t.Run("working tree with an untracked file", func(t *testing.T) {
		g.Git("checkout", "--quiet", baseCommit)
		g.Write(map[string]string{"kubernetes/apps/default/plain/app/extra.yaml": deployment("extra", "busybox:1")})
		changes, err := repo.Changes(t.Context(), baseCommit, "")
		if err != nil {
			t.Fatal(err)
		}
		checkIncremental(t, ctx, repo.Dir, opts, Against{Base: base, Changes: changes}, []string{"cluster-apps", "plain"})
	})
	t.Run("full", func(t *testing.T) {
		changes := &gitrev.Changes{}
		inc := checkIncremental(t, ctx, repo.Dir, opts, Against{Base: base, Changes: changes, Full: true},
			[]string{"flux-system", "cluster-vars", "cluster-apps", "web", "db", "plain", "remote", "jelly"})
		if inc.FullBuild == "" {
			t.Error("a full build does not say why")
		}
	})
}

// checkIncremental compares LoadIncremental with Load at root and returns the incremental
// tree.
func checkIncremental(t *testing.T, ctx context.Context, root string, opts LoadOptions, a Against, rebuilt []string) *Tree {
	t.Helper()
	full, err := Load(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	inc, err := LoadIncremental(ctx, root, opts, a)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(treeView(full), treeView(inc)); d != "" {
		t.Errorf("incremental load differs from the full one (-full +incremental):\n%s", d)
	}
	var got []string
	for _, id := range inc.IDs() {
		if !inc.Tiers[id].Unchanged {
			got = append(got, inc.Tiers[id].Kustomization.Name)
		}
	}
	want := append([]string(nil), rebuilt...)
	sort.Strings(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tiers built (-want +got):\n%s", d)
	}
	return inc
}

// tierView is everything of a tier a gate reads, comparable with cmp.
type tierView struct {
	AppliedBy, Path, Err, NotCovered string
	Object                           map[string]any
	Objects                          []map[string]any
	Files, RemoteURLs, Unresolved    []string
	Undefined                        []Undefined
}

func treeView(r *Tree) map[string]tierView {
	out := map[string]tierView{"entry": {Objects: objectMaps(r.EntryBuild.Objects), Files: r.EntryBuild.Files, Path: r.Entry + " " + r.Source}}
	for id, t := range r.Tiers {
		v := tierView{AppliedBy: t.AppliedBy, Path: t.Kustomization.Path, Err: errString(t.Err), NotCovered: t.NotCovered,
			Objects: objectMaps(t.Objects), Files: t.Files, RemoteURLs: t.RemoteURLs, Unresolved: t.Unresolved, Undefined: t.Undefined}
		if t.Kustomization.Object != nil {
			v.Object = t.Kustomization.Object.Object
		}
		out[id] = v
	}
	return out
}

func objectMaps(objs []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Object)
	}
	return out
}

func snapshot(t testing.TB, repo *gitrev.Repo, rev string) *gitrev.Snapshot {
	t.Helper()
	s, err := repo.Snapshot(t.Context(), rev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// loadAt loads rev of repo, recording inputs when record is set.
func loadAt(t *testing.T, repo *gitrev.Repo, rev string, opts LoadOptions, record bool) *Tree {
	t.Helper()
	opts.RecordInputs = record
	tree, err := Load(context.Background(), snapshot(t, repo, rev).Dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
