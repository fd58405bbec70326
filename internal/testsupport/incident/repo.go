package incident

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The files of the incident's GitOps repository that matter to safe-retire.
const (
	ClaimFile      = "k8s/apps/headlamp/persistent-volume-claim.yaml"
	DeploymentFile = "k8s/apps/headlamp/deployment.yaml"
	appsKustomize  = "k8s/apps/kustomization.yaml"
)

// KustomizationManifest is a Flux Kustomization manifest reading path from the flux-system source.
func KustomizationManifest(ns, name, path string, prune bool) string {
	return fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: %s
spec:
  interval: 10m
  timeout: 20m
  path: %s
  prune: %t
  wait: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`, name, ns, path, prune)
}

// ClaimManifest is a 256Mi claim manifest; annotations are "key: value" lines.
func ClaimManifest(ns, name string, annotations ...string) string {
	ann := ""
	if len(annotations) > 0 {
		ann = "  annotations:\n"
		for _, a := range annotations {
			ann += "    " + a + "\n"
		}
	}
	return fmt.Sprintf(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: %s
  namespace: %s
%sspec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 256Mi
`, name, ns, ann)
}

// DeploymentManifest is the headlamp Deployment, mounting the claim as plugins-dir or not.
func DeploymentManifest(ns string, mounts bool) string {
	vols := ""
	if mounts {
		vols = `      volumes:
      - name: plugins-dir
        persistentVolumeClaim:
          claimName: headlamp
`
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: headlamp
  namespace: %s
spec:
  selector:
    matchLabels: {app: headlamp}
  template:
    metadata:
      labels: {app: headlamp}
    spec:
      containers:
      - name: headlamp
        image: ghcr.io/headlamp-k8s/headlamp:v0.30.0
%s`, ns, vols)
}

// ConfigMapManifest is a one-key ConfigMap manifest.
func ConfigMapManifest(ns, name string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  a: b\n", name, ns)
}

// RepoFiles is the incident's GitOps repository: every tier of the seeded chain (Chain) has a
// path, and ./k8s/apps declares the headlamp namespace, Deployment and claim.
func RepoFiles() map[string]string {
	files := map[string]string{
		"clusters/prod/apps.yaml": KustomizationManifest(FluxNS, AppsKS, "./k8s/apps", true),
		appsKustomize:             "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- namespace.yaml\n- headlamp/deployment.yaml\n- headlamp/persistent-volume-claim.yaml\n",
		"k8s/apps/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: headlamp\n",
		DeploymentFile:            DeploymentManifest(Namespace, true),
		ClaimFile:                 ClaimManifest(Namespace, Claim),
	}
	for _, tier := range Chain() {
		if tier.Name != AppsKS {
			files["k8s/"+tier.Name+"/settings.yaml"] = ConfigMapManifest("default", tier.Name+"-settings")
		}
	}
	return files
}

// ClaimRemoval is the change of #2741: the claim's manifest deleted (an empty content means
// delete the file) and dropped from the kustomization.
func ClaimRemoval() map[string]string {
	return map[string]string{
		ClaimFile:     "",
		appsKustomize: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- namespace.yaml\n- headlamp/deployment.yaml\n",
	}
}

// WriteFiles writes files under dir; an empty content removes the file, which must exist.
func WriteFiles(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if content == "" {
			if err := os.Remove(p); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// InitRepo makes dir a git repository holding RepoFiles in one commit on branch main.
func InitRepo(dir string) error {
	if err := WriteFiles(dir, RepoFiles()); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=demo", "-c", "user.email=demo@example.com", "commit", "-q", "-m", "platform"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return nil
}
