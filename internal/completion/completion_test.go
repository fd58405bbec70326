package completion

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/kinds"
)

func testCatalog() *kinds.Catalog {
	rw := []string{"get", "list", "delete"}
	return kinds.NewCatalog([]kinds.Resource{
		{Version: "v1", Resource: "pods", Kind: "Pod", Singular: "pod", ShortNames: []string{"po"}, Namespaced: true, Verbs: rw},
		{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", ShortNames: []string{"pvc"}, Namespaced: true, Verbs: rw},
		{Version: "v1", Resource: "bindings", Kind: "Binding", Namespaced: true, Verbs: []string{"create"}},
		{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: rw},
		{Group: "velero.io", Version: "v1", Resource: "backups", Kind: "Backup", Namespaced: true, Verbs: rw},
		{Group: "longhorn.io", Version: "v1beta2", Resource: "backups", Kind: "Backup", Namespaced: true, Verbs: rw},
		{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations", Kind: "Kustomization", Namespaced: true, Verbs: rw},
	}, nil)
}

func TestTypeNames(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"all readable types", "", []string{"backups.longhorn.io", "backups.velero.io", "kustomizations", "persistentvolumeclaims", "pods", "pods.metrics.k8s.io"}},
		{"prefix", "p", []string{"persistentvolumeclaims", "pods", "pods.metrics.k8s.io"}},
		{"ambiguous plural is qualified", "backup", []string{"backups.longhorn.io", "backups.velero.io"}},
		{"a dot asks for qualified names", "kustomizations.", []string{"kustomizations.kustomize.toolkit.fluxcd.io"}},
		{"no match", "zz", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, TypeNames(testCatalog(), tc.in)); diff != "" {
				t.Fatalf("TypeNames(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- {name: prod, cluster: {server: "https://127.0.0.1:1"}}
- {name: demo, cluster: {server: "https://127.0.0.1:1"}}
users:
- {name: admin, user: {token: x}}
contexts:
- {name: prod-admin, context: {cluster: prod, user: admin}}
- {name: demo-admin, context: {cluster: demo, user: admin}}
current-context: demo-admin
`

// testFlags returns config flags reading a kubeconfig whose server refuses connections.
func testFlags(t *testing.T) *genericclioptions.ConfigFlags {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	return flags
}

func TestKubeconfigNames(t *testing.T) {
	cases := []struct {
		what, in string
		want     []string
	}{
		{"context", "", []string{"demo-admin", "prod-admin"}},
		{"context", "pr", []string{"prod-admin"}},
		{"cluster", "", []string{"demo", "prod"}},
		{"user", "a", []string{"admin"}},
	}
	for _, tc := range cases {
		t.Run(tc.what+"/"+tc.in, func(t *testing.T) {
			got, dir := kubeconfigNames(testFlags(t), tc.what)(&cobra.Command{}, nil, tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" || dir != cobra.ShellCompDirectiveNoFileComp {
				t.Fatalf("directive %d, names (-want +got):\n%s", dir, diff)
			}
		})
	}
}

// An unreachable server must give no candidates and no file completion, not an error.
func TestUnreachableServerOffersNothing(t *testing.T) {
	all := false
	funcs := map[string]cobra.CompletionFunc{
		"object args":    ObjectArgs(testFlags(t), &all),
		"kustomizations": Kustomizations(testFlags(t), "flux-system", &all),
		"namespaces":     namespaces(testFlags(t)),
	}
	for name, f := range funcs {
		t.Run(name, func(t *testing.T) {
			got, dir := f(&cobra.Command{}, nil, "")
			if len(got) != 0 || dir != cobra.ShellCompDirectiveNoFileComp {
				t.Fatalf("got %q, directive %d; want nothing and NoFileComp", got, dir)
			}
		})
	}
}

func TestObjectArgsStopsAfterName(t *testing.T) {
	all := true
	cases := map[string][]string{"two args": {"pvc", "x"}, "type/name given": {"pvc/x"}, "-A takes no name": {"pvc"}}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			got, dir := ObjectArgs(testFlags(t), &all)(&cobra.Command{}, args, "")
			if len(got) != 0 || dir != cobra.ShellCompDirectiveNoFileComp {
				t.Fatalf("got %q, directive %d", got, dir)
			}
		})
	}
}
