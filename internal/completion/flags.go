package completion

import (
	"context"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// namespacesGVR is the core namespaces resource, listed for --namespace.
var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// RegisterFlags adds value completion to the connection flags that flags registered on cmd:
// --namespace from the server, --context, --cluster and --user from the kubeconfig. A flag
// that flags left out (a nil field) is skipped.
func RegisterFlags(cmd *cobra.Command, flags *genericclioptions.ConfigFlags) {
	if flags.Namespace != nil {
		_ = cmd.RegisterFlagCompletionFunc("namespace", namespaces(flags))
	}
	if flags.Context != nil {
		_ = cmd.RegisterFlagCompletionFunc("context", kubeconfigNames(flags, "context"))
	}
	if flags.ClusterName != nil {
		_ = cmd.RegisterFlagCompletionFunc("cluster", kubeconfigNames(flags, "cluster"))
	}
	if flags.AuthInfoName != nil {
		_ = cmd.RegisterFlagCompletionFunc("user", kubeconfigNames(flags, "user"))
	}
}

// namespaces completes --namespace with the namespaces the server lists.
func namespaces(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		c, ok := connect(flags)
		if !ok {
			return nil, noFiles
		}
		ctx, cancel := context.WithTimeout(cmdContext(cmd), timeout)
		defer cancel()
		return listNames(ctx, c, namespacesGVR, "", "", toComplete), noFiles
	}
}

// kubeconfigNames completes a context, cluster or user name from the merged kubeconfig; it
// makes no request.
func kubeconfigNames(flags *genericclioptions.ConfigFlags, what string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw, err := flags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			cobra.CompDebugln("completion: "+err.Error(), true)
			return nil, noFiles
		}
		var names []string
		switch what {
		case "context":
			for n := range raw.Contexts {
				names = append(names, n)
			}
		case "cluster":
			for n := range raw.Clusters {
				names = append(names, n)
			}
		case "user":
			for n := range raw.AuthInfos {
				names = append(names, n)
			}
		}
		return filterSorted(names, toComplete), noFiles
	}
}

// filterSorted keeps the names that start with prefix, sorted.
func filterSorted(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
