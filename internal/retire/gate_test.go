package retire_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// fixture is a repository at base with a change in its working tree (the candidate).
type fixture struct {
	files, change map[string]string
	// commit the change and compare HEAD~1 with HEAD instead of the working tree.
	commit bool
}

// gate runs the offline gate on the fixture (or live, when live is set) with req's flags.
func (f fixture) gate(t *testing.T, req retire.Request, live retire.Cluster) (*retire.Report, error) {
	t.Helper()
	r := gittest.New(t, f.files)
	req.RepoDir = r.Dir
	if req.Base == "" {
		req.Base = r.Git("rev-parse", "HEAD")
	}
	if f.commit {
		req.Candidate = r.Commit("change", f.change)
	} else if f.change != nil {
		r.Write(f.change)
	}
	return retire.Gate(context.Background(), req, live)
}

// mustGate is gate that fails the test on an error.
func (f fixture) mustGate(t *testing.T, req retire.Request, live retire.Cluster) *retire.Report {
	t.Helper()
	rep, err := f.gate(t, req, live)
	if err != nil {
		t.Fatalf("gate: %v", err)
	}
	return rep
}

func wantCode(t *testing.T, rep *retire.Report, want exitcode.Code, mentions ...string) {
	t.Helper()
	all := strings.Join(append(report.GapLines(rep.Incomplete), report.GapLines(rep.NotCovered)...), "\n")
	for _, u := range rep.Unbuilt {
		all += "\n" + u.Kustomization + " " + u.Error
	}
	for _, rm := range rep.Removals {
		all += "\n" + rm.ID + " " + string(rm.Outcome) + " " + rm.OptOut + " " + strings.Join(rm.Reasons, "; ")
	}
	if got := rep.Code(); got != want {
		t.Errorf("exit %d, want %d\n%s", got, want, all)
	}
	for _, m := range mentions {
		if !strings.Contains(all, m) {
			t.Errorf("the report does not mention %q:\n%s", m, all)
		}
	}
}

// files merges file sets, later ones winning.
func files(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}

// A Kustomization in a tier's build that does not decode (here a timeout that is no duration)
// used to drop every Kustomization of that build without a word: the apps tier beside it was
// never built, its claim removal never seen, and the gate said SAFE.
func TestUndecodedKustomization(t *testing.T) {
	broken := strings.Replace(incident.KustomizationManifest("flux-system", "broken", "./k8s/broken", true), "timeout: 20m", "timeout: soon", 1)
	f := fixture{
		files: files(incident.RepoFiles(), map[string]string{
			"clusters/prod/apps.yaml":       "",
			"clusters/prod/infra.yaml":      incident.KustomizationManifest("flux-system", "infra", "./k8s/infra", true),
			"k8s/infra/kustomization.yaml":  "resources:\n- apps.yaml\n- broken.yaml\n",
			"k8s/infra/apps.yaml":           incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", true),
			"k8s/infra/broken.yaml":         broken,
			"k8s/broken/kustomization.yaml": "resources: []\n",
		}),
		change: incident.ClaimRemoval(),
	}
	delete(f.files, "clusters/prod/apps.yaml")
	rep := f.mustGate(t, retire.Request{}, nil)
	wantCode(t, rep, exitcode.Finding, "flux-system/broken", "headlamp_headlamp__PersistentVolumeClaim Pruned")
	if len(rep.Incomplete) == 0 {
		t.Errorf("the undecodable Kustomization is not recorded")
	}
}

// eaKS is a tier built from an ExternalArtifact that an ArtifactGenerator makes from this
// repository (Flux 2.7 source-watcher, as in fluxcd/flux2-kustomize-helm-example).
func eaKS(name, path string) string {
	return strings.Replace(incident.KustomizationManifest("flux-system", name, path, true),
		"kind: GitRepository\n    name: flux-system", "kind: ExternalArtifact\n    name: "+name, 1)
}

// Nothing unevaluated is SAFE (issue 14, item 1): a tier built from another source whose files
// or whose Kustomization the candidate changes, and a sourceRef switch, are UNKNOWN, named.
func TestNothingUnevaluatedIsSafe(t *testing.T) {
	// The root Kustomization makes the repository's own GitRepository its source.
	apps := files(incident.RepoFiles(), map[string]string{"clusters/prod/flux-system.yaml": incident.KustomizationManifest("flux-system", "flux-system", "./clusters/prod", true)})
	cases := []struct {
		name    string
		files   map[string]string
		change  map[string]string
		mention string
	}{
		{"files of an ExternalArtifact tier change",
			files(apps, map[string]string{"clusters/prod/apps.yaml": eaKS("apps", "./k8s/apps")}),
			incident.ClaimRemoval(),
			"built from another source (ExternalArtifact/flux-system/apps) and the candidate changes files under its path k8s/apps"},
		{"an ExternalArtifact tier is removed",
			files(apps, map[string]string{"clusters/prod/apps.yaml": eaKS("apps", "./k8s/apps"), "clusters/prod/kustomization.yaml": "resources:\n- apps.yaml\n- flux-system.yaml\n"}),
			map[string]string{"clusters/prod/kustomization.yaml": "resources:\n- flux-system.yaml\n"},
			"the candidate removes it"},
		{"the spec of an ExternalArtifact tier changes",
			files(apps, map[string]string{"clusters/prod/apps.yaml": eaKS("apps", "./k8s/apps")}),
			map[string]string{"clusters/prod/apps.yaml": strings.Replace(eaKS("apps", "./k8s/apps"), "interval: 10m", "interval: 5m", 1)},
			"the candidate changes its spec"},
		{"a sourceRef switch",
			apps,
			map[string]string{"clusters/prod/apps.yaml": eaKS("apps", "./k8s/apps")},
			"switches its sourceRef from GitRepository/flux-system/flux-system to ExternalArtifact/flux-system/apps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := fixture{files: tc.files, change: tc.change}.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil)
			wantCode(t, rep, exitcode.Unknown, tc.mention)
			// The gap names the Kustomization as its subject, typed, and says why (#28.3).
			found := false
			for _, g := range rep.Incomplete {
				found = found || (g.Subject.Kind == "Kustomization" && g.Subject.Namespace == "flux-system" && g.Subject.Name == "apps" &&
					g.Op == report.OpJudge && g.What == "Kustomization flux-system/apps" && strings.Contains(g.Error, tc.mention))
			}
			if !found {
				t.Errorf("no gap {subject: Kustomization flux-system/apps, what: Kustomization flux-system/apps, error: …%s…} in %+v", tc.mention, rep.Incomplete)
			}
		})
	}
	// edc-ops/flux2-multi-tenancy 64255c4 pointed the tenant's GitRepository, declared here, at
	// another repository: the tenant's tier then builds other content and prunes what the old
	// one had. A change of how often it is fetched changes no content.
	t.Run("the spec of a tenant's source declared here changes", func(t *testing.T) {
		tenant := strings.Replace(incident.KustomizationManifest("flux-system", "tenant", "./deploy", true), "name: flux-system\n", "name: tenant\n", 1)
		source := func(url, interval string) string {
			return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: tenant\n  namespace: flux-system\nspec:\n  interval: " + interval + "\n  url: " + url + "\n  ref:\n    branch: main\n"
		}
		base := files(apps, map[string]string{"clusters/prod/tenant.yaml": tenant + "---\n" + source("https://example.com/team-a", "5m")})
		for _, c := range []struct {
			name, url, interval string
			want                exitcode.Code
			mention             string
		}{
			{"url", "https://example.com/team-b", "5m", exitcode.Unknown, "the candidate changes the spec of its source GitRepository/flux-system/tenant"},
			{"interval only", "https://example.com/team-a", "1m", exitcode.OK, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				f := fixture{files: base, change: map[string]string{"clusters/prod/tenant.yaml": tenant + "---\n" + source(c.url, c.interval)}}
				wantCode(t, f.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil), c.want, c.mention)
			})
		}
	})
	t.Run("a tenant's own repository at path . is not this one", func(t *testing.T) {
		tenant := strings.Replace(incident.KustomizationManifest("flux-system", "tenant", "./", true), "name: flux-system\n", "name: tenant\n", 1)
		f := fixture{files: files(apps, map[string]string{"clusters/prod/tenant.yaml": tenant}), change: map[string]string{"k8s/apps/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: headlamp\n  labels: {a: b}\n"}}
		wantCode(t, f.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil), exitcode.OK)
	})
}

// A Kustomization the candidate deletes takes what it applied with it as its
// spec.deletionPolicy says (kustomize-controller's finalizerShouldDeleteResources,
// fluxcd/kustomize-controller internal/controller/kustomization_controller.go): MirrorPrune
// follows prune, Delete and WaitForTermination delete even with prune: false, Orphan keeps
// everything, and a suspended one deletes nothing.
func TestDeletionPolicy(t *testing.T) {
	cases := []struct {
		policy  string
		prune   bool
		suspend bool
		code    exitcode.Code
		mention string
	}{
		{"", true, false, exitcode.Finding, "deletionPolicy MirrorPrune (prune: true) deletes PersistentVolumeClaim headlamp/headlamp"},
		{"", false, false, exitcode.OK, "spec.prune is false"},
		{"MirrorPrune", false, false, exitcode.OK, "spec.prune is false"},
		{"Delete", false, false, exitcode.Finding, "deletionPolicy Delete deletes"},
		{"WaitForTermination", false, false, exitcode.Finding, "deletionPolicy WaitForTermination deletes"},
		{"Orphan", true, false, exitcode.OK, "spec.deletionPolicy Orphan on Kustomization flux-system/apps"},
		{"Delete", true, true, exitcode.OK, "is suspended"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s prune %t suspend %t", tc.policy, tc.prune, tc.suspend), func(t *testing.T) {
			ks := incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", tc.prune)
			if tc.policy != "" {
				ks += "  deletionPolicy: " + tc.policy + "\n"
			}
			if tc.suspend {
				ks += "  suspend: true\n"
			}
			f := fixture{
				files: files(incident.RepoFiles(), map[string]string{"clusters/prod/apps.yaml": ks, "clusters/prod/kustomization.yaml": "resources:\n- apps.yaml\n- flux-system.yaml\n",
					"clusters/prod/flux-system.yaml": incident.KustomizationManifest("flux-system", "flux-system", "./clusters/prod", true)}),
				change: map[string]string{"clusters/prod/kustomization.yaml": "resources:\n- flux-system.yaml\n"},
			}
			rep := f.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil)
			wantCode(t, rep, tc.code, tc.mention)
		})
	}
}

// A child Kustomization its parent keeps is not deleted with what it applied: when the parent
// does not prune (or the child's manifest opts out, or the parent is deleted with
// deletionPolicy Orphan), kustomize-controller leaves the child object in place and the child
// goes on reconciling its own path at the new revision. That is not built here, so the verdict
// is UNKNOWN, named; before, the child's claim was reported deleted (a confident UNSAFE).
func TestKeptChildKustomization(t *testing.T) {
	apps := incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", true)
	cases := []struct {
		name, apps  string
		parentPrune bool
		code        exitcode.Code
		mention     string
	}{
		{"parent does not prune", apps, false, exitcode.Unknown, "kept by spec.prune is false on Kustomization flux-system/flux-system, so it stays on the cluster"},
		{"child opts out", strings.Replace(apps, "  namespace: flux-system\n", "  namespace: flux-system\n  annotations:\n    kustomize.toolkit.fluxcd.io/prune: disabled\n", 1), true, exitcode.Unknown, "kept by kustomize.toolkit.fluxcd.io/prune: disabled, so it stays on the cluster"},
		{"parent prunes", apps, true, exitcode.Finding, "deletionPolicy MirrorPrune (prune: true) deletes PersistentVolumeClaim headlamp/headlamp"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture{
				files: files(incident.RepoFiles(), map[string]string{"clusters/prod/apps.yaml": tc.apps, "clusters/prod/kustomization.yaml": "resources:\n- apps.yaml\n- flux-system.yaml\n",
					"clusters/prod/flux-system.yaml": incident.KustomizationManifest("flux-system", "flux-system", "./clusters/prod", tc.parentPrune)}),
				change: map[string]string{"clusters/prod/kustomization.yaml": "resources:\n- flux-system.yaml\n"},
			}
			wantCode(t, f.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil), tc.code, tc.mention)
		})
	}
}

// Prune opt-outs are decided as kustomize-controller decides them, through fluxcd/pkg/ssa's
// utils.AnyInMetadata: the label counts as well as the annotation, values case-insensitively.
func TestPruneOptOuts(t *testing.T) {
	ns := func(meta string) string {
		return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: headlamp\n" + meta
	}
	cases := []struct {
		name, meta string
		code       exitcode.Code
		mention    string
	}{
		{"label", "  labels:\n    kustomize.toolkit.fluxcd.io/prune: disabled\n", exitcode.OK, "label kustomize.toolkit.fluxcd.io/prune: disabled"},
		{"annotation in capitals", "  annotations:\n    kustomize.toolkit.fluxcd.io/prune: Disabled\n", exitcode.OK, "kustomize.toolkit.fluxcd.io/prune: Disabled"},
		{"ssa ignore label", "  labels:\n    kustomize.toolkit.fluxcd.io/ssa: ignore\n", exitcode.OK, "label kustomize.toolkit.fluxcd.io/ssa: ignore"},
		{"another value", "  labels:\n    kustomize.toolkit.fluxcd.io/prune: enabled\n", exitcode.Finding, "_headlamp__Namespace Pruned"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fixture{
				files:  files(incident.RepoFiles(), map[string]string{"k8s/apps/namespace.yaml": ns(tc.meta)}),
				change: map[string]string{"k8s/apps/namespace.yaml": "", "k8s/apps/kustomization.yaml": "resources:\n- headlamp/deployment.yaml\n- headlamp/persistent-volume-claim.yaml\n"},
			}
			wantCode(t, f.mustGate(t, retire.Request{}, nil), tc.code, tc.mention)
		})
	}
}

// cluster is a Cluster of fixed Kustomizations: every removed object is gone from it.
type cluster struct{ live *retire.LiveKustomizations }

func (c cluster) Kustomizations(context.Context, string) (*retire.LiveKustomizations, error) {
	return c.live, nil
}
func (cluster) ConfigMap(context.Context, string, string) (map[string]string, bool, error) {
	return nil, false, nil
}
func (cluster) Facts(context.Context, *retire.Removal) *retire.Live { return &retire.Live{Count: -1} }
func (cluster) Downstream(string) []string                          { return nil }
func (cluster) Installed(context.Context, string, string) (*helmstorage.Release, error) {
	return nil, nil
}
func (cluster) InstalledChart(context.Context, string, string) (*helmstorage.Release, error) {
	return nil, nil
}
func (cluster) Capabilities(context.Context) (string, []string, error) { return "", nil, nil }

// liveCluster decodes Kustomization manifests into the cluster's list, with inventories.
func liveCluster(t *testing.T, inventory map[string][]string, manifests ...string) cluster {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(m), &u.Object); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	kss, err := kbuild.KustomizationsIn(objs)
	if err != nil {
		t.Fatal(err)
	}
	return cluster{&retire.LiveKustomizations{Items: kss, Inventory: inventory}}
}

// Live, a Kustomization whose path is in neither revision is UNKNOWN for that tier, named with
// its source and path, and the other tiers are still judged: an unsafe removal still exits 1
// (issue 14, item 8). Only when no Kustomization's path is in the repository is it bad input.
func TestLiveMissingTier(t *testing.T) {
	claimID := "headlamp_headlamp__PersistentVolumeClaim"
	apps := incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", true)
	ghost := incident.KustomizationManifest("flux-system", "ghost", "./k8s/not-in-this-repo", true)
	f := fixture{files: incident.RepoFiles(), change: incident.ClaimRemoval()}
	live := liveCluster(t, map[string][]string{"flux-system/apps": {claimID}}, apps, ghost)
	rep := f.mustGate(t, retire.Request{}, live)
	wantCode(t, rep, exitcode.Finding, claimID+" Pruned",
		"Kustomization flux-system/ghost (source GitRepository/flux-system/flux-system, path k8s/not-in-this-repo): its path is in neither revision")

	f = fixture{files: incident.RepoFiles()}
	rep = f.mustGate(t, retire.Request{}, live)
	wantCode(t, rep, exitcode.Unknown, "flux-system/ghost")

	_, err := f.gate(t, retire.Request{}, liveCluster(t, nil, ghost))
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(fmt.Sprint(err), "no Kustomization's path is in the repository") {
		t.Fatalf("no tier in the repository: %v, want bad input", err)
	}
}

// stefanprodan/flux-local-dev (https://github.com/stefanprodan/flux-local-dev) pushes
// kubernetes/clusters/local, kubernetes/infra and kubernetes/apps as three OCI artifacts, so
// its infra Kustomizations name ./controllers and ./config, the artifact's own paths. Offline,
// the entry built and declared them, yet no tier's path was in the repository and the gate
// refused the repository as bad input (exit 3). The Kustomizations were read from this
// repository's entry, so it is the right one: each absent path is UNKNOWN, named.
func TestOfflineEntryWhoseTiersComeFromArtifacts(t *testing.T) {
	oci := func(name string) string {
		return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: " + name +
			"\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: oci://localhost:5050/" + name + "\n  ref:\n    tag: latest\n"
	}
	ks := func(name, source, path string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
			"\n  namespace: flux-system\nspec:\n  interval: 1h\n  prune: true\n  path: " + path +
			"\n  sourceRef:\n    kind: OCIRepository\n    name: " + source + "\n"
	}
	f := fixture{files: map[string]string{
		"kubernetes/clusters/local/kustomization.yaml": "resources:\n- infra.yaml\n",
		"kubernetes/clusters/local/infra.yaml": oci("infra-source") + "---\n" + ks("infra-controllers", "infra-source", "./controllers") +
			"---\n" + ks("infra-config", "infra-source", "./config"),
		"kubernetes/infra/controllers/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitoring\n",
		"kubernetes/infra/config/namespace.yaml":      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ingress\n",
	}, change: map[string]string{
		"kubernetes/infra/controllers/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitoring\n  labels:\n    a: b\n",
	}, commit: true}
	rep := f.mustGate(t, retire.Request{Entry: "clusters/local", SourceRoot: "kubernetes"}, nil)
	wantCode(t, rep, exitcode.Unknown,
		"Kustomization flux-system/infra-controllers (source OCIRepository/flux-system/infra-source, path controllers): its path is in neither revision",
		"Kustomization flux-system/infra-config (source OCIRepository/flux-system/infra-source, path config)")
}
