package testenv_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

func TestFluxCRDsParse(t *testing.T) {
	crds, err := testenv.FluxCRDs()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, crd := range crds {
		names[crd.Name] = true
	}
	for _, want := range []string{
		"kustomizations.kustomize.toolkit.fluxcd.io",
		"gitrepositories.source.toolkit.fluxcd.io",
		"helmreleases.helm.toolkit.fluxcd.io",
	} {
		if !names[want] {
			t.Errorf("embedded Flux CRDs lack %s; have %v", want, names)
		}
	}
}

func TestControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real control plane")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	began := time.Now()
	env, err := testenv.Start(ctx, testenv.Options{ControllerManager: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	t.Logf("Start took %s; server %s, work dir %s", time.Since(began).Round(time.Millisecond), env.Server, env.WorkDir)

	t.Run("default ServiceAccount in a new namespace", func(t *testing.T) { checkServiceAccount(ctx, t, env) })
	t.Run("Flux Kustomization", func(t *testing.T) { checkKustomization(ctx, t, env) })
	t.Run("ApplyCRDs in two groups", func(t *testing.T) { checkApplyCRDs(ctx, t, env) })

	pids, workDir := env.Pids(), env.WorkDir
	if len(pids) != 3 {
		t.Errorf("Pids() = %v, want 3 processes", pids)
	}
	if err := env.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d still exists after Stop (kill -0: %v)", pid, err)
		}
	}
	if _, err := os.Stat(workDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work dir %s not removed after Stop (stat: %v)", workDir, err)
	}
}

func checkServiceAccount(ctx context.Context, t *testing.T, env *testenv.Env) {
	cs, err := kubernetes.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "testenv-check"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := cs.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("default ServiceAccount in %s never appeared: %v", ns.Name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func checkKustomization(ctx context.Context, t *testing.T, env *testenv.Env) {
	if err := env.InstallFluxCRDs(ctx); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": "demo", "namespace": "default"},
		"spec": map[string]any{
			"interval":  "10m",
			"prune":     true,
			"path":      "./deploy",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "demo"},
		},
	}}
	gvr := schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	if _, err := dyn.Resource(gvr).Namespace("default").Create(ctx, ks, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Kustomization: %v", err)
	}
	out, err := env.Kubectl(ctx, "get", "kustomizations.kustomize.toolkit.fluxcd.io", "-n", "default", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "kustomization.kustomize.toolkit.fluxcd.io/demo" {
		t.Errorf("kubectl get kustomizations = %q", got)
	}
}

func checkApplyCRDs(ctx context.Context, t *testing.T, env *testenv.Env) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, group := range []string{"a.example.com", "b.example.com"} {
		crds = append(crds, backupCRD(group))
	}
	if err := env.ApplyCRDs(ctx, crds...); err != nil {
		t.Fatal(err)
	}
	out, err := env.Kubectl(ctx, "get", "backups.b.example.com", "-A")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "No resources found") {
		t.Errorf("kubectl get backups.b.example.com = %q", out)
	}
}

func backupCRD(group string) *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "backups." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "backups", Singular: "backup", Kind: "Backup", ListKind: "BackupList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}
