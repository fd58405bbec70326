// Package completion supplies the plugins' shell completion: cobra ValidArgsFunctions that
// offer resource types from the server's discovery (spelled so that internal/kinds resolves
// them without ambiguity), object names read through the metadata client, Flux Kustomization
// names, and the values of --namespace and --context. Completion must never get in the way:
// a cluster that cannot be reached yields no candidates (the reason goes to cobra's debug log),
// and every read is bounded by a short timeout. Commands wire these in; nothing here runs a
// command or prints results.
package completion

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/kinds"
)

// timeout bounds the reads of one completion: a shell waiting on <TAB> is worse than no answer.
const timeout = 5 * time.Second

// listLimit caps how many names one completion offers; a shell cannot show more usefully.
const listLimit = 500

// noFiles is the directive for every cluster-backed candidate list.
const noFiles = cobra.ShellCompDirectiveNoFileComp

// ObjectArgs completes `[TYPE NAME | TYPE/NAME | TYPE]`: resource types for the first word,
// names of that type for the second (or after `TYPE/`), in the namespace -n or the kubeconfig
// context selects. With -A (*allNamespaces) only types are offered, as no name is accepted.
func ObjectArgs(flags *genericclioptions.ConfigFlags, allNamespaces *bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 1 || (len(args) == 1 && (allNamespaces != nil && *allNamespaces || strings.Contains(args[0], "/"))) {
			return nil, noFiles
		}
		c, ok := connect(flags)
		if !ok {
			return nil, noFiles
		}
		catalog, err := kinds.Discover(c.Discovery)
		if err != nil {
			cobra.CompDebugln("completion: "+err.Error(), true)
			return nil, noFiles
		}
		ctx, cancel := context.WithTimeout(cmdContext(cmd), timeout)
		defer cancel()
		switch {
		case len(args) == 1:
			return objectNames(ctx, c, catalog, args[0], "", toComplete), noFiles
		case strings.Contains(toComplete, "/") && (allNamespaces == nil || !*allNamespaces):
			typ, prefix, _ := strings.Cut(toComplete, "/")
			return objectNames(ctx, c, catalog, typ, typ+"/", prefix), noFiles
		}
		return TypeNames(catalog, toComplete), noFiles
	}
}

// Kustomizations completes one Flux Kustomization name in the namespace -n selects, or def
// when -n is not given (flux-chain's flux-system). With -A nothing is offered.
func Kustomizations(flags *genericclioptions.ConfigFlags, def string, allNamespaces *bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || (allNamespaces != nil && *allNamespaces) {
			return nil, noFiles
		}
		c, ok := connect(flags)
		if !ok {
			return nil, noFiles
		}
		ns := def
		if c.NamespaceExplicit {
			ns = c.Namespace
		}
		ctx, cancel := context.WithTimeout(cmdContext(cmd), timeout)
		defer cancel()
		return listNames(ctx, c, flux.KustomizationGVR, ns, "", toComplete), noFiles
	}
}

// connect opens the clients (without a request), logging a failure to cobra's debug log.
func connect(flags *genericclioptions.ConfigFlags) (*cluster.Clients, bool) {
	c, err := cluster.Connect(flags)
	if err != nil {
		cobra.CompDebugln("completion: "+err.Error(), true)
		return nil, false
	}
	return c, true
}

// objectNames lists the names of typ (as typed) in the command's namespace, each prefixed with
// prefix, that start with toComplete. An unknown or ambiguous type offers nothing.
func objectNames(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, typ, prefix, toComplete string) []string {
	res, err := catalog.Resolve(typ)
	if err != nil {
		cobra.CompDebugln("completion: "+err.Error(), true)
		return nil
	}
	ns := ""
	if res.Resource.Namespaced {
		ns = c.Namespace
	}
	return listNames(ctx, c, res.Resource.GVR(), ns, prefix, toComplete)
}

// listNames lists object names of gvr in ns ("" for cluster-scoped or all) through the
// metadata client, sorted, filtered by toComplete and prefixed with prefix.
func listNames(ctx context.Context, c *cluster.Clients, gvr schema.GroupVersionResource, ns, prefix, toComplete string) []string {
	list, err := c.Metadata.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{Limit: listLimit})
	if err != nil {
		cobra.CompDebugln("completion: listing "+gvr.String()+": "+err.Error(), true)
		return nil
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.Name)
	}
	out := filterSorted(names, toComplete)
	for i := range out {
		out[i] = prefix + out[i]
	}
	return out
}

// cmdContext is the command's context, or Background when cobra runs it without one.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
