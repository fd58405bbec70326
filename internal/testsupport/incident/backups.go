package incident

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// BackupGroup is one of the three groups that serve a kind named Backup, with how many
// objects the incident cluster holds of it.
type BackupGroup struct {
	Group, Version string
	Count          int
}

// BackupGroups are the three Backup kinds of the incident: `kubectl get backup -A` resolves to
// Longhorn's empty one while CloudNativePG and Velero hold 27 and 6.
var BackupGroups = []BackupGroup{
	{Group: "longhorn.io", Version: "v1beta2", Count: 0},
	{Group: "postgresql.cnpg.io", Version: "v1", Count: 27},
	{Group: "velero.io", Version: "v1", Count: 6},
}

// BackupCRDs returns the three CustomResourceDefinitions.
func BackupCRDs() []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	preserve := true
	for _, g := range BackupGroups {
		out = append(out, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "backups." + g.Group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: g.Group,
				Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "backups", Singular: "backup", Kind: "Backup", ListKind: "BackupList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: g.Version, Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: &preserve,
					}},
				}},
			},
		})
	}
	return out
}

// SeedBackups creates the Backup objects of each group (the CRDs must be Established),
// spread over two namespaces.
func SeedBackups(ctx context.Context, c *Clients) error {
	for _, ns := range []string{"databases", "velero"} {
		if err := ensureNamespace(ctx, c, ns); err != nil {
			return err
		}
	}
	for _, g := range BackupGroups {
		gvr := schema.GroupVersionResource{Group: g.Group, Version: g.Version, Resource: "backups"}
		ns := "databases"
		if g.Group == "velero.io" {
			ns = "velero"
		}
		for i := 0; i < g.Count; i++ {
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": g.Group + "/" + g.Version, "kind": "Backup",
				"metadata": map[string]any{"name": fmt.Sprintf("nightly-%02d", i), "namespace": ns},
				"spec":     map[string]any{},
			}}
			if _, err := c.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating backups.%s/%s -n %s: %w", g.Group, obj.GetName(), ns, err)
			}
		}
	}
	return nil
}

func ensureNamespace(ctx context.Context, c *Clients, name string) error {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	_, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

// UnavailableGroup is the aggregated API group SeedUnavailableAPIService registers.
const UnavailableGroup = "metrics.k8s.io"

// SeedUnavailableAPIService registers v1beta1.metrics.k8s.io against a Service that does not
// exist, as a removed metrics-server leaves it, and waits until the aggregator reports it
// unavailable: discovery of that group then fails while every other group still works.
func SeedUnavailableAPIService(ctx context.Context, c *Clients) error {
	name := "v1beta1." + UnavailableGroup
	raw := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"service":               map[string]any{"namespace": "kube-system", "name": "metrics-server", "port": int64(443)},
			"group":                 UnavailableGroup,
			"version":               "v1beta1",
			"insecureSkipTLSVerify": true,
			"groupPriorityMinimum":  int64(100),
			"versionPriority":       int64(100),
		},
	}}
	gvr := schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	if _, err := c.Dynamic.Resource(gvr).Create(ctx, raw, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating apiservices.apiregistration.k8s.io/%s: %w", name, err)
	}
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := c.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, raw := range conds {
			m, _ := raw.(map[string]any)
			if m["type"] == "Available" && m["status"] == "False" {
				return true, nil
			}
		}
		return false, nil
	})
}
