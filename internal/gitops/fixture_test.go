package gitops

import (
	"sort"
	"testing"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// fixture is the repository most build tests use (gitopsfixture.Repo).
var fixture = gitopsfixture.Repo()

func pvc(name, namespace string) string { return gitopsfixture.PVC(name, namespace) }

func ksYAML(path, spec string) string { return gitopsfixture.KustomizationYAML(path, spec) }

// fluxKS reads a Flux Kustomization written as YAML.
func fluxKS(t *testing.T, manifest string) kbuild.Kustomization {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	kss, err := kbuild.KustomizationsIn([]*unstructured.Unstructured{u})
	if err != nil || len(kss) != 1 {
		t.Fatalf("%d Kustomizations, err %v", len(kss), err)
	}
	return kss[0]
}

// ids are the inventory ids of objs, sorted.
func ids(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, kbuild.ObjectID(o))
	}
	sort.Strings(out)
	return out
}
