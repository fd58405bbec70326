// Package allowlist is what a caller of the MCP server may name: the kubeconfig contexts a
// tool call may read (Contexts, --contexts in the syntax of the plugins' fleet mode) and the
// directories whose git repositories it may read (Roots, --repo-root). Every call names its own
// context and repository; nothing one call names changes what the next one reads.
package allowlist

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/fleet"
)

// Contexts decides which kubeconfig contexts a tool call may name, and opens the clients of
// one call. Every call names its own context (or gets the default): nothing a call does
// changes the context of the next one.
type Contexts struct {
	base *genericclioptions.ConfigFlags
	// def is the context of a call that names none: --context, else the kubeconfig's current
	// context ("" when the connection flags select a server without a kubeconfig context).
	def string
	// allow selects the allowed contexts (--contexts, the fleet syntax); nil allows def only.
	allow *fleet.Selector
	// listed are the kubeconfig's contexts allowed when the server started, for the tools'
	// descriptions.
	listed []string
}

// NewContexts reads the kubeconfig the connection flags select and parses the allow-list:
// --contexts in the syntax of the plugins' fleet mode (fleet.ParseSelector), comma-separated
// RE2 expressions each matched against the whole context name, `^` starting an exclusion.
func NewContexts(flags *genericclioptions.ConfigFlags, pattern string) (*Contexts, error) {
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, exitcode.UsageErrorf("loading kubeconfig: %w", err)
	}
	c := &Contexts{base: flags, def: raw.CurrentContext}
	if flags.Context != nil && *flags.Context != "" {
		c.def = *flags.Context
	}
	if pattern == "" {
		if c.def != "" {
			c.listed = []string{c.def}
		}
		return c, nil
	}
	if c.allow, err = fleet.ParseSelector(pattern); err != nil {
		return nil, err
	}
	for name := range raw.Contexts {
		if c.allow.Match(name) {
			c.listed = append(c.listed, name)
		}
	}
	slices.Sort(c.listed)
	if len(c.listed) == 0 {
		return nil, exitcode.UsageErrorf("--contexts %q matches no context of the kubeconfig", pattern)
	}
	return c, nil
}

// Resolve returns the context a call runs against: name, or the default when name is "".
// A context off the allow-list is refused as bad input, naming the ones allowed.
func (c *Contexts) Resolve(name string) (string, error) {
	if name == "" {
		name = c.def
	}
	switch {
	case c.allow == nil && name == c.def:
		return name, nil
	case c.allow != nil && name != "" && c.allow.Match(name):
		return name, nil
	case name == "":
		return "", exitcode.UsageErrorf("the kubeconfig has no current context and --context was not given: name an allowed context (%s)", c.Describe())
	}
	return "", exitcode.UsageErrorf("context %q is not allowed by this server (%s)", name, c.Describe())
}

// Describe says which contexts are allowed, for refusals and tool descriptions.
func (c *Contexts) Describe() string {
	if c.allow == nil {
		if c.def == "" {
			return "only the connection of the server's flags"
		}
		return fmt.Sprintf("only %q; start the server with --contexts to allow others", c.def)
	}
	return fmt.Sprintf("contexts selected by %s: %s", c.allow.Text, strings.Join(c.listed, ", "))
}

// Flags returns connection flags of their own for one call: the server's flags with the
// call's context and namespace (namespace "" keeps the context's).
func (c *Contexts) Flags(context, namespace string) *genericclioptions.ConfigFlags {
	f := cloneFlags(c.base)
	if context != "" {
		f.Context = &context
	}
	if namespace != "" {
		f.Namespace = &namespace
	}
	return f
}

// Connect resolves the call's context and opens its clients.
func (c *Contexts) Connect(context, namespace string) (*cluster.Clients, error) {
	name, err := c.Resolve(context)
	if err != nil {
		return nil, err
	}
	return cluster.Connect(c.Flags(name, namespace))
}

// cloneFlags copies the values of the connection flags into new ConfigFlags, which cache
// their own kubeconfig loader: calls for different contexts never share one.
func cloneFlags(b *genericclioptions.ConfigFlags) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	for _, p := range []struct{ dst, src **string }{
		{&f.CacheDir, &b.CacheDir}, {&f.KubeConfig, &b.KubeConfig}, {&f.ClusterName, &b.ClusterName},
		{&f.AuthInfoName, &b.AuthInfoName}, {&f.Context, &b.Context}, {&f.Namespace, &b.Namespace},
		{&f.APIServer, &b.APIServer}, {&f.TLSServerName, &b.TLSServerName}, {&f.CertFile, &b.CertFile},
		{&f.KeyFile, &b.KeyFile}, {&f.CAFile, &b.CAFile}, {&f.BearerToken, &b.BearerToken},
		{&f.Impersonate, &b.Impersonate}, {&f.ImpersonateUID, &b.ImpersonateUID}, {&f.Username, &b.Username},
		{&f.Password, &b.Password}, {&f.Timeout, &b.Timeout},
	} {
		*p.dst = copyOf(*p.src)
	}
	f.Insecure, f.DisableCompression = copyOf(b.Insecure), copyOf(b.DisableCompression)
	f.ImpersonateGroup, f.ImpersonateUserExtra = copyOf(b.ImpersonateGroup), copyOf(b.ImpersonateUserExtra)
	f.WrapConfigFn = b.WrapConfigFn
	return f
}

func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
