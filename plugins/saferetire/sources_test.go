package saferetire_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// offlineGate runs `safe-retire --dry-run --offline` on dir from base to the working tree.
func offlineGate(t *testing.T, dir, entry, base string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := saferetire.NewCmdSafeRetire(streams, func(string) string { return "" })
	code := cli.Run(ctx, cmd, []string{"--dry-run", "--offline", "--repo", dir, "--path", entry, "--base", base}, &errOut)
	return out.String(), errOut.String(), code
}

func outputHas(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q\n%s", w, out)
		}
	}
}

// externalArtifactRepo is laid out as fluxcd/flux2-kustomize-helm-example is since Flux 2.7
// (https://github.com/fluxcd/flux2-kustomize-helm-example/tree/4f1a5b1, clusters/production/
// artifacts.yaml): an ArtifactGenerator splits the repository's GitRepository into
// ExternalArtifacts and the Kustomizations read paths relative to those artifacts. Before
// ArtifactGenerators were followed, removing the claim below said "Nothing is removed … SAFE".
var externalArtifactRepo = map[string]string{
	"clusters/production/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://github.com/example/fleet
`,
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
  artifacts:
    - name: apps
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/apps/base/**"
          to: "@artifact/base/"
        - from: "@monorepo/apps/production/**"
          to: "@artifact/production/"
`,
	"clusters/production/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 1h
  sourceRef:
    kind: ExternalArtifact
    name: apps
  path: ./production
  prune: true
  wait: true
`,
	"apps/base/podinfo/kustomization.yaml": "namespace: podinfo\nresources:\n- namespace.yaml\n- data.yaml\n",
	"apps/base/podinfo/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: podinfo\n",
	"apps/base/podinfo/data.yaml": `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: podinfo-data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`,
	"apps/production/kustomization.yaml": "resources:\n- ../base/podinfo\n",
}

func TestExternalArtifactClaimRemoval(t *testing.T) {
	r := gittest.New(t, externalArtifactRepo)
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{
		"apps/base/podinfo/kustomization.yaml": "namespace: podinfo\nresources:\n- namespace.yaml\n",
		"apps/base/podinfo/data.yaml":          "",
	})
	out, errOut, code := offlineGate(t, r.Dir, "clusters/production", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "Kustomization flux-system/apps", "PersistentVolumeClaim podinfo/podinfo-data (apps/base/podinfo/data.yaml)", "verdict: UNSAFE (exit 1)")
}

// resourceSetRepo drives apps through a Flux Operator ResourceSet, as the operator's ResourceSet
// API documents one (https://github.com/controlplaneio-fluxcd/flux-operator/blob/main/docs/api/v1/resourceset.md):
// one claim per inline input. Renaming an input renders another claim, and the operator
// deletes the old one.
func resourceSetRepo(apps string) map[string]string {
	return map[string]string{
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
  name: apps
  namespace: flux-system
spec:
  inputs:
` + apps + `
  resources:
    - apiVersion: v1
      kind: PersistentVolumeClaim
      metadata:
        name: << inputs.app >>-data
        namespace: apps
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: 1Gi
`,
	}
}

func TestResourceSetInputRename(t *testing.T) {
	r := gittest.New(t, resourceSetRepo("    - app: grafana\n    - app: loki\n"))
	base := r.Git("rev-parse", "HEAD")

	t.Run("a rename deletes the old claim", func(t *testing.T) {
		r.Write(resourceSetRepo("    - app: grafana-v2\n    - app: loki\n"))
		defer r.Git("checkout", "-q", "--", ".")
		out, errOut, code := offlineGate(t, r.Dir, "clusters/main", base)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
		}
		outputHas(t, out, "flux-system/apps", "PersistentVolumeClaim apps/grafana-data", "verdict: UNSAFE (exit 1)")
	})
	t.Run("inputs from pull requests are unknown", func(t *testing.T) {
		files := resourceSetRepo("    - app: grafana\n")
		files["apps/apps.yaml"] = strings.Replace(files["apps/apps.yaml"], "spec:\n  inputs:", "spec:\n  inputsFrom:\n    - kind: ResourceSetInputProvider\n      name: pulls\n  inputs:", 1) +
			"---\napiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSetInputProvider\nmetadata:\n  name: pulls\n  namespace: flux-system\nspec:\n  type: GitHubPullRequest\n  url: https://github.com/example/app\n"
		r.Write(files)
		defer r.Git("checkout", "-q", "--", ".")
		out, errOut, code := offlineGate(t, r.Dir, "clusters/main", base)
		if code != 2 {
			t.Fatalf("exit %d, want 2 (UNKNOWN)\n%s\n%s", code, out, errOut)
		}
		outputHas(t, out, "ResourceSetInputProvider flux-system/pulls is of type GitHubPullRequest")
	})
}
