package lint_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/lint"
)

// A CRD installed outside Flux is present before any tier: each bootstrap path the repository
// shows makes the clean platform's ClusterIssuer verifiable, and the not-verifiable note goes.
// What cannot be read offline (a URL) or is not applied (a CRD in a path Flux builds but no
// kustomization lists) leaves the note, which names the group and how to declare it.
func TestBootstrapCRDs(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		note  string // "" when the ClusterIssuer is verifiable; else text the note holds
	}{
		{"none", nil, "--crds cert-manager.io"},
		{"script applies a file", map[string]string{
			"scripts/bootstrap.sh": "#!/bin/sh\nset -e\nkubectl apply --server-side -f ../crds/issuer.yaml\n",
			"crds/issuer.yaml":     issuerCRD}, ""},
		{"Makefile applies a directory from the top", map[string]string{
			"Makefile":              "bootstrap:\n\tkubectl apply -f bootstrap/crds\n",
			"bootstrap/crds/x.yaml": issuerCRD}, ""},
		{"helmfile hook waits for the CRD", map[string]string{
			"bootstrap/helmfile.yaml": "releases:\n  - name: cert-manager\n    namespace: cert-manager\n    chart: jetstack/cert-manager\n    hooks:\n      - events: [postsync]\n        command: kubectl\n        args: [wait, --for=create, crd/clusterissuers.cert-manager.io]\n"}, ""},
		{"justfile waits for the CRD", map[string]string{
			".justfile": "crds:\n    kubectl wait --for condition=Established crd/clusterissuers.cert-manager.io\n"}, ""},
		{"Talos inline manifest", map[string]string{
			"talos/patches/crds.yaml": "cluster:\n  inlineManifests:\n    - name: issuer-crd\n      contents: |\n" + indent(issuerCRD, "        ")}, ""},
		{"manifests directory outside Flux", map[string]string{
			"k3s/server/manifests/issuer-crd.yaml": issuerCRD}, ""},
		{"URL is not read", map[string]string{
			"Taskfile.yaml": "version: '3'\ntasks:\n  crds:\n    cmds:\n      - kubectl apply -f https://github.com/example/releases/download/v1/crds.yaml\n"},
			"https://github.com/example/releases/download/v1/crds.yaml (kubectl in Taskfile.yaml)"},
		{"CRD in a Flux path no kustomization lists", map[string]string{
			"apps/wave-0/unused-crd.yaml": issuerCRD}, "--crds cert-manager.io"},
		{"kubectl in a file Flux applies", map[string]string{
			"apps/wave-0/job.yaml": "# kubectl wait crd/clusterissuers.cert-manager.io\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"},
			"--crds cert-manager.io"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPlatform()
			for k, v := range c.files {
				p[k] = v
			}
			var notes []string
			for _, f := range lint.Run(load(t, p)) {
				if f.Rule == "crd-order" {
					if f.Severity != lint.Info {
						t.Errorf("crd-order %s, want a note at most: %s", f.Severity, f.Message)
					}
					notes = append(notes, f.Message)
				}
			}
			switch {
			case c.note == "" && len(notes) > 0:
				t.Errorf("notes %v, want the ClusterIssuer verifiable", notes)
			case c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.note)):
				t.Errorf("notes %v, want one holding %q", notes, c.note)
			}
		})
	}
}

// A CRD bootstrap installs is present in every tier: the seeded crd-order warning (the CRD in a
// tier the custom resource does not depend on) goes when bootstrap also applies it.
func TestBootstrapBeforeTier(t *testing.T) {
	p := newPlatform()
	p["apps/wave-0/crd.yaml"] = issuerCRD
	p.replace(t, "apps/wave-0/kustomization.yaml", "  - web.yaml", "  - web.yaml\n  - crd.yaml")
	if fs := crdOrder(lint.Run(load(t, p))); len(fs) != 1 || fs[0].Severity != lint.Warning {
		t.Fatalf("without bootstrap: %v, want one warning", fs)
	}
	p["bootstrap/apply.sh"] = "kubectl apply -f ../apps/wave-0/crd.yaml\n"
	if fs := crdOrder(lint.Run(load(t, p))); len(fs) != 0 {
		t.Errorf("with bootstrap: %v", fs)
	}
}

func crdOrder(fs []lint.Finding) []lint.Finding {
	var out []lint.Finding
	for _, f := range fs {
		if f.Rule == "crd-order" {
			out = append(out, f)
		}
	}
	return out
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

// A finding about an object written in flow style has its line, as one in block style does.
func TestFlowStyleLine(t *testing.T) {
	p := newPlatform()
	p["apps/wave-0/crd.yaml"] = issuerCRD
	p.replace(t, "apps/wave-0/kustomization.yaml", "  - web.yaml", "  - web.yaml\n  - crd.yaml")
	p["infra/platform-config/issuer.yaml"] = "# the issuer\n---\n{apiVersion: cert-manager.io/v1, kind: ClusterIssuer, metadata: {name: letsencrypt}, spec: {acme: {server: 'https://acme.example.com'}}}\n"
	fs := crdOrder(lint.Run(load(t, p)))
	if len(fs) != 1 || fs[0].Location() != "infra/platform-config/issuer.yaml:3" {
		for _, f := range fs {
			t.Logf("%s %s", f.Location(), f.Message)
		}
		t.Fatalf("%d crd-order findings, want one at infra/platform-config/issuer.yaml:3", len(fs))
	}
}
