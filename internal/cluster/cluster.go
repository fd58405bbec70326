// Package cluster opens the connections a plugin needs to one Kubernetes API server and names
// that server: the kubeconfig context and URL that every result, banner and printed command
// refers to. It also classifies API errors into the suite's exit codes, so that a forbidden,
// timed-out or unreachable read is reported as UNKNOWN and never as "nothing found".
package cluster

import (
	"fmt"
	"net/url"
	"strings"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Target names the API server a command talks to, and how the plugin reached it.
type Target struct {
	Context string `json:"context"`
	Server  string `json:"server"`
	// Flags are the connection flags every printed command repeats (see Command): the
	// kubeconfig file, context, cluster, user, server, TLS and impersonation flags given, with
	// the context always named. Empty, commands carry --context (or --server without one).
	Flags []string `json:"-"`
	// Secrets names the credentials given on the command line (--token, --username,
	// --password), which printed commands never repeat.
	Secrets []string `json:"-"`
}

// CredentialsNote says, when credentials were given on the command line, that the printed
// commands need them too; it is "" otherwise. Secrets are never echoed.
func (t Target) CredentialsNote() string {
	if len(t.Secrets) == 0 {
		return ""
	}
	return "printed commands do not repeat " + strings.Join(t.Secrets, ", ") + ": add the same credentials when you run them"
}

// String is the one-line banner form, e.g. `context prod (https://10.0.0.1:6443)`.
func (t Target) String() string {
	ctx := t.Context
	if ctx == "" {
		ctx = "<none>"
	}
	return fmt.Sprintf("context %s (%s)", ctx, t.Server)
}

// Clients are the API clients of one target. Metadata is preferred for any read that does not
// need an object's body; Dynamic is used when it does; Kube serves typed reads of core kinds.
type Clients struct {
	Target    Target
	Config    *rest.Config
	Discovery discovery.CachedDiscoveryInterface
	Dynamic   dynamic.Interface
	Metadata  metadata.Interface
	Kube      kubernetes.Interface
	// APIExtensions reads CustomResourceDefinitions as protobuf: a cluster's CRDs, schemas
	// included, can be megabytes of JSON.
	APIExtensions apiextensionsclient.Interface
	// Namespace is the namespace from -n or the context; NamespaceExplicit tells whether -n set it.
	Namespace         string
	NamespaceExplicit bool
}

// Connect builds the clients for the target selected by the standard kubectl flags. It does not
// contact the server; the first read does, and ReadError classifies its failure.
func Connect(flags *genericclioptions.ConfigFlags) (*Clients, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, exitcode.UsageErrorf("loading kubeconfig: %w", err)
	}
	// Plugins list many resource types in parallel; client-side throttling at kubectl's
	// default 5 QPS would serialise them. The server's own flow control still applies.
	cfg.QPS, cfg.Burst = 100, 200
	// Deprecation warnings for types a sweep lists (v1 Endpoints) are noise to an operator.
	cfg.WarningHandler = rest.NoWarnings{}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, exitcode.UsageErrorf("loading kubeconfig: %w", err)
	}
	target := Target{Context: raw.CurrentContext, Server: redactURL(cfg.Host)}
	if flags.Context != nil && *flags.Context != "" {
		target.Context = *flags.Context
	}
	target.Flags, target.Secrets = connectionFlags(flags, target.Context, target.Server)
	ns, explicit, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, exitcode.UsageErrorf("reading namespace: %w", err)
	}
	disc, err := flags.ToDiscoveryClient()
	if err != nil {
		return nil, exitcode.UsageErrorf("building discovery client: %w", err)
	}
	// Read discovery fresh: a cached copy from before an APIService went unavailable would
	// hide that failure, and with it the types a sweep cannot see. The cache is still refilled.
	disc.Invalidate()
	c := &Clients{Target: target, Config: cfg, Discovery: disc, Namespace: ns, NamespaceExplicit: explicit}
	if c.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("building dynamic client: %w", err)
	}
	if c.Metadata, err = metadata.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("building metadata client: %w", err)
	}
	// Built-in types are read as protobuf, as kubectl's own clients read them: a sweep's
	// cluster-wide lists of RBAC, workloads and webhooks cost the server less to encode and
	// the plugin less to decode than JSON. Dynamic reads (custom resources) stay JSON.
	kcfg := rest.CopyConfig(cfg)
	kcfg.ContentType = "application/vnd.kubernetes.protobuf"
	kcfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	if c.Kube, err = kubernetes.NewForConfig(kcfg); err != nil {
		return nil, fmt.Errorf("building client: %w", err)
	}
	if c.APIExtensions, err = apiextensionsclient.NewForConfig(kcfg); err != nil {
		return nil, fmt.Errorf("building apiextensions client: %w", err)
	}
	return c, nil
}

// redactURL drops any user information from a server URL before it is printed.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}
