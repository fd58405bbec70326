//go:build corpusopen

package fluxchain_test

// Development cases of the Flux corpus on which flux-chain was wrong on its first run
// (SELECTION.txt; docs/flux-chain.md, "Corpus"). They stay out of `make test` until flux-chain
// diagnoses them right; run them with `go test -tags corpusopen ./test/corpus/fluxchain/`. The
// failure class each one shows is in the comment above it, after "Open:". Replays and
// expectations are as written before the first run; controller sources as in
// development_test.go.

import (
	"testing"
	"time"
)

// C03 https://github.com/fluxcd/kustomize-controller/issues/701: a Kustomization with wait and
// a 15m timeout applies HelmReleases; one's upgrade failed for good ("upgrade retries
// exhausted", helm-controller v0.22, v2beta1 status), while the Kustomization keeps "running
// health checks with a timeout of 15m0s" (Ready=Unknown, Progressing; today's message is
// kustomization_controller.go:1052-1053, "Running health checks for revision %s with a timeout
// of %s") until its timeout. The report names no HelmRelease; "app" here.
// Diagnosis: not progress: the HelmRelease failed (UpgradeFailed, retries exhausted) and is
// the root cause; the Kustomization is held only by it. FAILING, exit 1.
// Open (first run: PROGRESSING, exit 0, "10m59s remaining"): a Kustomization in progress is
// taken at its word while a HelmRelease it health-checks has already failed for good; the child's
// terminal failure does not turn the parent's progress into a failure.
func TestC03HealthCheckOnExhaustedRelease(t *testing.T) {
	const ns = "c03-flux-system"
	r := newReplay(t, ns)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	started := 4 * time.Minute
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "somekustomization",
		spec: map[string]any{"interval": "10m", "path": "./apps", "prune": true, "wait": true, "timeout": "15m",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(
			cond("Reconciling", "True", "Progressing", "running health checks with a timeout of 15m0s", started, 1),
			cond("Ready", "Unknown", "Progressing", "running health checks with a timeout of 15m0s", started, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: ns, name: "app",
		labels: appliedBy(ns, "somekustomization"),
		spec: map[string]any{"interval": "5m", "chart": map[string]any{"spec": map[string]any{"chart": "app",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}}},
			"upgrade": map[string]any{"remediation": map[string]any{"retries": int64(3)}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedReleaseAction": "upgrade", "upgradeFailures": int64(4), "failures": int64(4), "conditions": conds(
			cond("Ready", "False", "UpgradeFailed", "upgrade retries exhausted", 2*time.Minute, 1),
			cond("Released", "False", "UpgradeFailed", "Helm upgrade failed: timed out waiting for the condition", 2*time.Minute, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	wantObjectCause(t, res, ref(helmReleases, ns, "app"), "UpgradeFailed")
	for _, p := range res.Progressing {
		if p.Kustomization == ns+"/somekustomization" && p.Object == "" {
			t.Errorf("the Kustomization is reported as progressing; it waits on a release that failed for good")
		}
	}
}

// C04 https://github.com/fluxcd/kustomize-controller/issues/709: "Health check failed after
// 2m0.013489487s, timeout waiting for: [HelmRelease/wpb-services/httpbin status: 'InProgress']"
// although `helm status` says deployed and the HelmRelease says Ready "Release reconciliation
// succeeded"; the reporter found it: the HelmRelease was suspended (SUSPENDED True), so
// helm-controller never observed its latest generation (generation 7 in the report) and kstatus
// calls it InProgress. kustomize-controller: kustomization_controller.go:528-529
// (HealthCheckFailed).
// Diagnosis: the suspended HelmRelease wpb-services/httpbin is what the Kustomization's health
// check waits on; it must be named, as suspended.
// Open (first run: the Kustomization is the root cause, HealthCheckFailed, with no object
// under it): with the documented default scope (-n of the Kustomizations) HelmReleases the
// Kustomization applies into other namespaces are not read, and the object its health-check
// message names (HelmRelease/<ns>/httpbin) is not followed either; the suspension is never seen.
// With -A the HelmRelease is read and named suspended.
func TestC04HealthCheckOnSuspendedRelease(t *testing.T) {
	const ns, appNS = "c04-flux-system", "c04-wpb-services"
	r := newReplay(t, ns, appNS)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "k8s-config",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/k8s-config.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/k8s-config/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "dev-playground",
		spec: map[string]any{"interval": "10m", "path": "./dev-playground", "prune": true, "wait": true, "timeout": "2m",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "k8s-config"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(
			cond("Ready", "False", "HealthCheckFailed", "Health check failed after 2m0.013489487s, timeout waiting for: [HelmRelease/"+appNS+"/httpbin status: 'InProgress']", 30*time.Second, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: "httpbin",
		labels: appliedBy(ns, "dev-playground"),
		spec: map[string]any{"interval": "1m", "suspend": true, "chart": map[string]any{"spec": map[string]any{"chart": "./charts/wpb-service", "version": "*",
			"reconcileStrategy": "ChartVersion", "sourceRef": map[string]any{"kind": "GitRepository", "name": "k8s-config", "namespace": ns}}},
			"install": map[string]any{"remediation": map[string]any{"retries": int64(0)}}},
		// the spec changed while suspended: generation 2, observed 1
		specChanges: []map[string]any{{"values": map[string]any{"replicaCount": int64(2)}}},
		status: map[string]any{"observedGeneration": int64(1), "conditions": conds(
			cond("Ready", "True", "ReconciliationSucceeded", "Release reconciliation succeeded", 3*time.Hour, 1),
			cond("Released", "True", "InstallSucceeded", "Helm install succeeded", 3*time.Hour, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	hr := ref(helmReleases, appNS, "httpbin")
	rc := causeByObject(res, hr)
	if rc == nil {
		rc = causeByKustomization(res, ns+"/dev-playground")
	}
	if rc == nil {
		t.Fatalf("neither the HelmRelease nor the Kustomization is a root cause: %v", causeObjects(res))
	}
	named := false
	for _, h := range rc.HelmReleases {
		if h.Namespace == appNS && h.Name == "httpbin" && h.Suspend {
			named = true
		}
	}
	if !named {
		t.Errorf("the root cause (%s %s) does not name HelmRelease %s/httpbin as suspended: %+v", rc.Object, rc.Kustomization, appNS, rc.HelmReleases)
	}
}

// C10 https://github.com/fluxcd/flux2/issues/3302: after upgrading to Flux v0.36 a HelmRelease
// never upgrades: "dependency 'velero/velero' is not ready", while `flux get hr -n velero` shows
// velero SUSPENDED True, READY True. helm-controller's dependency check wants the dependency
// Ready at its current generation (helmrelease_controller.go:652-656); a suspended HelmRelease is
// not reconciled, so the generation its spec moved to is never observed. helm-controller:
// helmrelease_controller.go:258 (DependencyNotReady). The report shows no Kustomization; "apps"
// (no wait) applies both here.
// Diagnosis: the suspended velero/velero is the root cause; rabbitmq is held back by it.
// Open (first run: HEALTHY, exit 0): with the documented default scope (-n of the
// Kustomizations) HelmReleases applied into other namespaces are not read at all, so a
// HelmRelease stuck on its dependsOn and the suspended dependency behind it vanish and the chain
// is called healthy. With -A the cause is found.
func TestC10DependsOnSuspendedRelease(t *testing.T) {
	const ns, veleroNS, rabbitNS = "c10-flux-system", "c10-velero", "c10-rabbitmq"
	r := newReplay(t, ns, veleroNS, rabbitNS)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "apps",
		spec:   map[string]any{"interval": "10m0s", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+sshRev, time.Minute, 1))}})
	chart := func(name string) map[string]any {
		return map[string]any{"spec": map[string]any{"chart": name, "sourceRef": map[string]any{"kind": "HelmRepository", "name": name, "namespace": ns}}}
	}
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: veleroNS, name: "velero", labels: appliedBy(ns, "apps"),
		spec:        map[string]any{"interval": "30s", "suspend": true, "chart": chart("velero")},
		specChanges: []map[string]any{{"values": map[string]any{"upgradeCRDs": true}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedRevision": "2.32.1", "conditions": conds(
			cond("Ready", "True", "ReconciliationSucceeded", "Release reconciliation succeeded", 48*time.Hour, 1),
			cond("Released", "True", "UpgradeSucceeded", "Helm upgrade succeeded", 48*time.Hour, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: rabbitNS, name: "rabbitmq", labels: appliedBy(ns, "apps"),
		spec: map[string]any{"interval": "30s", "chart": chart("rabbitmq"), "dependsOn": []any{map[string]any{"name": "velero", "namespace": veleroNS}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedRevision": "v1.2.44", "conditions": conds(
			cond("Ready", "False", "DependencyNotReady", "dependency '"+veleroNS+"/velero' is not ready", 30*time.Second, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	if rc := wantObjectCause(t, res, ref(helmReleases, veleroNS, "velero"), ""); rc != nil && !contains(rc.HeldBack, rabbitNS+"/rabbitmq") {
		t.Errorf("velero's cause does not hold back %s/rabbitmq: %v", rabbitNS, rc.HeldBack)
	}
	if rc := causeByObject(res, ref(helmReleases, rabbitNS, "rabbitmq")); rc != nil {
		t.Errorf("rabbitmq is a root cause (%s); it waits on velero", rc.Reason)
	}
}

// C16 https://github.com/fluxcd/flux2/issues/4524: after upgrading Flux 2.1 to 2.2.2 HelmReleases
// that depend on cert-manager and ingress-nginx wait forever although both say Ready "Helm
// upgrade succeeded": their status.observedGeneration was left behind their generation (the
// Ready condition's own observedGeneration moved; the same defect as helm-controller#946), and
// helm-controller's dependency check compares the status field (helmrelease_controller.go:652-656;
// DependencyNotReady at :258). Fixed by `flux reconcile hr --force` on the dependencies. The
// report's excerpt does not name the waiting HelmReleases; "app" here, applied with the rest by
// "apps" (no wait).
// Diagnosis: cert-manager and ingress-nginx are the root causes (their status is not at their
// generation); app is held back by them.
// Open (first run: HEALTHY, exit 0): the same scope gap as C10: HelmReleases in their own
// namespaces are not read with -n, so a dependency whose status is behind its generation and the
// HelmRelease it holds back are invisible. With -A the cause is found.
func TestC16DependencyGenerationNotObserved(t *testing.T) {
	const ns, appNS = "c16-flux-system", "c16-apps"
	r := newReplay(t, ns, appNS)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "apps",
		spec:   map[string]any{"interval": "10m0s", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+sshRev, time.Minute, 1))}})
	chart := func(name string) map[string]any {
		return map[string]any{"spec": map[string]any{"chart": name, "sourceRef": map[string]any{"kind": "HelmRepository", "name": name, "namespace": ns}}}
	}
	for _, dep := range []struct{ name, version string }{{"cert-manager", "v1.13.1"}, {"ingress-nginx", "4.8.3"}} {
		// generation 2 after the upgrade's spec migration; the Ready condition observed it, the
		// status field did not
		r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: dep.name, labels: appliedBy(ns, "apps"),
			spec:        map[string]any{"interval": "10m", "chart": chart(dep.name)},
			specChanges: []map[string]any{{"upgrade": map[string]any{"crds": "CreateReplace"}}},
			status: map[string]any{"observedGeneration": int64(1), "lastAttemptedRevision": dep.version, "conditions": conds(
				cond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded", 10*time.Minute, 2),
				cond("Released", "True", "UpgradeSucceeded", "Helm upgrade succeeded", 10*time.Minute, 2))}})
	}
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: "app", labels: appliedBy(ns, "apps"),
		spec: map[string]any{"interval": "10m", "chart": chart("app"),
			"dependsOn": []any{map[string]any{"name": "cert-manager"}, map[string]any{"name": "ingress-nginx"}}},
		status: map[string]any{"observedGeneration": int64(1), "conditions": conds(
			cond("Ready", "False", "DependencyNotReady", "dependency '"+appNS+"/cert-manager' is not ready", 30*time.Second, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	if rc := wantObjectCause(t, res, ref(helmReleases, appNS, "cert-manager"), ""); rc != nil && !contains(rc.HeldBack, appNS+"/app") {
		t.Errorf("cert-manager's cause does not hold back %s/app: %v", appNS, rc.HeldBack)
	}
	if rc := causeByObject(res, ref(helmReleases, appNS, "app")); rc != nil {
		t.Errorf("app is a root cause (%s); it waits on its dependencies", rc.Reason)
	}
}
