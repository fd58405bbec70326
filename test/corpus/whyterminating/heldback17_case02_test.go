package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Held back in batch 17, run once by the lead (2026-12-03, main c8e457e): passed its assertions,
// wrong in part at first sight: reinstall first, the strip "only if the controller is gone for
// good", though nothing of the product but its CRDs is left (an uninstall). Fixed on branch
// leftclass (docs/why-terminating.md, "A product uninstalled, not stopped"): the strip first, its
// cost naming the bucket the spec stores in, the reinstall second and only if the product is
// meant to run here; the assertions now say that order, from the maintainer's answer.
//
// Report: https://github.com/stashed/stash/issues/731 ("Uninstall script stuck while using --purge
// flag"), by a maintainer: "`--purge` flag remove all crds registered for Stash. That includes
// `Repository` crd. `Repository` crd uses `finalizer`. This `finalizer` is removed by Stash
// operator pod. Stash operator pod get deleted before deleting those crds. As a result while
// script try to delete `Repository` crd, it get stuck. Possible solution: Patch crds to remove
// any `finalizer` before deletion." The operator's finalizer on a Repository is the bare name
// "stash" (pkg/util RepositoryFinalizer); with spec.wipeOut unset the operator only removes it, and
// deletes nothing in the backend.
//
// Modelled on hack/deploy/stash.sh of April 2019 (0.8.x) run with --uninstall --purge, STASH_NAMESPACE
// kube-system: the webhooks, APIServices, the stash-operator Deployment, Service, Secret,
// ServiceAccount, ClusterRole, ClusterRoleBinding, Role and RoleBinding (all labelled app=stash)
// are deleted, the script waits until the operator's pod is gone, then, per CRD of
// crds=(restics repositories recoveries), deletes its objects before the CRD: the Restic went, the
// Repository s3-repo in demo (its S3 backend, backed up for a week) stays, and the script waits on
// it; the CRDs are still there.
func TestCorpusStashRepositoryAfterItsOperatorWasPurged(t *testing.T) {
	stash := map[string]string{"app": "stash"}
	replay{
		crds: []crd{
			{group: "stash.appscode.com", kind: "Restic", plural: "restics", namespaced: true, versions: []string{"v1alpha1"}, labels: stash},
			{group: "stash.appscode.com", kind: "Repository", plural: "repositories", namespaced: true, versions: []string{"v1alpha1"}, labels: stash},
			{group: "stash.appscode.com", kind: "Recovery", plural: "recoveries", namespaced: true, versions: []string{"v1alpha1"}, labels: stash},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: v1
kind: Secret
metadata:
  name: s3-secret
  namespace: demo
type: Opaque
stringData:
  RESTIC_PASSWORD: changeit
  AWS_ACCESS_KEY_ID: AKIAEXAMPLE
  AWS_SECRET_ACCESS_KEY: example
---
apiVersion: stash.appscode.com/v1alpha1
kind: Repository
metadata:
  name: s3-repo
  namespace: demo
  finalizers: [stash]
  labels: {restic: stash-demo, workload-kind: Deployment, workload-name: stash-demo}
spec:
  backend:
    s3:
      endpoint: s3.amazonaws.com
      bucket: stash-backup-demo
      prefix: /demo/deployment/stash-demo
    storageSecretName: s3-secret
status:
  firstBackupTime: "2019-04-01T09:00:07Z"
  lastBackupTime: "2019-04-08T08:00:06Z"
  lastBackupDuration: 4.1s
  backupCount: 169
`,
		deletes: []string{"Repository/demo/s3-repo"},
	}.run(t)

	// The script has waited on it for a while.
	d := diagnoseAfter(t, 30*time.Minute, "repositories.stash.appscode.com", "s3-repo", "-n", "demo")
	d.exit(1, "STUCK")
	f := d.finalizer("repositories.stash.appscode.com/s3-repo -n demo", "stash")
	// The operator was deleted first: nothing runs that removes the finalizer.
	d.noRunningRemover(f)
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	// The maintainer's way out: remove the finalizer, first and not as a last resort. The
	// operator only removes it (spec.wipeOut unset): the backup data in the bucket stays either
	// way, and the cost says so.
	d.firstFix(f, stripFinalizer)
	if f.Remedies[0].LastResort {
		t.Errorf("finalizer %s: the strip is first but still a last resort: %q", f.Name, remedyCodes(f))
	}
	d.leaves(f, "stash-backup-demo")
	// A reinstall only second: the product was uninstalled, perhaps on purpose.
	if len(f.Remedies) < 2 || f.Remedies[1].Code != reinstall || !strings.Contains(strings.ToLower(f.Remedies[1].Summary), "only if the product is meant to run here") {
		t.Errorf("finalizer %s: steps %q, want the reinstall second, conditional", f.Name, remedyCodes(f))
	}
	d.never(f, readLogs)
}
