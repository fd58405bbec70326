//go:build heldback

package fluxchain_test

// The held-back third of the Flux corpus (SELECTION.txt): written like the development cases,
// never run by their author nor read by anyone developing flux-chain; the lead runs them once,
// at the end (`go test -tags heldback ./test/corpus/fluxchain/`).
//
// Controller sources cited: the commits named in development_test.go.

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/testsupport/fluxcontrollers"
)

// C08 https://github.com/fluxcd/flux2/issues/4861: the flux-system GitRepository fails
// ("failed to checkout and determine revision: unable to list remote for '...': authorization
// failed": the access token no longer works for Flux) while both Kustomizations still say
// Ready, "Applied revision: master@sha1:313444...", from the artifact stored before.
// source-controller: gitrepository_controller.go:1066-1073 (GitOperationFailed, FetchFailed),
// summarized into Ready=False; the last artifact stays in status.
// Diagnosis: the GitRepository is failing (GitOperationFailed) and is the root cause; nothing new
// reaches the cluster. FAILING, exit 1; the Kustomizations are not causes of their own.
func TestC08SourceAuthFailsUnderReadyKustomizations(t *testing.T) {
	const ns = "c08-flux-system"
	r := newReplay(t, ns)
	rev := "master@sha1:3134440aa1b2c3d4e5f60718293a4b5c6d7e8f90"
	url := "https://gitlab.example.com/group/project/flux/flux2.git"
	msg := "failed to checkout and determine revision: unable to list remote for '" + url + "': authorization failed"
	r.secret(ns, "flux-system", map[string][]byte{"username": []byte("git"), "password": []byte("token")})
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system", labels: appliedBy(ns, "flux-system"),
		spec: map[string]any{"interval": "1m0s", "url": url, "ref": map[string]any{"branch": "master"}, "secretRef": map[string]any{"name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/3134440.tar.gz", rev), "conditions": conds(
			cond("Ready", "False", "GitOperationFailed", msg, 40*time.Second, 1),
			cond("FetchFailed", "True", "GitOperationFailed", msg, 40*time.Second, 1))}})
	for _, name := range []string{"flux-system", "tenants"} {
		r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: name, labels: appliedBy(ns, "flux-system"),
			spec: map[string]any{"interval": "10m0s", "path": "./clusters/" + name, "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
			status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": rev, "lastAttemptedRevision": rev, "conditions": conds(
				cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev, time.Minute, 1))}})
	}

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	wantObjectCause(t, res, ref(gitRepositories, ns, "flux-system"), "GitOperationFailed")
	wantNotACause(t, res, ns+"/flux-system")
	wantNotACause(t, res, ns+"/tenants")
}

// C09 https://github.com/fluxcd/flux2-kustomize-helm-example/issues/43: `flux get all` shows
// helmchart/podinfo-podinfo "failed to retrieve source: HelmRepository... "podinfo" not found"
// and helmrelease/podinfo "HelmChart 'flux-system/podinfo-podinfo' is not ready"; the
// HelmRepository was never applied (bootstrapped with the wrong path). source-controller:
// helmchart_controller.go:438-444 (SourceUnavailable, "failed to get source: %w", FetchFailed),
// summarized into Ready=False. helm-controller: helmrelease_controller.go:298-301 with isReady
// at :883-:887 (SourceNotReady). The Kustomization that applies the HelmRelease ("apps", no wait)
// is Ready.
// Diagnosis: the missing HelmRepository flux-system/podinfo is the root cause; the HelmChart and
// the HelmRelease only wait on it.
func TestC09HelmRepositoryNotFound(t *testing.T) {
	const ns, appNS = "c09-flux-system", "c09-podinfo"
	r := newReplay(t, ns, appNS)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "apps",
		spec:   map[string]any{"interval": "10m0s", "path": "./apps/staging", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+sshRev, time.Minute, 1))}})
	chartName := appNS + "-podinfo"
	chartMsg := "failed to get source: helmrepositories.source.toolkit.fluxcd.io \"podinfo\" not found"
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmChart", ns: ns, name: chartName,
		spec: map[string]any{"interval": "1m", "chart": "podinfo", "version": ">=5.0.0 <6.0.0", "reconcileStrategy": "ChartVersion",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo"}},
		status: map[string]any{"observedGeneration": int64(1), "conditions": conds(
			cond("Ready", "False", "SourceUnavailable", chartMsg, 2*time.Minute, 1),
			cond("FetchFailed", "True", "SourceUnavailable", chartMsg, 2*time.Minute, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: "podinfo", labels: appliedBy(ns, "apps"),
		spec: map[string]any{"interval": "5m", "chart": map[string]any{"spec": map[string]any{"chart": "podinfo", "version": ">=5.0.0 <6.0.0",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo", "namespace": ns}}}},
		status: map[string]any{"observedGeneration": int64(1), "helmChart": ns + "/" + chartName, "conditions": conds(
			cond("Ready", "False", "SourceNotReady", "HelmChart '"+ns+"/"+chartName+"' is not ready: "+chartMsg, time.Minute, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	wantObjectCause(t, res, ref(helmRepositories, ns, "podinfo"), "")
	for _, notCause := range []string{ref(helmCharts, ns, chartName), ref(helmReleases, appNS, "podinfo")} {
		if rc := causeByObject(res, notCause); rc != nil {
			t.Errorf("%s is a root cause (%s); it waits on the missing HelmRepository", notCause, rc.Reason)
		}
	}
}

// C11 https://github.com/fluxcd/kustomize-controller/issues/683: a Kustomization with SOPS
// decryption fails with "Secret forbidden, error: data values must be of type string", which
// reads like a decryption problem; the cause is its spec.serviceAccountName: the ServiceAccount
// exists but may not create the Secret. kustomize-controller: the apply error as
// kustomization_controller.go:475-476 records it (ReconciliationFailed). The report's example
// repository names are not in the excerpt; "secrets" and ServiceAccount "tenant" here.
// Diagnosis: the Kustomization fails for a reason of its own (ReconciliationFailed); its
// ServiceAccount exists, so a missing ServiceAccount is not the cause.
func TestC11ServiceAccountForbidden(t *testing.T) {
	const ns = "c11-flux-system"
	r := newReplay(t, ns)
	r.serviceAccount(ns, "tenant")
	r.secret(ns, "sops-gpg", map[string][]byte{"sops.asc": []byte("-----BEGIN PGP PRIVATE KEY BLOCK-----")})
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://github.com/scott-grimes/fluxErrorRepo"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "secrets",
		spec: map[string]any{"interval": "1m", "path": "./secrets", "prune": true, "serviceAccountName": "tenant",
			"decryption": map[string]any{"provider": "sops", "secretRef": map[string]any{"name": "sops-gpg"}},
			"sourceRef":  map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedRevision": sshRev, "conditions": conds(
			cond("Ready", "False", "ReconciliationFailed", "Secret/"+ns+"/mysecret forbidden, error: data values must be of type string", 30*time.Second, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	if rc := causeByKustomization(res, ns+"/secrets"); rc == nil || rc.Reason != "ReconciliationFailed" {
		t.Errorf("Kustomization %s/secrets is not the root cause for ReconciliationFailed: %v", ns, causeObjects(res))
	}
	for _, rc := range res.RootCauses {
		if strings.HasPrefix(rc.Object, "serviceaccounts/") || strings.HasPrefix(rc.Object, "secrets/") {
			t.Errorf("root cause %s (%s): the ServiceAccount and the decryption Secret exist", rc.Object, rc.Reason)
		}
	}
}

// C12 https://github.com/fluxcd/helm-controller/issues/289: a HelmRelease (clearml) says
// "install retries exhausted" and `flux check` says "✗ helm-controller: deployment not ready"
// (every other controller ready). helm-controller v0.11 wrote Ready=False InstallFailed "install
// retries exhausted" (v2beta1); the HelmRepository allegroai is Ready. The Kustomization that
// applies them ("apps", no wait) is not in the report.
// Diagnosis: helm-controller is down, so the HelmRelease's status is not being kept: STALE
// (exit 2), naming helm-controller as not up.
func TestC12HelmControllerNotReady(t *testing.T) {
	const ns, appNS = "c12-flux-system", "c12-clearml"
	r := newReplay(t, ns, appNS)
	r.controller("helm-controller", fluxcontrollers.State{Down: true, Since: time.Now().Add(-6 * time.Hour)})
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "apps",
		spec:   map[string]any{"interval": "10m0s", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+sshRev, time.Minute, 1))}})
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmRepository", ns: ns, name: "allegroai", labels: appliedBy(ns, "apps"),
		spec:   map[string]any{"interval": "10m", "url": "https://allegroai.github.io/clearml-server-helm-cloud-ready"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("helmrepository/"+ns+"/allegroai/index-9f8e.yaml", "sha256:9f8e7d"), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact: revision 'sha256:9f8e7d'", time.Minute, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: "clearml", labels: appliedBy(ns, "apps"),
		spec: map[string]any{"interval": "5m", "releaseName": "clearml", "chart": map[string]any{"spec": map[string]any{"chart": "clearml-server-cloud-ready",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "allegroai", "namespace": ns}}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedReleaseAction": "install", "installFailures": int64(1), "failures": int64(1), "conditions": conds(
			cond("Ready", "False", "InstallFailed", "install retries exhausted", 6*time.Hour, 1),
			cond("Released", "False", "InstallFailed", "Helm install failed: timed out waiting for the condition", 6*time.Hour, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "STALE", 2)
	found := false
	if res.Liveness != nil {
		for _, c := range res.Liveness.Controllers {
			if c.Name == "helm-controller" {
				found = true
				if c.Up {
					t.Errorf("helm-controller reported up: %+v", c)
				}
			}
		}
	}
	if !found {
		t.Errorf("helm-controller is not among the controllers judged: %+v", res.Liveness)
	}
}

// C14 https://github.com/fluxcd/helm-controller/issues/1409: a HelmRelease stays Ready=Unknown
// "Running 'install' action with timeout of 5m0s" indefinitely although the release is
// deployed (history "deployed", event InstallSucceeded, later reconciliations "release in-sync";
// the install's Released=True was written, Ready was not). `flux reconcile helmrelease --force`
// clears it. helm-controller: internal/reconcile/atomic_release.go:249-258 (Ready=Unknown and
// Reconciling=True, Progressing, "Running '%s' action with timeout of %s") and :206-216
// (Released=True InstallSucceeded). The Kustomization that applies it ("apps", no wait) is not
// in the report.
// Diagnosis: not progress: the 5m timeout ran out hours ago, so the HelmRelease is stuck and
// needs action; it is named, and the run is neither HEALTHY nor PROGRESSING.
func TestC14ReleaseStuckProgressing(t *testing.T) {
	const ns, appNS = "c14-flux-system", "c14-example-app"
	r := newReplay(t, ns, appNS)
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "apps",
		spec:   map[string]any{"interval": "10m0s", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+sshRev, time.Minute, 1))}})
	started := 3 * time.Hour
	installed := "Helm install succeeded for release " + appNS + "/example-release.v1 with chart example-chart-name@0.0.1"
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: "example-release", labels: appliedBy(ns, "apps"),
		spec: map[string]any{"interval": "10m", "timeout": "5m0s", "chart": map[string]any{"spec": map[string]any{"chart": "example-chart-name", "version": "0.0.1",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "example", "namespace": ns}}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedReleaseAction": "install", "conditions": conds(
			cond("Ready", "Unknown", "Progressing", "Running 'install' action with timeout of 5m0s", started, 1),
			cond("Reconciling", "True", "Progressing", "Running 'install' action with timeout of 5m0s", started, 1),
			cond("Released", "True", "InstallSucceeded", installed, started-2*time.Minute, 1)),
			"history": []any{map[string]any{"name": "example-release", "namespace": appNS, "version": int64(1), "status": "deployed",
				"chartName": "example-chart-name", "chartVersion": "0.0.1", "appVersion": "1.0.0",
				"configDigest":  "sha256:e15c415d62760896bd8bec192a44c5716dc224db9e0fc609b9ac14718f8f9e56",
				"digest":        "sha256:60770b7d040612283cc8931f8b67fd34d446d3b5316949e7a8803de05b448599",
				"firstDeployed": time.Now().Add(-started).UTC().Format(time.RFC3339), "lastDeployed": time.Now().Add(-started).UTC().Format(time.RFC3339)}}}})

	res, code := diagnose(t, "-n", ns)
	if code == 0 || res.Verdict == "HEALTHY" || res.Verdict == "PROGRESSING" {
		t.Errorf("verdict %s, exit %d: an install 3h into a 5m timeout is not progress", res.Verdict, code)
	}
	hr := ref(helmReleases, appNS, "example-release")
	named := causeByObject(res, hr) != nil
	if res.Liveness != nil {
		for _, s := range res.Liveness.Stale {
			if s.Object == hr {
				named = true
			}
		}
	}
	if !named {
		t.Errorf("the stuck HelmRelease %s is named neither as a root cause nor as a stale status: %v", hr, causeObjects(res))
	}
	for _, p := range res.Progressing {
		if p.Object == hr {
			t.Errorf("the stuck HelmRelease is listed as progressing: %+v", p.Progress)
		}
	}
}

// C15 https://github.com/fluxcd/helm-controller/issues/373: after helm-controller's pods
// restarted (exit code 1, Error), HelmReleases show "upgrade retries exhausted" (Flux v0.24,
// v2beta1: Ready=False UpgradeFailed); the interrupted upgrades counted as failures. The
// controller runs again. The report's screenshots name no HelmRelease; "app" here, applied by
// "apps" (no wait).
// Diagnosis: the HelmRelease is the root cause (UpgradeFailed, retries exhausted: it will not
// retry by itself), and the controller's restarts are reported as the evidence of why.
func TestC15ControllerRestartExhaustsRetries(t *testing.T) {
	const ns, appNS = "c15-flux-system", "c15-apps"
	r := newReplay(t, ns, appNS)
	r.controller("helm-controller", fluxcontrollers.State{Restarts: 3, LastReason: "Error", LastExit: 1, Since: time.Now().Add(-20 * time.Minute)})
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system",
		spec:   map[string]any{"interval": "1m0s", "url": "https://example.com/fleet.git"},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/8dbdd04.tar.gz", sshRev), "conditions": conds(cond("Ready", "True", "Succeeded", "stored artifact for revision '"+sshRev+"'", time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "apps",
		spec:   map[string]any{"interval": "10m0s", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": sshRev, "lastAttemptedRevision": sshRev, "conditions": conds(cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+sshRev, time.Minute, 1))}})
	r.create(object{apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", ns: appNS, name: "app", labels: appliedBy(ns, "apps"),
		spec: map[string]any{"interval": "5m", "chart": map[string]any{"spec": map[string]any{"chart": "app",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts", "namespace": ns}}},
			"upgrade": map[string]any{"remediation": map[string]any{"retries": int64(3)}}},
		status: map[string]any{"observedGeneration": int64(1), "lastAttemptedReleaseAction": "upgrade", "upgradeFailures": int64(4), "failures": int64(4), "conditions": conds(
			cond("Ready", "False", "UpgradeFailed", "upgrade retries exhausted", 15*time.Minute, 1),
			cond("Released", "False", "UpgradeFailed", "Helm upgrade failed: context canceled", 15*time.Minute, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	wantObjectCause(t, res, ref(helmReleases, appNS, "app"), "UpgradeFailed")
	restarts := int32(-1)
	if res.Liveness != nil {
		for _, c := range res.Liveness.Controllers {
			if c.Name == "helm-controller" {
				restarts = c.Restarts
			}
		}
	}
	if restarts < 1 {
		t.Errorf("helm-controller's restarts are not reported (%d): %+v", restarts, res.Liveness)
	}
}

// C18 https://github.com/fluxcd/flux2/issues/1545: following the getting-started guide, the
// Kustomization podinfo says "Source is not ready, artifact not found" while `flux get sources
// all` shows gitrepository/datadog failing ("unable to clone 'ssh://git@github.com/****/flux-22',
// error: error creating SSH agent: "SSH agent requested but SSH_AUTH_SOCK not-specified"") and
// gitrepository/flux-system Ready with the Kustomization flux-system applied from it. podinfo
// reads datadog (flux-system has an artifact; a missing source would say "not found").
// source-controller: gitrepository_controller.go:1066-1073 (GitOperationFailed), summarized
// into Ready=False; no artifact. kustomize-controller: kustomization_controller.go:235-237.
// Diagnosis: the GitRepository datadog is the root cause (GitOperationFailed); podinfo waits on
// it; flux-system is untouched by it.
func TestC18SecondSourceFails(t *testing.T) {
	const ns = "c18-flux-system"
	r := newReplay(t, ns)
	rev := "main/bbea8280f1b7582c0874cbfad25d5cf93717aa7d"
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "flux-system", labels: appliedBy(ns, "flux-system"),
		spec:   map[string]any{"interval": "1m0s", "url": "ssh://git@github.com/user/fleet-infra", "secretRef": map[string]any{"name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "artifact": artifact("gitrepository/"+ns+"/flux-system/bbea828.tar.gz", rev), "conditions": conds(cond("Ready", "True", "Succeeded", "Fetched revision: "+rev, time.Minute, 1))}})
	r.secret(ns, "flux-system", map[string][]byte{"identity": []byte("-----BEGIN OPENSSH PRIVATE KEY-----")})
	cloneErr := "failed to checkout and determine revision: unable to clone 'ssh://git@github.com/****/flux-22', error: error creating SSH agent: \"SSH agent requested but SSH_AUTH_SOCK not-specified\""
	r.create(object{apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", ns: ns, name: "datadog", labels: appliedBy(ns, "flux-system"),
		spec: map[string]any{"interval": "1m0s", "url": "ssh://git@github.com/****/flux-22", "ref": map[string]any{"branch": "main"}},
		status: map[string]any{"observedGeneration": int64(1), "conditions": conds(
			cond("Ready", "False", "GitOperationFailed", cloneErr, 40*time.Second, 1),
			cond("FetchFailed", "True", "GitOperationFailed", cloneErr, 40*time.Second, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "flux-system", labels: appliedBy(ns, "flux-system"),
		spec: map[string]any{"interval": "10m0s", "path": "./clusters/my-cluster", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		status: map[string]any{"observedGeneration": int64(1), "lastAppliedRevision": rev, "lastAttemptedRevision": rev, "conditions": conds(
			cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev, time.Minute, 1))}})
	r.create(object{apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", ns: ns, name: "podinfo", labels: appliedBy(ns, "flux-system"),
		spec: map[string]any{"interval": "5m0s", "path": "./kustomize", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "datadog"}},
		status: map[string]any{"observedGeneration": int64(1), "conditions": conds(
			cond("Ready", "False", "ArtifactFailed", "Source artifact not found, retrying in 30s", 20*time.Second, 1))}})

	res, code := diagnose(t, "-n", ns)
	wantVerdict(t, res, code, "FAILING", 1)
	if rc := wantObjectCause(t, res, ref(gitRepositories, ns, "datadog"), "GitOperationFailed"); rc != nil {
		if !contains(rc.Tiers, ns+"/podinfo") {
			t.Errorf("the GitRepository's cause does not hold podinfo: tiers %v", rc.Tiers)
		}
		if contains(rc.Tiers, ns+"/flux-system") || contains(rc.BlastRadius, ns+"/flux-system") {
			t.Errorf("flux-system is put behind datadog: tiers %v, blast radius %v", rc.Tiers, rc.BlastRadius)
		}
	}
	wantNotACause(t, res, ns+"/podinfo")
	wantNotACause(t, res, ns+"/flux-system")
}
