package fluxchain_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// TestFluxNotInstalled runs against a second control plane without the Flux CRDs.
func TestFluxNotInstalled(t *testing.T) {
	needEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bare, err := testenv.Start(ctx, testenv.Options{ContextName: "bare"})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Stop()
	var out, errOut bytes.Buffer
	cmd := fluxchain.NewCmdFluxChain(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	code := cli.Run(ctx, cmd, []string{"--kubeconfig=" + bare.Kubeconfig}, &errOut)
	if code != 3 || !strings.Contains(errOut.String(), "Flux is not installed on context bare") {
		t.Fatalf("exit %d, stderr %q; want 3 and \"Flux is not installed on context bare\"", code, errOut.String())
	}
}

// TestForbiddenSourceListIsUnknown impersonates a user who may list Kustomizations but not
// GitRepositories: the chain is printed with a warning and the exit code is 2, never 0.
func TestForbiddenSourceListIsUnknown(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-rbac")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	ctx := context.Background()
	rbac := f.kube.RbacV1()
	_, err := rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "ks-only"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "ks-only"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "ks-only"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "ks-viewer", APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, f.kube, "ks-viewer", authorizationv1.ResourceAttributes{Namespace: "fc-rbac", Verb: "list", Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"})
	out, stderr, code := run(t, "-n", "fc-rbac", "--as=ks-viewer")
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "INCOMPLETE") || !strings.Contains(out, "listing gitrepositories.source.toolkit.fluxcd.io") || !strings.Contains(out, "forbidden") {
		t.Errorf("the forbidden list is not named as incomplete:\n%s", out)
	}
}
