package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// coTenant is a second Deployment named name that runs as the service account of the first
// object of base (a controllerObjects Deployment), with its own name, labels and image.
func coTenant(base []runtime.Object, name string) runtime.Object {
	d := base[0].(*appsv1.Deployment).DeepCopy()
	d.Name = name
	d.Labels = map[string]string{"app.kubernetes.io/name": name}
	d.Spec.Template.Spec.Containers[0].Image = "registry.example/" + name + ":v1"
	return d
}

// Two workloads running as one service account share its rights: the one whose own name, image
// and labels name the finalizer's domain most specifically is the remover, and the other is listed
// apart as sharing its account, not as "one of 2 workloads" (kubeblocks#10348). Two co-tenants
// equal by their own evidence stay side by side.
func TestCoTenantOfTheRemoversAccount(t *testing.T) {
	res := kinds.Resource{Group: "dataprotection.blocks.example.io", Version: "v1", Resource: "backups", Kind: "Backup", Namespaced: true}
	fin := "dataprotection.blocks.example.io/finalizer"
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "b1", Namespace: "demo", Finalizers: []string{fin}}}
	rules := []rbacv1.PolicyRule{{APIGroups: []string{"dataprotection.blocks.example.io"}, Resources: []string{"backups", "backups/finalizers"}, Verbs: []string{"*"}},
		{APIGroups: []string{"apps.blocks.example.io"}, Resources: []string{"clusters"}, Verbs: []string{"*"}}}
	crds := crdObject("dataprotection.blocks.example.io", "backups")
	base := controllerObjects("blocks-system", "blocks", rules)

	t.Run("the co-tenant names the domain less specifically", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), base...), coTenant(base, "blocks-dataprotection")), crds)
		f := x.knownOrCustom(context.Background(), o, fin)
		if len(f.Controllers) != 1 || f.Controllers[0].Object.Name != "blocks-dataprotection" {
			t.Fatalf("controllers = %+v", f.Controllers)
		}
		if len(f.Unrelated) != 1 || f.Unrelated[0].Object.Name != "blocks" || !strings.Contains(f.Unrelated[0].Note, "shares its account serviceaccounts/blocks -n blocks-system with deployments.apps/blocks-dataprotection -n blocks-system") {
			t.Fatalf("unrelated = %+v", f.Unrelated)
		}
		if strings.Contains(f.Attribution, "one of 2") || !strings.Contains(f.Attribution, "deployments.apps/blocks -n blocks-system shares its account and is listed apart") {
			t.Errorf("attribution = %q", f.Attribution)
		}
	})
	t.Run("co-tenants equal by their own evidence stay side by side", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), base...), coTenant(base, "blocks-worker")), crds)
		f := x.knownOrCustom(context.Background(), o, fin)
		if len(f.Controllers) != 2 || len(f.Unrelated) != 0 {
			t.Fatalf("controllers = %+v, unrelated = %+v", f.Controllers, f.Unrelated)
		}
	})
}
