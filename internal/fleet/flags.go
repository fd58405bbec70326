package fleet

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Defaults of the fleet flags: a few contexts at a time (each run itself reads in parallel),
// and long enough for a sweep of a large cluster over a slow link.
const (
	DefaultParallel       = 4
	DefaultContextTimeout = 2 * time.Minute
	// MaxParallel bounds --parallel: every context holds its own clients and results.
	MaxParallel = 32
)

// Flags are the fleet flags of one command, bound by AddFlags.
type Flags struct {
	Contexts       string
	AllContexts    bool
	ListContexts   bool
	Parallel       int
	ContextTimeout time.Duration
}

// flagNames are the flags AddFlags registers, for Given.
var flagNames = []string{"contexts", "all-contexts", "list-contexts", "parallel", "context-timeout"}

// AddFlags registers --contexts, --all-contexts, --list-contexts, --parallel and
// --context-timeout on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Contexts, "contexts", "", "Fleet mode: run over the kubeconfig contexts whose name matches, a comma-separated list of regular expressions each matching the whole name; a pattern starting with ^ excludes (prod-.*,^prod-legacy).")
	fs.BoolVar(&f.AllContexts, "all-contexts", false, "Fleet mode: run over every context of the kubeconfig.")
	fs.BoolVar(&f.ListContexts, "list-contexts", false, "Print the contexts --contexts or --all-contexts selects (every context without either), and exit 0; contacts no cluster.")
	fs.IntVar(&f.Parallel, "parallel", DefaultParallel, "Fleet mode: how many contexts are read at once (1-32).")
	fs.DurationVar(&f.ContextTimeout, "context-timeout", DefaultContextTimeout, "Fleet mode: how long one context may take; a context that does not answer in time is UNKNOWN.")
}

// Given reports whether any fleet flag was set on the command line: then the run is a fleet
// run, and Validate refuses what it cannot honour.
func Given(fs *pflag.FlagSet) bool {
	for _, n := range flagNames {
		if fs.Changed(n) {
			return true
		}
	}
	return false
}

// Selector returns the selection the flags make: --contexts, --all-contexts, or every context
// for --list-contexts alone. It is a usage error to give both or, except with --list-contexts,
// neither.
func (f *Flags) Selector() (*Selector, error) {
	switch {
	case f.Contexts != "" && f.AllContexts:
		return nil, exitcode.UsageErrorf("--contexts and --all-contexts select the contexts twice: give one")
	case f.Contexts != "":
		return ParseSelector(f.Contexts)
	case f.AllContexts, f.ListContexts:
		return All(), nil
	}
	return nil, exitcode.UsageErrorf("--parallel and --context-timeout belong to fleet mode: add --contexts=PATTERN or --all-contexts")
}

// Validate checks the fleet flags and refuses the connection flags a fleet run cannot honour:
// one --context contradicts the selection, and a cluster, server, user, credential or TLS
// setting given once would apply to every context, sending one cluster's credentials to all
// of them. Impersonation, --namespace, --request-timeout and --kubeconfig apply to each
// context as given. It makes no request.
func (f *Flags) Validate(cf *genericclioptions.ConfigFlags) error {
	if _, err := f.Selector(); err != nil {
		return err
	}
	if f.Parallel < 1 || f.Parallel > MaxParallel {
		return exitcode.UsageErrorf("--parallel=%d: give 1 to %d", f.Parallel, MaxParallel)
	}
	if f.ContextTimeout <= 0 {
		return exitcode.UsageErrorf("--context-timeout=%s: give a positive duration, e.g. 2m", f.ContextTimeout)
	}
	if given := contradicting(cf); len(given) > 0 {
		return exitcode.UsageErrorf("fleet mode refuses %s: each context's cluster, user and credentials come from the kubeconfig, and a value given here would apply to every context (select contexts with --contexts)",
			strings.Join(given, ", "))
	}
	return nil
}

// contradicting names the connection flags given that would override every context's own.
func contradicting(cf *genericclioptions.ConfigFlags) []string {
	var out []string
	str := map[string]*string{
		"--context": cf.Context, "--cluster": cf.ClusterName, "--user": cf.AuthInfoName, "--server": cf.APIServer,
		"--token": cf.BearerToken, "--username": cf.Username, "--password": cf.Password,
		"--certificate-authority": cf.CAFile, "--client-certificate": cf.CertFile, "--client-key": cf.KeyFile,
		"--tls-server-name": cf.TLSServerName,
	}
	for name, v := range str {
		if v != nil && *v != "" {
			out = append(out, name)
		}
	}
	if cf.Insecure != nil && *cf.Insecure {
		out = append(out, "--insecure-skip-tls-verify")
	}
	slices.Sort(out)
	return out
}

// ForContext returns connection flags for the context named name: the kubeconfig, namespace,
// impersonation, request timeout and cache settings of base, with the context set. Each
// context gets its own ConfigFlags, so their cached client configurations never mix. Without
// --request-timeout, every request is bounded by timeout (the context's deadline): discovery
// takes no context.Context, and only a client timeout ends a read from a server that accepted
// the connection and never answers.
func ForContext(base *genericclioptions.ConfigFlags, name string, timeout time.Duration) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.KubeConfig = base.KubeConfig
	f.CacheDir = base.CacheDir
	f.Namespace = base.Namespace
	f.Impersonate = base.Impersonate
	f.ImpersonateUID = base.ImpersonateUID
	f.ImpersonateGroup = base.ImpersonateGroup
	f.ImpersonateUserExtra = base.ImpersonateUserExtra
	f.Timeout = base.Timeout
	if f.Timeout == nil || *f.Timeout == "" || *f.Timeout == "0" {
		t := timeout.String()
		f.Timeout = &t
	}
	f.DisableCompression = base.DisableCompression
	f.Context = &name
	return f
}

// Context is one kubeconfig context: its name and the server of its cluster, as the
// kubeconfig says ("" when the context names no cluster the file defines).
type Context struct {
	Name   string `json:"context"`
	Server string `json:"server"`
}

// Contexts reads the kubeconfig base selects (--kubeconfig, else KUBECONFIG, else
// ~/.kube/config) and returns every context, sorted by name. It contacts no cluster. A
// kubeconfig that cannot be read is a usage error.
func Contexts(base *genericclioptions.ConfigFlags) ([]Context, error) {
	raw, err := base.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, exitcode.UsageErrorf("loading kubeconfig: %w", err)
	}
	out := make([]Context, 0, len(raw.Contexts))
	for name, c := range raw.Contexts {
		ctx := Context{Name: name}
		if c != nil {
			if cl, ok := raw.Clusters[c.Cluster]; ok && cl != nil {
				ctx.Server = redactURL(cl.Server)
			}
		}
		out = append(out, ctx)
	}
	slices.SortFunc(out, func(a, b Context) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Select returns the contexts sel selects, in order. None is a usage error naming the
// patterns; an inclusion that matches nothing while others do is returned as a note.
func Select(all []Context, sel *Selector) (selected []Context, notes []string, err error) {
	names := make([]string, len(all))
	for i, c := range all {
		names[i] = c.Name
		if sel.Match(c.Name) {
			selected = append(selected, c)
		}
	}
	if len(all) == 0 {
		return nil, nil, exitcode.UsageErrorf("the kubeconfig defines no context")
	}
	if len(selected) == 0 {
		return nil, nil, exitcode.UsageErrorf("%s selects none of the kubeconfig's %d context(s) (see --list-contexts --all-contexts)", sel.Text, len(all))
	}
	for _, p := range sel.Unmatched(names) {
		notes = append(notes, "pattern "+p+" of --contexts matches no context")
	}
	return selected, notes, nil
}

// redactURL drops user information from a server URL before it is printed.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}
