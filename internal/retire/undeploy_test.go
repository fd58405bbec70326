package retire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// childTree is a parent Kustomization flux-system/flux-system at clusters/prod declaring the
// child apps (./k8s/apps, the incident's claim and Deployment); with nested, apps declares
// one more child db (./k8s/db, a claim of its own) the way an app's ks.yaml lists a
// dependency in home-ops repositories.
func childTree(parentPrune, nested bool) map[string]string {
	f := files(incident.RepoFiles(), map[string]string{
		"clusters/prod/apps.yaml":          incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", true),
		"clusters/prod/flux-system.yaml":   incident.KustomizationManifest("flux-system", "flux-system", "./clusters/prod", parentPrune),
		"clusters/prod/kustomization.yaml": "resources:\n- apps.yaml\n- flux-system.yaml\n",
	})
	if nested {
		f["k8s/apps/db.yaml"] = incident.KustomizationManifest("flux-system", "db", "./k8s/db", true)
		f["k8s/apps/kustomization.yaml"] = "resources:\n- namespace.yaml\n- headlamp/deployment.yaml\n- headlamp/persistent-volume-claim.yaml\n- db.yaml\n"
		f["k8s/db/kustomization.yaml"] = "resources:\n- claim.yaml\n"
		f["k8s/db/claim.yaml"] = incident.ClaimManifest("headlamp", "db")
	}
	return f
}

// undeployApps removes the child's manifest and its whole path together.
func undeployApps(f map[string]string) map[string]string {
	change := map[string]string{"clusters/prod/kustomization.yaml": "resources:\n- flux-system.yaml\n", "clusters/prod/apps.yaml": ""}
	for name := range f {
		if strings.HasPrefix(name, "k8s/apps/") {
			change[name] = ""
		}
	}
	return change
}

// Live, a child Kustomization whose manifest and path the candidate removes together is judged
// from its live inventory as deleted, not UNKNOWN for its missing path (issue 30, item 1);
// when its parent keeps it instead, the missing path is a gap, named. A child declared by a
// deleted child goes with it (nested children), judged from its own inventory.
func TestLiveUndeployedChild(t *testing.T) {
	claimID := "headlamp_headlamp__PersistentVolumeClaim"
	parent := incident.KustomizationManifest("flux-system", "flux-system", "./clusters/prod", true)
	apps := incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", true)
	db := incident.KustomizationManifest("flux-system", "db", "./k8s/db", true)
	inv := map[string][]string{
		"flux-system/flux-system": {"flux-system_apps_kustomize.toolkit.fluxcd.io_Kustomization"},
		"flux-system/apps":        {claimID, "headlamp_headlamp_apps_Deployment", "flux-system_db_kustomize.toolkit.fluxcd.io_Kustomization"},
		"flux-system/db":          {"headlamp_db__PersistentVolumeClaim"},
	}
	t.Run("parent prunes", func(t *testing.T) {
		f := fixture{files: childTree(true, false), commit: true}
		f.change = undeployApps(f.files)
		rep := f.mustGate(t, retire.Request{Entry: "clusters/prod"}, liveCluster(t, inv, parent, apps))
		wantCode(t, rep, exitcode.Finding, claimID+" Pruned", "the candidate deletes Kustomization flux-system/apps, and its deletionPolicy MirrorPrune (prune: true) deletes PersistentVolumeClaim headlamp/headlamp")
		for _, rm := range rep.Removals {
			if rm.ID == claimID && (!rm.KustomizationDeleted || len(rm.Plan) != 4 || !strings.Contains(rm.Plan[0].Do[0], "before deleting Kustomization flux-system/apps")) {
				t.Errorf("the claim's plan does not start from the deleted child: %+v", rm.Plan)
			}
		}
	})
	t.Run("parent keeps it", func(t *testing.T) {
		f := fixture{files: childTree(false, false), commit: true}
		f.change = undeployApps(f.files)
		rep := f.mustGate(t, retire.Request{Entry: "clusters/prod"}, liveCluster(t, inv, strings.Replace(parent, "prune: true", "prune: false", 1), apps))
		wantCode(t, rep, exitcode.Unknown, "Kustomization flux-system/apps: its path k8s/apps is not in the candidate", "kept by spec.prune is false on Kustomization flux-system/flux-system")
	})
	t.Run("nested child", func(t *testing.T) {
		f := fixture{files: childTree(true, true)}
		f.change = map[string]string{"clusters/prod/kustomization.yaml": "resources:\n- flux-system.yaml\n", "clusters/prod/apps.yaml": ""}
		rep := f.mustGate(t, retire.Request{Entry: "clusters/prod"}, liveCluster(t, inv, parent, apps, db))
		wantCode(t, rep, exitcode.Finding, "headlamp_db__PersistentVolumeClaim Pruned", "the candidate deletes Kustomization flux-system/db")
	})
}

// A deleted Kustomization with prune: false and the default deletion policy orphans what it
// applied, whether or not its path is still there: a note, not UNKNOWN (issue 23, item 6).
func TestDeletedNoPruneOrphans(t *testing.T) {
	f := fixture{files: childTree(true, false)}
	f.files["clusters/prod/apps.yaml"] = incident.KustomizationManifest("flux-system", "apps", "./k8s/gone", false)
	f.change = map[string]string{"clusters/prod/kustomization.yaml": "resources:\n- flux-system.yaml\n", "clusters/prod/apps.yaml": ""}
	rep := f.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil)
	wantCode(t, rep, exitcode.OK)
	if len(rep.Notes) != 1 || rep.Notes[0].Code != report.NoteTierKeepsAll || rep.Notes[0].Subject.Name != "apps" ||
		!strings.Contains(rep.Notes[0].Message, "Kustomization flux-system/apps: its path k8s/gone is not built at base") || !strings.Contains(rep.Notes[0].Message, "spec.prune is false (deletionPolicy MirrorPrune (prune: false))") {
		t.Errorf("notes: %q", rep.Notes)
	}
	f.files["clusters/prod/apps.yaml"] = incident.KustomizationManifest("flux-system", "apps", "./k8s/gone", true)
	wantCode(t, f.mustGate(t, retire.Request{Entry: "clusters/prod"}, nil), exitcode.Unknown, "flux-system/apps")
}

// A tier the candidate does not change never makes the verdict UNKNOWN: a variable left
// unresolved in its object names (a Secret's, not read) is a note (issue 23, item 6), with or
// without --full; a tier the candidate does change with one is still UNKNOWN.
func TestUnchangedTierUnresolved(t *testing.T) {
	secret := "  postBuild:\n    substituteFrom:\n    - kind: Secret\n      name: cluster-secrets\n"
	f := fixture{files: files(incident.RepoFiles(), map[string]string{
		"clusters/prod/platform.yaml":     incident.KustomizationManifest("flux-system", "platform", "./k8s/platform", true) + secret,
		"k8s/platform/kustomization.yaml": "resources:\n- cm.yaml\n",
		"k8s/platform/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${SECRET_DOMAIN}\n  namespace: default\n",
	})}
	f.change = map[string]string{"k8s/apps/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: headlamp\n"}
	for _, full := range []bool{false, true} {
		rep := f.mustGate(t, retire.Request{Full: full}, nil)
		wantCode(t, rep, exitcode.OK)
		if len(rep.Notes) != 1 || rep.Notes[0].Code != report.NoteUnresolvedUnchanged || rep.Notes[0].Subject.Name != "platform" ||
			!strings.Contains(rep.Notes[0].Message, "Kustomization flux-system/platform: SECRET_DOMAIN unresolved in object names, but the candidate does not change the tier") {
			t.Errorf("full %t: notes %q", full, rep.Notes)
		}
	}
	f.change["k8s/platform/more.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: more\n  namespace: default\n"
	f.change["k8s/platform/kustomization.yaml"] = "resources:\n- cm.yaml\n- more.yaml\n"
	wantCode(t, f.mustGate(t, retire.Request{}, nil), exitcode.Unknown, "SECRET_DOMAIN unresolved")
}
