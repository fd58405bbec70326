package fluxchain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// artifactKS is a Kustomization that reads an ExternalArtifact.
func artifactKS(name, artifact, path, dependsOn string) string {
	deps := ""
	if dependsOn != "" {
		deps = "  dependsOn:\n    - name: " + dependsOn + "\n"
	}
	return `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
` + deps + `  interval: 1h
  timeout: 5m
  sourceRef:
    kind: ExternalArtifact
    name: ` + artifact + `
  path: ` + path + `
  prune: true
  wait: true
`
}

// generatorRepo is laid out as fluxcd/flux2-kustomize-helm-example is since Flux 2.7
// (https://github.com/fluxcd/flux2-kustomize-helm-example/tree/4f1a5b1): clusters/production
// declares an ArtifactGenerator splitting the repository into the infrastructure and apps
// ExternalArtifacts, and the Kustomizations read paths inside them (./controllers,
// ./production). A third artifact comes from another repository.
var generatorRepo = map[string]string{
	"clusters/production/artifacts.yaml": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: flux-system
  namespace: flux-system
spec:
  sources:
    - alias: monorepo
      kind: GitRepository
      name: flux-system
    - alias: vendor
      kind: GitRepository
      name: vendor
  artifacts:
    - name: infrastructure
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/infrastructure/**"
          to: "@artifact/"
    - name: apps
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/apps/base/**"
          to: "@artifact/base/"
        - from: "@monorepo/apps/production/**"
          to: "@artifact/production/"
    - name: vendor
      copy:
        - from: "@vendor/deploy/**"
          to: "@artifact/"
`,
	"clusters/production/infrastructure.yaml": artifactKS("infra-controllers", "infrastructure", "./controllers", "") +
		artifactKS("infra-configs", "infrastructure", "./configs", "infra-controllers"),
	"clusters/production/apps.yaml":                 artifactKS("apps", "apps", "./production", "infra-configs"),
	"clusters/production/vendor.yaml":               artifactKS("vendor", "vendor", "./", ""),
	"infrastructure/controllers/kustomization.yaml": "resources:\n- namespace.yaml\n",
	"infrastructure/controllers/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cert-manager\n",
	"infrastructure/configs/issuer.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: issuer\n  namespace: cert-manager\n",
	"apps/base/podinfo/kustomization.yaml":          "resources:\n- cm.yaml\n",
	"apps/base/podinfo/cm.yaml":                     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: podinfo\n  namespace: default\n",
	"apps/production/kustomization.yaml":            "resources:\n- ../base/podinfo\n",
}

// TestRepoExternalArtifacts: the tiers an ArtifactGenerator makes from the repository are built
// through its copy rules (before, the repository's source was taken to be the ExternalArtifact
// most Kustomizations read, and every tier of the other artifact was "not covered" or its path
// "not found"); only the artifact from another repository stays not covered, named.
func TestRepoExternalArtifacts(t *testing.T) {
	dir := gittest.New(t, generatorRepo).Dir
	var out, errOut bytes.Buffer
	cmd := fluxchain.NewCmdFluxChain(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	code := cli.Run(context.Background(), cmd, []string{"--repo", dir, "-o", "json"}, &errOut)
	var res struct {
		NotCovered    []report.Gap      `json:"notCovered"`
		BuildFailures []json.RawMessage `json:"buildFailures"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out.String(), errOut.String())
	}
	if len(res.NotCovered) != 1 || res.NotCovered[0].Subject.Namespace != "flux-system" || res.NotCovered[0].Subject.Name != "vendor" ||
		res.NotCovered[0].What != "flux-system/vendor" || !strings.Contains(res.NotCovered[0].Error, "GitRepository/flux-system/vendor") {
		t.Errorf("notCovered = %q, want only flux-system/vendor naming its source", res.NotCovered)
	}
	if len(res.BuildFailures) != 0 || strings.Contains(out.String(), "path not found") {
		t.Errorf("tiers did not build:\n%s", out.String())
	}
}

// resourceSetRepo drives two apps through a Flux Operator ResourceSet that renders their
// Flux Kustomizations, as the operator's ResourceSet API documents
// (https://github.com/controlplaneio-fluxcd/flux-operator/blob/main/docs/api/v1/resourceset.md).
var resourceSetRepo = map[string]string{
	"clusters/main/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	"apps/apps.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: apps-rset
  namespace: flux-system
spec:
  inputs:
    - app: grafana
    - app: loki
  resources:
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata:
        name: << inputs.app >>
        namespace: flux-system
      spec:
        path: ./apps/<< inputs.app >>
        prune: true
        sourceRef:
          kind: GitRepository
          name: flux-system
`,
	"apps/grafana/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: grafana\n  namespace: monitoring\n",
	"apps/loki/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loki\n  namespace: monitoring\n",
}

// TestRepoResourceSetKustomizations: the Kustomizations a ResourceSet renders join the chain
// and are built.
func TestRepoResourceSetKustomizations(t *testing.T) {
	dir := gittest.New(t, resourceSetRepo).Dir
	var out, errOut bytes.Buffer
	cmd := fluxchain.NewCmdFluxChain(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	code := cli.Run(context.Background(), cmd, []string{"--repo", dir, "--path", "clusters/main"}, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"flux-system/grafana Declared path=apps/grafana", "flux-system/loki Declared path=apps/loki"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q\n%s", want, out.String())
		}
	}
}
