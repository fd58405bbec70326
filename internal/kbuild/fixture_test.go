package kbuild

import (
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// fixture is the repository most build tests use (gitopsfixture.Repo).
var fixture = gitopsfixture.Repo()

func pvc(name, namespace string) string { return gitopsfixture.PVC(name, namespace) }

func ksYAML(path, spec string) string { return gitopsfixture.KustomizationYAML(path, spec) }

// fluxKS reads a Flux Kustomization written as YAML.
func fluxKS(t *testing.T, manifest string) Kustomization {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	ks, err := kustomizationOf(u)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}
